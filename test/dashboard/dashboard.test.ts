/// <reference lib="dom" />
// The page functions below run in Chromium, so this file sees the DOM types.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { renderReportPage } from '../../src/report/index.js'
import type { Report } from '../../src/report/types.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'
import { screenshotDir, useChromium } from './browser.js'
import { useDashboardDaemon } from './dashboardDaemon.js'

// The browser dashboard against a real daemon (`stockroute start` on the sandbox service and the
// anvil chains), in Debian's Chromium: login by session cookie, live executions from the event
// stream, the kill switch from the page, markup shown as text, a phone's width. The tests run in
// order on one daemon and one browser: the login of the first is the session of the others.

const service = useSandboxService()
const daemon = useDashboardDaemon(service, [
  // Never due (1 January), so the strategies page has a row and the daemon trades only what a test posts.
  {
    kind: 'schedule',
    id: 'dca-aapl',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '250',
    cron: '0 0 1 1 *',
  },
])
const browser = useChromium()
const pages = ['overview', 'executions', 'strategies', 'latency', 'reconciliation'] as const
const markup = '<img src=x onerror="window.__injected=1">'
let page: Page
const consoleErrors: string[] = []

/** Posts a buy with the bearer token, as an aggregator does; resolves with its execution id. */
async function postSwap(key: string): Promise<number> {
  const posted = await daemon().api('/v1/swaps', {
    method: 'POST',
    headers: { 'idempotency-key': key },
    body: JSON.stringify({
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
    }),
  })
  expect(posted.status, await posted.clone().text()).toBe(202)
  return ((await posted.json()) as { executionId: number }).executionId
}

/** The swap once `done` holds for it (polled through the API; the engine's pace, not the page's). */
async function swapWhen(executionId: number, done: (swap: SwapView) => boolean): Promise<SwapView> {
  for (let tries = 0; tries < 600; tries++) {
    const swap = (await (await daemon().api(`/v1/swaps/${executionId}`)).json()) as SwapView
    if (done(swap)) return swap
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`execution ${executionId} did not reach the awaited state`)
}
type SwapView = { state: string; reason: string | null; fills: unknown[] }

async function open(name: (typeof pages)[number]) {
  await page.goto(`${daemon().url}/dashboard/#${name}`)
  await page.waitForSelector('#nav:not([hidden])')
  // Each page draws its data last; its cards are in #main once its first reads answered.
  await page.waitForFunction(() => (document.querySelector('#main')?.childElementCount ?? 0) > 0)
  await page.waitForSelector('#main table')
}

describe('dashboard', () => {
  it('prints its URL at start; without a session or with a wrong token: the login form and no data', async () => {
    expect(daemon().dashboardUrl).toBe(`${daemon().url}/dashboard/`)
    page = await browser().newPage()
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
    page.on('pageerror', (error) => consoleErrors.push(error.message))
    // No cookie: the data routes answer 401, to a script and to the page alike.
    const bare = await fetch(`${daemon().url}/v1/positions`)
    expect(bare.status).toBe(401)
    expect((await fetch(`${daemon().url}/v1/reports/pnl`)).status).toBe(401)
    await page.goto(daemon().dashboardUrl)
    await page.waitForSelector('#login:not([hidden])')
    expect(await page.isHidden('#nav')).toBe(true)
    expect(await page.$eval('#main', (main) => main.childElementCount)).toBe(0)
    expect(await page.evaluate(async () => (await fetch('/v1/kill-switch')).status)).toBe(401)
    // A wrong token: refused, still the form, no cookie, no data.
    await page.fill('#login-token', `wrong-${randomUUID()}`)
    await page.click('#login-form button[type="submit"]')
    await page.waitForFunction(() => (document.querySelector('#login-error')?.textContent ?? '') !== '')
    expect(await page.textContent('#login-error')).toContain('not the control API token')
    expect(await page.isVisible('#login')).toBe(true)
    expect(await page.$eval('#main', (main) => main.childElementCount)).toBe(0)
    expect(await browser().cookies()).toEqual([])
    await page.screenshot({ path: join(screenshotDir, 'login.png') })
    consoleErrors.length = 0 // the 401s above are logged by Chromium as failed loads
  })

  it('logs in with the token into a session cookie; the overview loads with no console error', async () => {
    await page.fill('#login-token', daemon().token)
    await page.click('#login-form button[type="submit"]')
    await page.waitForSelector('#kill-switch-state:not(:empty)')
    await page.waitForSelector('#chains table')
    expect(page.url()).not.toContain(daemon().token)
    const [cookie, ...others] = await browser().cookies()
    expect(others).toEqual([])
    expect(cookie).toMatchObject({
      name: 'stockroute_session',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    })
    expect(cookie?.value).not.toContain(daemon().token)
    expect(await page.evaluate(() => sessionStorage.getItem('stockroute.csrf'))).toMatch(/^[\w-]{20,}$/)
    // The cookie alone reads, but does not change state: a POST needs the CSRF header too.
    const withoutCsrf = await page.evaluate(async () => {
      const response = await fetch('/v1/kill-switch/halt', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'forged' }),
      })
      return response.status
    })
    expect(withoutCsrf).toBe(403)
    consoleErrors.length = 0 // Chromium logs the refused probe above as a failed load
    expect((await (await daemon().api('/v1/kill-switch')).json()) as { halted: boolean }).toMatchObject({
      halted: false,
    })
    await open('overview')
    expect(consoleErrors).toEqual([])
  })

  it('shows a fill made through the API on the executions page within 2 s, without a reload', async () => {
    await open('executions')
    await page.waitForFunction(() => document.querySelector('#live-status')?.textContent === 'live')
    const executionId = await postSwap(`dashboard-fill-${randomUUID()}`)
    await swapWhen(executionId, (swap) => swap.fills.length > 0)
    // Bounded wait: polls the page until the row shows the fill, fails after 2 s.
    await page.waitForFunction(
      (id) => {
        const row = document.querySelector(`tr[data-execution-id="${id}"]`)
        return (
          row?.querySelector('.fills')?.textContent === '1' &&
          row.querySelector('.state')?.textContent === 'confirmed'
        )
      },
      executionId,
      { timeout: 2000, polling: 50 },
    )
    await page.click(`tr[data-execution-id="${executionId}"] button`)
    await page.waitForSelector('#execution-events tbody tr')
    expect(await page.textContent('#execution-detail')).toContain('confirmed')
    expect(consoleErrors).toEqual([])
  }, 90_000)

  it('halts from the page with a typed reason: the next signature is refused, the page shows the reason', async () => {
    await open('overview')
    // The fill of the test before is a position, in the token's and the asset's own units.
    await page.waitForFunction(() =>
      /AAPL/.test(document.querySelector('#positions tbody')?.textContent ?? ''),
    )
    const position = await page.textContent('#positions tbody tr')
    expect(position).toContain('USDC')
    expect(position).not.toMatch(/\d{12}/)
    // The daemon marks the open position at the market on its next market-data tick.
    const deadline = Date.now() + 30_000
    type Series = { asset: string; points: { costBasis: string }[]; marks: { costBasis: string }[] }
    let series: Series[] = []
    while (!series.some((one) => one.marks.length > 0) && Date.now() < deadline) {
      series = ((await (await daemon().api('/v1/series/pnl')).json()) as { series: Series[] }).series
      if (!series.some((one) => one.marks.length > 0))
        await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const marked = series.find((one) => one.marks.length > 0)
    expect(marked?.asset).toBe('USDC')
    // Two computations of the open positions at cost agree: the daily figures' and the mark's.
    expect(marked?.points.at(-1)?.costBasis).toBe(marked?.marks.at(-1)?.costBasis)
    await page.reload()
    await page.waitForFunction(() =>
      /open positions at market \d/.test(document.querySelector('#pnl')?.textContent ?? ''),
    )
    const reason = `drill ${randomUUID().slice(0, 8)}`
    await page.fill('#kill-reason', reason)
    await page.click('#halt')
    await page.waitForFunction(
      (text) => document.querySelector('#kill-switch-reason')?.textContent?.includes(text) ?? false,
      reason,
    )
    expect(await page.textContent('#kill-switch-state')).toContain('HALTED')
    const executionId = await postSwap(`dashboard-halted-${randomUUID()}`)
    const refused = await swapWhen(
      executionId,
      (swap) => !['intent', 'quoting', 'quoted', 'approving'].includes(swap.state),
    )
    expect(refused.state).toBe('rejected')
    expect(refused.reason).toContain('kill switch')
    expect(refused.fills).toEqual([])
    await page.click('#resume')
    await page.waitForFunction(() => document.querySelector('#kill-switch-state')?.textContent === 'trading')
  }, 90_000)

  it('shows a reason holding markup as text, creating no element', async () => {
    const halted = await daemon().api('/v1/kill-switch/halt', {
      method: 'POST',
      body: JSON.stringify({ reason: markup }),
    })
    expect(halted.status).toBe(200)
    await open('overview')
    await page.waitForFunction(
      (text) => document.querySelector('#kill-switch-reason')?.textContent?.includes(text) ?? false,
      markup,
    )
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, i.e. visible on the page
    expect(await page.locator('#kill-switch-reason').innerText()).toContain(markup)
    expect(await page.evaluate(() => document.querySelectorAll('img').length)).toBe(0)
    expect(
      await page.evaluate(() => (window as unknown as { __injected?: number }).__injected),
    ).toBeUndefined()
    await page.screenshot({ path: join(screenshotDir, 'overview-halted.png'), fullPage: true })
    expect((await daemon().api('/v1/kill-switch/resume', { method: 'POST' })).status).toBe(200)
  })

  it('serves the reports as JSON; the HTML report draws them with the inlined uPlot, fetching nothing', async () => {
    const answer = await daemon().api('/v1/reports/latency?chainId=31337')
    expect(answer.status).toBe(200)
    const report = (await answer.json()) as Report
    expect(report).toMatchObject({ name: 'latency', filter: { chainId: 31337 } })
    const fetched: string[] = []
    const reportPage = await browser().newPage()
    reportPage.on('request', (request) => fetched.push(request.url()))
    reportPage.on('pageerror', (error) => consoleErrors.push(error.message))
    await reportPage.setContent(renderReportPage(report))
    await reportPage.waitForSelector('.sr-chart canvas')
    expect(fetched).toEqual([])
    await reportPage.screenshot({ path: join(screenshotDir, 'report-latency.png'), fullPage: true })
    await reportPage.close()
    expect(consoleErrors).toEqual([])
  })

  it('saves a screenshot of each page, wide and at a phone width of 390 px with no horizontal overflow', async () => {
    for (const name of pages) {
      await open(name)
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 390, height: 844 })
    for (const name of pages) {
      await open(name)
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      expect(width, `${name} at 390 px`).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(screenshotDir, `${name}-390.png`), fullPage: true })
    }
    expect(consoleErrors).toEqual([])
  })
})
