// Executions: the newest executions, kept live by the ledger's event stream (GET /v1/events through
// EventSource, which sends the session cookie and resumes by itself), filterable, each row opening
// its timeline of events, its transactions and fills (GET /v1/executions/:id). Amounts are shown
// rounded for display (amounts.js), a fill's in its token's and its asset's units.

import { amountText, baseUnitsText, stockQuantityText } from './amounts.js'
import { api, Unauthorized } from './api.js'
import { card, clear, el, row, table, timeText } from './dom.js'

const states = [
  'intent',
  'quoting',
  'quoted',
  'approving',
  'submitted',
  'confirmed',
  'failed',
  'expired',
  'rejected',
]

export async function renderExecutions(main, { onUnauthorized }) {
  /** executionId → what the row shows. */
  const executions = new Map()
  const filters = {
    state: el(
      'select',
      { id: 'filter-state', 'aria-label': 'state' },
      el('option', { value: '' }, 'any state'),
      states.map((state) => el('option', { value: state }, state)),
    ),
    chain: el('input', { id: 'filter-chain', type: 'text', placeholder: 'chain id', inputmode: 'numeric' }),
    ticker: el('input', { id: 'filter-ticker', type: 'text', placeholder: 'ticker' }),
    strategy: el('input', { id: 'filter-strategy', type: 'text', placeholder: 'strategy' }),
  }
  const listBox = el('div', { id: 'executions-list' })
  const live = el('span', { id: 'live-status', class: 'muted' }, 'connecting…')
  const detail = card(
    'Execution',
    { id: 'execution-detail', class: 'card wide detail' },
    el('p', { class: 'muted' }, 'Open a row to see its timeline.'),
  )
  main.append(
    card(
      'Executions',
      { class: 'card wide' },
      el('div', { class: 'controls' }, Object.values(filters), live),
      listBox,
    ),
    detail,
  )
  for (const input of Object.values(filters)) input.addEventListener('input', draw)

  function draw() {
    const wanted = {
      state: filters.state.value,
      chain: filters.chain.value.trim(),
      ticker: filters.ticker.value.trim().toUpperCase(),
      strategy: filters.strategy.value.trim(),
    }
    const shown = [...executions.values()]
      .filter((execution) => !wanted.state || execution.state === wanted.state)
      .filter((execution) => !wanted.chain || String(execution.chainId) === wanted.chain)
      .filter((execution) => !wanted.ticker || String(execution.ticker).toUpperCase().includes(wanted.ticker))
      .filter((execution) => !wanted.strategy || String(execution.strategy ?? '').includes(wanted.strategy))
      .sort((a, b) => b.executionId - a.executionId)
    clear(listBox).append(
      table(
        ['id', 'created', 'chain', 'ticker', 'side', 'amount', 'strategy', 'state', 'fills', 'reason', ''],
        shown.map((execution) =>
          row(
            [
              { text: execution.executionId, class: 'num' },
              timeText(execution.createdAt),
              { text: execution.chainId, class: 'num' },
              execution.ticker,
              execution.side,
              { text: amountText(execution.amountIn), class: 'num', title: execution.amountIn },
              execution.strategy ?? '–',
              { text: execution.state, class: 'state' },
              { text: execution.fills, class: 'num fills' },
              { text: execution.reason ?? '', class: 'wrap reason' },
              el('button', { type: 'button', onclick: () => open(execution.executionId) }, 'open'),
            ],
            { 'data-execution-id': execution.executionId },
          ),
        ),
        { id: 'executions-table' },
      ),
    )
  }

  async function open(executionId) {
    try {
      const execution = await api(`/v1/executions/${encodeURIComponent(executionId)}`)
      clear(detail).append(
        el(
          'h2',
          {},
          `Execution ${execution.executionId}: ${execution.ticker} ${execution.side} ${amountText(execution.amountIn)}`,
        ),
        el('p', { class: 'reason' }, `${execution.state}${execution.reason ? ` – ${execution.reason}` : ''}`),
        el('h3', {}, 'Timeline'),
        table(
          ['at', 'from', 'to', 'reason', 'quote'],
          execution.events.map((event) =>
            row([
              timeText(event.at),
              event.from ?? '–',
              event.to,
              { text: event.reason ?? '', class: 'wrap' },
              event.quoteId ?? '–',
            ]),
          ),
          { id: 'execution-events' },
        ),
        el('h3', {}, 'Transactions'),
        table(
          ['kind', 'hash', 'nonce', 'status', 'block', 'error'],
          execution.transactions.map((tx) =>
            row([
              tx.kind,
              tx.hash,
              { text: tx.nonce, class: 'num' },
              tx.status,
              tx.blockNumber ?? '–',
              tx.error ?? '',
            ]),
          ),
        ),
        el('h3', {}, 'Fills'),
        table(
          ['tx', 'shares', 'asset', 'fee (asset)', 'block', 'reversed'],
          execution.fills.map((fill) =>
            row([
              fill.txHash,
              { text: stockQuantityText(fill), class: 'num' },
              { text: baseUnitsText(fill.assetAmount, fill.assetDecimals), class: 'num' },
              { text: baseUnitsText(fill.feeAmount, fill.assetDecimals), class: 'num' },
              fill.blockNumber,
              fill.reversedAt ? `${timeText(fill.reversedAt)} ${fill.reversalReason}` : '',
            ]),
          ),
          { id: 'execution-fills' },
        ),
      )
    } catch (error) {
      if (error instanceof Unauthorized) onUnauthorized()
      else clear(detail).append(el('p', { class: 'error' }, String(error.message)))
    }
  }

  const upsert = (view) => {
    executions.set(view.executionId, {
      ...executions.get(view.executionId),
      ...view,
      fills: view.fills?.length ?? executions.get(view.executionId)?.fills ?? 0,
    })
  }

  // The stream first (it starts at the newest event), then the page: nothing falls in between.
  const stream = new EventSource('/v1/events?kinds=execution,fill,fill_reversed')
  stream.addEventListener('open', () => {
    live.textContent = 'live'
  })
  stream.addEventListener('error', () => {
    live.textContent = 'reconnecting…'
  })
  stream.addEventListener('execution', (message) => {
    const { data, at } = JSON.parse(message.data)
    const known = executions.get(data.executionId)
    upsert({
      executionId: data.executionId,
      chainId: data.chainId,
      ticker: data.ticker,
      side: data.side,
      amountIn: data.amountIn,
      strategy: data.strategy,
      state: data.to,
      reason: data.reason,
      createdAt: known?.createdAt ?? at,
    })
    draw()
  })
  const countFills = (delta) => (message) => {
    const { executionId } = JSON.parse(message.data)
    const known = executionId === null ? undefined : executions.get(executionId)
    if (known) {
      known.fills = Math.max(0, (known.fills ?? 0) + delta)
      draw()
    }
  }
  stream.addEventListener('fill', countFills(1))
  stream.addEventListener('fill_reversed', countFills(-1))

  try {
    const page = await api('/v1/executions?limit=200')
    for (const view of page.executions) if (!executions.has(view.executionId)) upsert(view)
  } catch (error) {
    stream.close()
    throw error
  }
  draw()
  return () => stream.close()
}
