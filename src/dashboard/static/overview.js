// Overview: the kill switch (halt and resume, each with a reason; the entry halts the risk limits
// latched, which Resume clears too), each chain's status and crash
// recovery (GET /health), positions, and equity (open positions at cost and at the market) and PnL
// over time. Amounts are shown rounded for display (amounts.js); the API keeps them exact.

import { amountText } from './amounts.js'
import { api, Unauthorized } from './api.js'
import { timeChart } from './charts.js'
import { card, clear, clipped, el, row, table, timeText } from './dom.js'

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
  // Risk limits reached (drawdown, the day's realized loss): buys refused, sells run, until Resume.
  const entryHalts = el('ul', { id: 'entry-halts', class: 'reason' })
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
    entryHalts,
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
    const halts = view.entryHalts ?? []
    killState.className = view.halted || halts.length > 0 ? 'halted' : 'ok'
    killState.textContent = view.halted
      ? 'HALTED: no new signature'
      : halts.length > 0
        ? 'ENTRIES HALTED: buys refused, sells still run'
        : 'trading'
    killReason.textContent = view.reason ? `${view.reason} (${timeText(view.changedAt)})` : ''
    clear(entryHalts).append(
      ...halts.map((halt) => el('li', { class: 'entry-halt' }, `${halt.reason} (${timeText(halt.since)})`)),
    )
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

  // The curves gain a point per fill and per mark (once a minute): redrawn once a minute, not every refresh.
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
          clipped(wallet.address),
          { text: wallet.state, class: wallet.state === 'ready' ? 'ok' : 'halted' },
          { text: wallet.pending, class: 'num' },
          { text: wallet.nextNonce ?? '–', class: 'num' },
          { text: wallet.recovery ?? '–', class: 'wrap' },
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
    // The recovery's text wraps in the last column, so the table fits a half-width card.
    table(['chain', 'asset', 'wallet', 'state', 'pending', 'next nonce', 'recovery'], rows, {
      class: 'fit',
    }),
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
 * Per chain and asset: equity over the last day (the open positions at cost after each fill, and at
 * the market and at cost at each of the daemon's marks, once a minute), then realized PnL, fees and
 * positions at cost day by day.
 */
function drawPnl(box, series) {
  box.append(
    el(
      'p',
      { class: 'muted' },
      'Equity: the open positions at cost from each fill on, and at the market as the daemon marks them once a minute (at cost when a stock has no market price). PnL: realized PnL and fees per day (UTC), cumulative.',
    ),
  )
  if (series.length === 0) {
    box.append(el('p', { class: 'muted' }, 'no fills yet'))
    return () => undefined
  }
  const removers = []
  for (const one of series) {
    box.append(el('h3', {}, `chain ${one.chainId} · ${one.asset}`))
    removers.push(drawEquity(box, one), drawDays(box, one))
  }
  return () => {
    for (const remove of removers) remove()
  }
}

/**
 * The equity curve of one chain and asset over the last day: a point at cost after each fill (so it
 * starts with the first fill, not a minute later with the first mark), and the marks at the market
 * and at cost; under it, the latest figures.
 */
function drawEquity(box, one) {
  const steps = [
    ...(one.costAtFills ?? []).map((fill) => ({ ...fill, marketValue: null, fill: true })),
    ...(one.marks ?? []),
  ].sort((a, b) => a.atMs - b.atMs)
  const last = steps.at(-1)
  if (!last) {
    box.append(el('p', {}, 'no fill and no mark of the open positions in the last day'))
    return () => undefined
  }
  const chartBox = el('div', { class: 'chart', id: `equity-${one.chainId}` })
  box.append(chartBox, el('p', { class: 'equity-now' }, equityNowText(one, last)))
  return timeChart(chartBox, {
    xs: steps.map((step) => step.atMs),
    unit: one.asset,
    dots: steps.length < 3,
    series: [
      {
        label: 'open positions at market',
        values: steps.map((step) => (step.marketValue === null ? null : Number(step.marketValue))),
        texts: steps.map((step) => step.marketValue),
      },
      {
        label: 'at cost',
        values: steps.map((step) => Number(step.costBasis)),
        texts: steps.map((step) => step.costBasis),
      },
    ],
  })
}

/** The latest equity figures in words: the last mark's, or the cost after the last fill. */
function equityNowText(one, last) {
  const asset = one.asset
  if (last.fill)
    return `open positions at cost ${amountText(last.costBasis)} ${asset} after the fill of ${timeText(last.atMs)}; the daemon marks them at the market once a minute`
  return `open positions at market ${amountText(last.marketValue)} ${asset} (cost ${amountText(last.costBasis)}), marked ${timeText(last.atMs)}`
}

/** Realized PnL, fees and positions at cost day by day; a single day is a figure, not a curve. */
function drawDays(box, one) {
  const asset = one.asset
  if (one.points.length < 2) {
    const only = one.points[0]
    if (only)
      box.append(
        el(
          'p',
          { class: 'day-figures' },
          `${only.day} (the only day so far): realized PnL ${amountText(only.realizedPnl)} ${asset}, fees ${amountText(only.fees)} ${asset}, positions at cost ${amountText(only.costBasis)} ${asset}`,
        ),
      )
    return () => undefined
  }
  const chartBox = el('div', { class: 'chart' })
  box.append(chartBox)
  const xs = one.points.map((point) => point.atMs)
  const line = (label, key) => ({
    label,
    values: one.points.map((point) => Number(point[key])),
    texts: one.points.map((point) => point[key]),
  })
  return timeChart(chartBox, {
    xs,
    unit: asset,
    dots: xs.length < 3,
    series: [
      line('realized PnL', 'realizedPnl'),
      line('fees', 'fees'),
      line('positions at cost', 'costBasis'),
    ],
  })
}
