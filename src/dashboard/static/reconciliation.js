// Reconciliation: what the reconciliation job found (ledger, chain and service disagree on a
// position) and what became of each finding (GET /v1/discrepancies), with the last run (GET /health).

import { api, Unauthorized } from './api.js'
import { card, clear, el, row, table, timeText } from './dom.js'

const refreshMs = 5000

export async function renderReconciliation(main, { onUnauthorized }) {
  const lastRun = el('p', { id: 'last-reconciliation', class: 'muted' })
  const listBox = el('div')
  main.append(card('Discrepancies', { id: 'discrepancies', class: 'card wide' }, lastRun, listBox))

  async function refresh() {
    const [{ discrepancies }, health] = await Promise.all([
      api('/v1/discrepancies'),
      fetch('/health').then((response) => response.json()),
    ])
    const last = health.lastReconciliation
    lastRun.textContent = last
      ? `last reconciliation ${Math.round(last.ageMs / 1000)} s ago: ${last.discrepancies} discrepancies`
      : 'no reconciliation has run yet'
    clear(listBox).append(
      table(
        [
          'found',
          'chain',
          'ticker',
          'kind',
          'ledger',
          'chain balance',
          'service',
          'resolution',
          'detail',
          'since',
        ],
        discrepancies.map((item) =>
          row([
            timeText(item.at),
            { text: item.chainId ?? '–', class: 'num' },
            item.ticker ?? '–',
            item.kind ?? '–',
            { text: item.ledger ?? '–', class: 'num' },
            { text: item.chain ?? '–', class: 'num' },
            { text: item.service ?? '–', class: 'num' },
            { text: item.resolution.state, class: item.resolution.state === 'open' ? 'halted' : 'ok' },
            { text: item.resolution.detail, class: 'wrap' },
            timeText(item.resolution.at),
          ]),
        ),
        { id: 'discrepancies-table' },
      ),
    )
  }

  await refresh()
  const timer = setInterval(() => {
    refresh().catch((error) => {
      if (error instanceof Unauthorized) onUnauthorized()
    })
  }, refreshMs)
  return () => clearInterval(timer)
}
