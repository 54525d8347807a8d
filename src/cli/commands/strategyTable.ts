import { printable } from '@stockroute/client/domain/printable.js'
import type { ProtectiveExitView, StrategyView, TwapProgressView } from '../../daemon/controlApi/contract.js'
import { formatTable } from '../formatTable.js'

/**
 * The list as a table, times relative to `nowMs` (the ISO times are in --json), then each TWAP's
 * progress (done, left, slices, its next, average price against arrival, why a part is not
 * traded), each protective exit that tripped (its sale, attempt, the next attempt of one that
 * ended without a trade) and a line per strategy whose last run threw or had intents refused.
 *
 * @example
 * strategyTable(list, Date.now())
 * // ID         KIND  ENABLED  …
 * // twap-0700  twap  yes      …
 * // twap-0700: bought 400 of 1050 0700 shares, 650 left; slices: 4 of 10 due, 4 sent, 4 confirmed, the next in 3m; average 320.4 HKD, 4.1 bps worse than arrival (320.27)
 */
export function strategyTable(strategies: readonly StrategyView[], nowMs: number): string {
  if (strategies.length === 0) return 'no strategies configured'
  const table = formatTable(
    [
      { header: 'ID' },
      { header: 'KIND' },
      { header: 'ENABLED' },
      { header: 'LAST RUN' },
      { header: 'LAST TRADE' },
      { header: 'SUBMITTED', align: 'right' },
      { header: 'CONFIRMED', align: 'right' },
      { header: 'NEXT RUN' },
      { header: 'SWITCHED' },
    ],
    strategies.map((strategy) => [
      strategy.id,
      strategy.kind,
      strategy.enabled ? 'yes' : 'no',
      strategy.lastRun ? relativeTime(strategy.lastRun.at, nowMs) : '-',
      strategy.trades.lastAt ? relativeTime(strategy.trades.lastAt, nowMs) : 'never',
      String(strategy.trades.submitted),
      String(strategy.trades.confirmed),
      strategy.nextRunAt ? relativeTime(strategy.nextRunAt, nowMs) : '-',
      strategy.switched
        ? `${strategy.switched.enabled ? 'on' : 'off'} ${relativeTime(strategy.switched.at, nowMs)}: ${strategy.switched.reason}`
        : '-',
    ]),
  )
  const progress = strategies.flatMap((strategy) => [
    ...(strategy.progress ? progressLines(strategy.id, strategy.progress, nowMs) : []),
    ...(strategy.exits ?? []).map((exit) => exitLine(strategy.id, exit, nowMs)),
  ])
  const notes = strategies.flatMap((strategy) => {
    const run = strategy.lastRun
    if (run?.error) return [printable(`${strategy.id}: its last run threw: ${run.error}`)]
    if (run?.skipped) return [printable(`${strategy.id}: not evaluated at its last tick: ${run.skipped}`)]
    if (run && run.refused > 0)
      return [printable(`${strategy.id}: its last run had ${run.refused} intent(s) refused before execution`)]
    return []
  })
  return [table, ...progress, ...notes].join('\n')
}

/** A TWAP's progress in one line, then one per reason a part of it is not traded. */
function progressLines(id: string, progress: TwapProgressView, nowMs: number): string[] {
  const { slices } = progress
  const done = progress.side === 'buy' ? 'bought' : 'sold'
  const next =
    progress.nextSliceAt === null ? 'none left' : `the next ${relativeTime(progress.nextSliceAt, nowMs)}`
  const parts = [
    `${done} ${progress.filled} of ${progress.ordered} ${progress.ticker} shares, ${progress.remaining} left`,
    // sent and confirmed count the remainder's execution too (the schema's slices.sent).
    `slices: ${slices.due} of ${slices.planned} due, ${slices.sent} sent, ${slices.confirmed} confirmed, ${next}`,
  ]
  if (progress.averagePrice !== null)
    parts.push(`average ${progress.averagePrice} ${progress.currency}${againstArrival(progress)}`)
  return [
    printable(`${id}: ${parts.join('; ')}`),
    ...progress.notes.map((note) => printable(`${id}: ${note}`)),
  ]
}

/** A protective exit that tripped, and where its sale stands. */
function exitLine(id: string, exit: ProtectiveExitView, nowMs: number): string {
  const tripped = `${exit.trigger} tripped on ${exit.ticker} (chain ${exit.chainId}) at ${exit.price} ${exit.currency}`
  const execution = exit.execution
    ? `execution ${exit.execution.id} ${exit.execution.state}`
    : 'not submitted yet'
  const retry =
    exit.retryAt !== null && Date.parse(exit.retryAt) > nowMs
      ? relativeTime(exit.retryAt, nowMs)
      : 'at the next tick'
  const sale =
    exit.state === 'sold'
      ? `sold ${exit.quantity} shares at attempt ${exit.attempt} (${execution})`
      : exit.state === 'unsold'
        ? `attempt ${exit.attempt} ended without a trade (${execution}); attempt ${exit.attempt + 1} ${retry}`
        : `selling ${exit.quantity} shares, attempt ${exit.attempt} (${execution})`
  return printable(`${id}: ${tripped}: ${sale}`)
}

/** `, 4.1 bps worse than arrival (320.27)`: the sign of `vsArrivalBps` said in words (positive: worse). */
function againstArrival(progress: TwapProgressView): string {
  if (progress.vsArrivalBps === null || progress.arrivalPrice === null) return ''
  const bps = Number(progress.vsArrivalBps)
  const how =
    bps === 0 ? 'at' : `${progress.vsArrivalBps.replace(/^-/, '')} bps ${bps > 0 ? 'worse' : 'better'} than`
  return `, ${how} arrival (${progress.arrivalPrice})`
}

/**
 * An ISO time relative to `nowMs`, in its largest whole unit.
 *
 * @example
 * relativeTime('2025-06-02T14:31:58.000Z', Date.parse('2025-06-02T14:32:00.000Z')) // '2s ago'
 * relativeTime('2025-06-02T16:32:00.000Z', Date.parse('2025-06-02T14:32:00.000Z')) // 'in 2h'
 */
export function relativeTime(iso: string, nowMs: number): string {
  const deltaMs = Date.parse(iso) - nowMs
  const seconds = Math.round(Math.abs(deltaMs) / 1000)
  const amount =
    seconds < 60
      ? `${seconds}s`
      : seconds < 3600
        ? `${Math.floor(seconds / 60)}m`
        : seconds < 86_400
          ? `${Math.floor(seconds / 3600)}h`
          : `${Math.floor(seconds / 86_400)}d`
  if (seconds === 0) return 'now'
  return deltaMs > 0 ? `in ${amount}` : `${amount} ago`
}
