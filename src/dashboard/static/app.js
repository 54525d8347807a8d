// The dashboard's shell: shows the login form until the daemon accepts the session, then the page
// the URL's hash names, re-drawn when the hash changes. Each page returns a function that stops
// its timers and streams.

import { hasSession, logIn, logOut, Unauthorized } from './api.js'
import { clear, el } from './dom.js'
import { renderExecutions } from './executions.js'
import { renderLatency } from './latency.js'
import { renderOverview } from './overview.js'
import { renderReconciliation } from './reconciliation.js'
import { renderStrategies } from './strategies.js'

const pages = {
  overview: renderOverview,
  executions: renderExecutions,
  strategies: renderStrategies,
  latency: renderLatency,
  reconciliation: renderReconciliation,
}

const main = document.getElementById('main')
const nav = document.getElementById('nav')
const login = document.getElementById('login')
const logoutButton = document.getElementById('logout')
let stopPage = () => undefined

/** Shows the login form and nothing else. */
function showLogin(message) {
  stopPage()
  stopPage = () => undefined
  clear(main)
  nav.hidden = true
  logoutButton.hidden = true
  login.hidden = false
  document.getElementById('login-error').textContent = message ?? ''
  document.getElementById('login-token').focus()
}

/** Draws the page of the hash (overview by default); a 401 anywhere brings the login back. */
async function showPage() {
  stopPage()
  const name = location.hash.slice(1) in pages ? location.hash.slice(1) : 'overview'
  for (const link of nav.querySelectorAll('a')) link.classList.toggle('active', link.hash === `#${name}`)
  clear(main)
  login.hidden = true
  nav.hidden = false
  logoutButton.hidden = false
  document.title = `stockroute · ${name}`
  try {
    stopPage = await pages[name](main, {
      onUnauthorized: () => showLogin('Your session ended: log in again.'),
    })
  } catch (error) {
    if (error instanceof Unauthorized) showLogin()
    else main.append(el('p', { class: 'error' }, String(error.message ?? error)))
  }
}

/** Asks the daemon whether this browser has a session: the login form, or the page. */
async function start() {
  let loggedIn = false
  try {
    loggedIn = await hasSession()
  } catch (error) {
    return showLogin(`The daemon did not answer: ${String(error.message ?? error)}`)
  }
  if (loggedIn) await showPage()
  else showLogin()
}

document.getElementById('login-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const input = document.getElementById('login-token')
  try {
    await logIn(input.value.trim())
    input.value = ''
    await showPage()
  } catch (error) {
    showLogin(String(error.message ?? error))
  }
})
logoutButton.addEventListener('click', async () => {
  await logOut()
  showLogin('Logged out.')
})
window.addEventListener('hashchange', () => {
  if (login.hidden) showPage()
})
start()
