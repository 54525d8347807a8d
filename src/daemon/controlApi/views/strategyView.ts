import type { ProtectiveExitStatus } from '../../protectiveStatus.js'
import type { TwapStatus } from '../../twapStatus.js'
import type { ProtectiveExitView, StrategyView, TwapProgressView } from '../contract.js'
import type { StrategyStatus } from '../controlPlane.js'

const isoTime = (ms: number) => new Date(ms).toISOString()

/**
 * A strategy's status as the control API shows it: times in ISO 8601.
 *
 * @example
 * toStrategyView(plane.strategies.list()[0])
 * // { id: 'dca-aapl', kind: 'dca', enabled: true, switched: null, lastRun: { at: '2025-…', submitted: 1, … },
 * //   trades: { submitted: 4, confirmed: 3, lastAt: '2025-…' }, nextRunAt: null }
 */
export function toStrategyView(status: StrategyStatus): StrategyView {
  return {
    id: status.id,
    kind: status.kind,
    enabled: status.enabled,
    switched:
      status.switched === null
        ? null
        : {
            enabled: status.switched.enabled,
            reason: status.switched.reason,
            at: isoTime(status.switched.atMs),
          },
    lastRun:
      status.lastRun === null
        ? null
        : {
            at: isoTime(status.lastRun.atMs),
            submitted: status.lastRun.submitted,
            refused: status.lastRun.refused,
            error: status.lastRun.error,
            ...(status.lastRun.skipped === undefined ? {} : { skipped: status.lastRun.skipped }),
          },
    trades: {
      submitted: status.trades.submitted,
      confirmed: status.trades.confirmed,
      lastAt: status.trades.lastAtMs === null ? null : isoTime(status.trades.lastAtMs),
    },
    nextRunAt: status.nextRunAtMs === null ? null : isoTime(status.nextRunAtMs),
    ...(status.progress === undefined ? {} : { progress: toTwapProgressView(status.progress) }),
    ...(status.exits === undefined ? {} : { exits: status.exits.map(toProtectiveExitView) }),
  }
}

/** A protective exit as the control API shows it: times in ISO 8601. */
function toProtectiveExitView(exit: ProtectiveExitStatus): ProtectiveExitView {
  const { askedAtMs, retryAtMs, ...rest } = exit
  return { ...rest, askedAt: isoTime(askedAtMs), retryAt: retryAtMs === null ? null : isoTime(retryAtMs) }
}

/** A TWAP's progress as the control API shows it: times in ISO 8601. */
function toTwapProgressView(progress: TwapStatus): TwapProgressView {
  const { window, nextSliceAtMs, ...rest } = progress
  return {
    ...rest,
    window: { start: isoTime(window.startMs), end: isoTime(window.endMs) },
    nextSliceAt: nextSliceAtMs === null ? null : isoTime(nextSliceAtMs),
  }
}
