// Overview: the kill switch (halt and resume, each with a reason), each chain's status and crash
// recovery (GET /health), positions, and equity (open positions at cost) and PnL over time.

import { api, Unauthorized } from './api.js'
import { timeChart } from './charts.js'
import { card, clear, el, row, table, timeText } from './dom.js'

const refreshMs = 3000
const pnlRefreshMs = 60_000

export async function renderOverview(main, { onUnauthorized }) {
  const killBox = card('Kill switch', { id: 'kill-switch' })
  const chainsBox = card('Chains', { id: 'chains' })
  const positionsBox = card('Positions', { id: 'positions', class: 'card wide' })
  const pnlBox = card('Equity and PnL over time', { id: 'pnl', class: 'card wide' })
  main.append(killBox, chainsBox, pnlBox, positionsBox)

  const killState = el('p', { id: 'kill-switch-state' })
  const killReason = el('p', { id: 'kill-switch-reason', class: 'reason' })
  const reasonInput = el('input', {
    id: 'kill-reason',
    type: 'text',
    placeholder: 'reason (required to halt)',
    maxlength: 500,
  })
  const message = el('p', { class: 'error', role: 'alert' })
  const act = (action) => async () => {
    const reason = reasonInput.value.trim()
    if (action === 'halt' && reason === '') {
      message.textContent = 'Type a reason for the halt.'
      return
    }
    try {
      const body = reason === '' ? {} : { reason }
      showKillSwitch(await api(`/v1/kill-switch/${action}`, { body }))
      reasonInput.value = ''
      message.textContent = ''
    } catch (error) {
      if (error instanceof Unauthorized) onUnauthorized()
      else message.textContent = String(error.message)
    }
  }
  killBox.append(
    killState,
    killReason,
    el(
      'div',
      { class: 'controls' },
      reasonInput,
      el('button', { id: 'halt', type: 'button', class: 'danger', onclick: act('halt') }, 'Halt'),
      el('button', { id: 'resume', type: 'button', onclick: act('resume') }, 'Resume'),
    ),
    message,
  )

  function showKillSwitch(view) {
    killState.className = view.halted ? 'halted' : 'ok'
    killState.textContent = view.halted ? 'HALTED: no new signature' : 'trading'
    killReason.textContent = view.reason ? `${view.reason} (${timeText(view.changedAt)})` : ''
  }

  async function refresh() {
    const [kill, health, positions] = await Promise.all([
      api('/v1/kill-switch'),
      fetch('/health').then((response) => response.json()),
      // The positions report: amounts in the token's and the asset's units, valued at the daemon's prices.
      api('/v1/reports/positions'),
    ])
    showKillSwitch(kill)
    clear(chainsBox).append(el('h2', {}, 'Chains'), chainsTable(health))
    clear(positionsBox).append(el('h2', {}, 'Positions'), positionsTable(positions.tables[0]))
  }

  // The curves change once a minute (the daemon's marks): redrawn at that pace, not every refresh.
  let removeChart = () => undefined
  const redrawPnl = async () => {
    const pnl = await api('/v1/series/pnl')
    removeChart()
    clear(pnlBox).append(el('h2', {}, 'Equity and PnL over time'))
    removeChart = drawPnl(pnlBox, pnl.series)
  }
  const onError = (error) => {
    if (error instanceof Unauthorized) onUnauthorized()
  }
  await redrawPnl()
  await refresh()
  const timer = setInterval(() => refresh().catch(onError), refreshMs)
  const pnlTimer = setInterval(() => redrawPnl().catch(onError), pnlRefreshMs)
  return () => {
    clearInterval(timer)
    clearInterval(pnlTimer)
    removeChart()
  }
}

function chainsTable(health) {
  const rows = []
  for (const chain of health.chains ?? [])
    for (const wallet of chain.wallets)
      rows.push(
        row([
          { text: chain.chainId, class: 'num' },
          chain.asset,
          wallet.address,
          { text: wallet.state, class: wallet.state === 'ready' ? 'ok' : 'halted' },
          { text: wallet.recovery ?? '–', class: 'wrap' },
          { text: wallet.pending, class: 'num' },
          { text: wallet.nextNonce ?? '–', class: 'num' },
        ]),
      )
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'muted' },
      `daemon ${health.status ?? '?'}, up ${health.uptimeSeconds ?? '?'} s, ${health.executionsInFlight ?? 0} executions in flight`,
    ),
    table(['chain', 'asset', 'wallet', 'state', 'recovery', 'pending', 'next nonce'], rows),
  )
}

/** The columns of the positions report shown here, in order. */
const positionColumns = [
  'chain_id',
  'ticker',
  'balance',
  'asset',
  'avg_price',
  'cost_basis',
  'price',
  'price_source',
  'unrealized_pnl',
  'realized_pnl',
]

function positionsTable(report) {
  const titles = new Map((report?.columns ?? []).map((column) => [column.key, column]))
  const keys = positionColumns.filter((key) => titles.has(key))
  return table(
    keys.map((key) => titles.get(key).title),
    (report?.rows ?? []).map((position) =>
      row(
        keys.map((key) => {
          const kind = titles.get(key).kind
          const numeric = kind === 'decimal' || kind === 'integer'
          return { text: position[key] ?? '–', class: numeric ? 'num' : '' }
        }),
      ),
    ),
  )
}

/**
 * Per chain and asset: the open positions at the market over the last day (the daemon's marks, once
 * a minute), then realized PnL, fees and positions at cost day by day.
 */
function drawPnl(box, series) {
  box.append(
    el(
      'p',
      { class: 'muted' },
      'Equity: the open positions at the market, marked by the daemon once a minute (at cost when a stock has no market price). PnL: realized PnL and fees per day (UTC), cumulative.',
    ),
  )
  if (series.length === 0) {
    box.append(el('p', { class: 'muted' }, 'no fills yet'))
    return () => undefined
  }
  const removers = []
  for (const one of series) {
    box.append(el('h3', {}, `chain ${one.chainId} · ${one.asset}`))
    const marks = one.marks ?? []
    if (marks.length >= 2) {
      const chartBox = el('div', { class: 'chart', id: `equity-${one.chainId}` })
      box.append(chartBox)
      removers.push(
        timeChart(chartBox, {
          xs: marks.map((mark) => mark.atMs),
          unit: one.asset,
          series: [
            { label: 'open positions at market', values: marks.map((mark) => Number(mark.marketValue)) },
            { label: 'at cost', values: marks.map((mark) => Number(mark.costBasis)) },
          ],
        }),
      )
    } else {
      const last = marks.at(-1)
      box.append(
        el(
          'p',
          {},
          last
            ? `open positions at market ${last.marketValue} ${one.asset} (cost ${last.costBasis}); the curve starts with the next mark`
            : 'no mark of the open positions yet (the daemon marks them once a minute)',
        ),
      )
    }
    // A single day is a figure, not a curve: say it.
    if (one.points.length < 2) {
      const only = one.points[0]
      if (only)
        box.append(
          el(
            'p',
            {},
            `${only.day} (the only day so far): realized PnL ${only.realizedPnl}, fees ${only.fees} ${one.asset}, positions at cost ${only.costBasis}`,
          ),
        )
      continue
    }
    const chartBox = el('div', { class: 'chart' })
    box.append(chartBox)
    const xs = one.points.map((point) => point.atMs)
    removers.push(
      timeChart(chartBox, {
        xs,
        unit: one.asset,
        dots: xs.length < 3,
        series: [
          { label: 'realized PnL', values: one.points.map((point) => Number(point.realizedPnl)) },
          { label: 'fees', values: one.points.map((point) => Number(point.fees)) },
          { label: 'positions at cost', values: one.points.map((point) => Number(point.costBasis)) },
        ],
      }),
    )
  }
  return () => {
    for (const remove of removers) remove()
  }
}
