// Strategies: each configured strategy, whether it runs, the last switch, the last run, what it
// traded (from the ledger: executions submitted and confirmed, the last confirmation), and switches to enable or disable it with a reason (kept across restarts by the daemon).

import { api, Unauthorized } from './api.js'
import { card, clear, el, row, table, timeText } from './dom.js'

const refreshMs = 5000

export async function renderStrategies(main, { onUnauthorized }) {
  const box = card('Strategies', { id: 'strategies', class: 'card wide' })
  const reasonInput = el('input', {
    id: 'strategy-reason',
    type: 'text',
    placeholder: 'reason (optional)',
    maxlength: 500,
  })
  const message = el('p', { class: 'error', role: 'alert' })
  const listBox = el('div')
  box.append(el('div', { class: 'controls' }, reasonInput), message, listBox)
  main.append(box)

  const flip = (id, enable) => async () => {
    try {
      const reason = reasonInput.value.trim()
      await api(`/v1/strategies/${encodeURIComponent(id)}/${enable ? 'enable' : 'disable'}`, {
        body: reason ? { reason } : {},
      })
      reasonInput.value = ''
      message.textContent = ''
      await refresh()
    } catch (error) {
      if (error instanceof Unauthorized) onUnauthorized()
      else message.textContent = String(error.message)
    }
  }

  async function refresh() {
    const { strategies } = await api('/v1/strategies')
    clear(listBox).append(
      table(
        [
          'id',
          'kind',
          'state',
          'last switch',
          'last run',
          'last trade',
          'submitted',
          'confirmed',
          'last run error',
          'next run',
          'progress',
          '',
        ],
        strategies.map((strategy) =>
          row([
            strategy.id,
            strategy.kind,
            { text: strategy.enabled ? 'enabled' : 'disabled', class: strategy.enabled ? 'ok' : 'halted' },
            {
              text: strategy.switched
                ? `${strategy.switched.enabled ? 'on' : 'off'}: ${strategy.switched.reason} (${timeText(strategy.switched.at)})`
                : 'config',
              class: 'wrap',
            },
            timeText(strategy.lastRun?.at),
            strategy.trades.lastAt ? timeText(strategy.trades.lastAt) : 'never',
            { text: strategy.trades.submitted, class: 'num' },
            { text: strategy.trades.confirmed, class: 'num' },
            {
              text:
                strategy.lastRun?.error ??
                (strategy.lastRun?.refused ? `${strategy.lastRun.refused} intent(s) refused` : ''),
              class: 'wrap',
            },
            // Strategies are evaluated on every market-data tick while enabled.
            strategy.nextRunAt
              ? timeText(strategy.nextRunAt)
              : strategy.enabled
                ? 'every market-data tick'
                : '–',
            {
              text: [progressText(strategy.progress), exitsText(strategy.exits)].filter(Boolean).join(' · '),
              class: 'wrap',
            },
            el(
              'button',
              {
                type: 'button',
                onclick: flip(strategy.id, !strategy.enabled),
                class: strategy.enabled ? 'danger' : '',
              },
              strategy.enabled ? 'Disable' : 'Enable',
            ),
          ]),
        ),
        { id: 'strategies-table' },
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

/**
 * A TWAP's progress in one cell: shares filled of the order, slices, average fill price against the
 * arrival price, the remainder and any note; empty for the other kinds.
 */
export function progressText(progress) {
  if (!progress) return ''
  const parts = [
    `${progress.filled} of ${progress.ordered} ${progress.ticker} (${progress.remaining} left)`,
    `slices ${progress.slices.confirmed}/${progress.slices.planned} filled, ${progress.slices.due} due`,
  ]
  if (progress.averagePrice !== null)
    parts.push(
      `avg ${progress.averagePrice} ${progress.currency} vs arrival ${progress.arrivalPrice ?? '–'}${progress.vsArrivalBps === null ? '' : ` (${progress.vsArrivalBps} bps)`}`,
    )
  if (progress.nextSliceAt) parts.push(`next slice ${timeText(progress.nextSliceAt)}`)
  if (progress.remainder)
    parts.push(
      `remainder ${progress.remainder.shares} ${progress.remainder.ticker}: ${progress.remainder.status}`,
    )
  return [...parts, ...progress.notes].join(' · ')
}

/**
 * A protect strategy's tripped exits in one cell: each trigger, the price it tripped at and where its
 * sale stands (selling, sold, or ended without a trade and when it is asked for again); empty for the
 * other kinds and while none tripped.
 */
export function exitsText(exits) {
  if (!exits) return ''
  return exits
    .map((exit) => {
      const tripped = `${exit.trigger} ${exit.ticker} at ${exit.price} ${exit.currency}`
      const execution = exit.execution ? ` (execution ${exit.execution.id} ${exit.execution.state})` : ''
      if (exit.state === 'sold')
        return `${tripped}: sold ${exit.quantity} at attempt ${exit.attempt}${execution}`
      if (exit.state === 'unsold')
        return `${tripped}: attempt ${exit.attempt} unsold${execution}, attempt ${exit.attempt + 1} at ${timeText(exit.retryAt)}`
      return `${tripped}: selling ${exit.quantity}, attempt ${exit.attempt}${execution || ' (not submitted yet)'}`
    })
    .join(' · ')
}
