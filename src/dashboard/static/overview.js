// Overview: the kill switch (halt and resume, each with a reason), each chain's status and crash
// recovery (GET /health), positions, and equity (open positions at cost) and PnL over time.

import { api, Unauthorized } from './api.js'
import { timeChart } from './charts.js'
import { card, clear, el, row, table, timeText } from './dom.js'

const refreshMs = 3000

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

  const pnl = await api('/v1/series/pnl')
  const removeChart = drawPnl(pnlBox, pnl.series)
  await refresh()
  const timer = setInterval(() => {
    refresh().catch((error) => {
      if (error instanceof Unauthorized) onUnauthorized()
    })
  }, refreshMs)
  return () => {
    clearInterval(timer)
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

/** One chart per chain and asset: cumulative realized PnL, fees, and open positions at cost. */
function drawPnl(box, series) {
  box.append(
    el(
      'p',
      { class: 'muted' },
      'Per day (UTC), in the asset: open positions at cost (the ledger keeps no past market prices), realized PnL and fees, cumulative.',
    ),
  )
  if (series.length === 0) {
    box.append(el('p', { class: 'muted' }, 'no fills yet'))
    return () => undefined
  }
  const removers = series.map((one) => {
    // A single day is a figure, not a curve: say it.
    if (one.points.length < 2) {
      const only = one.points[0]
      box.append(
        el('h3', {}, `chain ${one.chainId} · ${one.asset}`),
        el(
          'p',
          {},
          only
            ? `${only.day} (the only day so far): equity at cost ${only.costBasis}, realized PnL ${only.realizedPnl}, fees ${only.fees} ${one.asset}`
            : 'no fills yet',
        ),
      )
      return () => undefined
    }
    const chartBox = el('div', { class: 'chart' })
    // An asset the ledger cannot name is its address: shortened for the axis.
    const asset = one.asset.length > 12 ? `${one.asset.slice(0, 6)}…${one.asset.slice(-4)}` : one.asset
    box.append(el('h3', {}, `chain ${one.chainId} · ${one.asset}`), chartBox)
    const xs = one.points.map((point) => point.atMs)
    return timeChart(chartBox, {
      xs,
      unit: asset,
      dots: xs.length < 3,
      series: [
        { label: 'equity at cost', values: one.points.map((point) => Number(point.costBasis)) },
        { label: 'realized PnL', values: one.points.map((point) => Number(point.realizedPnl)) },
        { label: 'fees', values: one.points.map((point) => Number(point.fees)) },
      ],
    })
  })
  return () => {
    for (const remove of removers) remove()
  }
}
