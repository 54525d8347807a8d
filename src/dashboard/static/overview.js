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
      api('/v1/positions'),
    ])
    showKillSwitch(kill)
    clear(chainsBox).append(el('h2', {}, 'Chains'), chainsTable(health))
    clear(positionsBox).append(el('h2', {}, 'Positions'), positionsTable(positions.positions))
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
          { text: JSON.stringify(wallet.recovery ?? null), class: 'wrap' },
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

function positionsTable(positions) {
  return table(
    ['chain', 'ticker', 'kind', 'balance', 'available', 'cost basis', 'realized PnL', 'avg price', 'updated'],
    positions.map((position) =>
      row([
        { text: position.chainId, class: 'num' },
        position.ticker,
        position.tokenKind,
        { text: position.balance, class: 'num' },
        { text: position.available, class: 'num' },
        { text: position.costBasis, class: 'num' },
        { text: position.realizedPnl, class: 'num' },
        { text: position.avgPrice ?? '–', class: 'num' },
        timeText(position.updatedAt),
      ]),
    ),
  )
}

/** One chart per chain and asset: cumulative realized PnL, fees, and open positions at cost. */
function drawPnl(box, series) {
  box.append(
    el(
      'p',
      { class: 'muted' },
      'Per day (UTC), in the asset: positions at cost (the ledger keeps no past market prices); amounts in base units are in Positions.',
    ),
  )
  if (series.length === 0) {
    box.append(el('p', { class: 'muted' }, 'no fills yet'))
    return () => undefined
  }
  const removers = series.map((one) => {
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
