// A chain's inclusion time, the time from broadcasting a transaction to having its receipt, as a
// rolling estimate: a high percentile of the latest observations. The guard requires a quote to
// have at least this much validity left, plus a margin, before anything is signed. Pure: the
// state is an immutable value, and every time comes from the caller's clock.

export type InclusionTimeSettings = {
  /** The estimate before any observation (and once all have aged out), ms. */
  defaultMs: number
  /** How many of the latest observations count. Default 20. */
  window?: number | undefined
  /** Which percentile of them is the estimate, in (0, 1]. Default 0.9 (p90, nearest rank). */
  percentile?: number | undefined
  /** Observations older than this no longer count, ms. Default: they count until pushed out. */
  maxAgeMs?: number | undefined
}

/** One broadcast-to-receipt measurement. */
export type InclusionObservation = {
  /** When the receipt was seen, Unix ms (the caller's clock). */
  at: number
  /** Broadcast to receipt, ms. */
  durationMs: number
}

/** The estimator's state: its settings and the latest observations, oldest first. */
export type InclusionTimes = {
  readonly settings: Readonly<{ defaultMs: number; window: number; percentile: number; maxAgeMs: number }>
  readonly observations: readonly InclusionObservation[]
}

/**
 * An estimator with no observations yet: its estimate is `defaultMs`. Throws a RangeError for
 * settings that make no sense.
 *
 * @example
 * const inclusion = createInclusionTimes({ defaultMs: 4_000 })
 * estimateInclusionTime(inclusion, Date.now()) // 4000
 */
export function createInclusionTimes(settings: InclusionTimeSettings): InclusionTimes {
  const { defaultMs, window = 20, percentile = 0.9, maxAgeMs = Number.POSITIVE_INFINITY } = settings
  if (!Number.isFinite(defaultMs) || defaultMs < 0)
    throw new RangeError(`defaultMs ${defaultMs} must be a finite number of milliseconds >= 0`)
  if (!Number.isInteger(window) || window < 1)
    throw new RangeError(`window ${window} must be a whole number of observations >= 1`)
  if (!(percentile > 0 && percentile <= 1))
    throw new RangeError(`percentile ${percentile} must be in (0, 1], e.g. 0.9 for p90`)
  if (!(maxAgeMs > 0)) throw new RangeError(`maxAgeMs ${maxAgeMs} must be a positive number of milliseconds`)
  return { settings: { defaultMs, window, percentile, maxAgeMs }, observations: [] }
}

/**
 * The state with one more observation: a transaction broadcast at `broadcastAt` whose receipt was
 * seen at `includedAt` (both Unix ms from the same clock). Only the latest `window` are kept. A
 * receipt timed "before" its broadcast (the clock stepped back) says nothing and is ignored.
 *
 * @example
 * const sentAt = clock()
 * // … broadcast, wait for the receipt …
 * inclusion = observeInclusion(inclusion, { broadcastAt: sentAt, includedAt: clock() })
 */
export function observeInclusion(
  state: InclusionTimes,
  observation: { broadcastAt: number; includedAt: number },
): InclusionTimes {
  const { broadcastAt, includedAt } = observation
  if (!Number.isFinite(broadcastAt) || !Number.isFinite(includedAt))
    throw new RangeError(
      `broadcastAt ${broadcastAt} and includedAt ${includedAt} must be finite Unix milliseconds from the same clock`,
    )
  if (includedAt < broadcastAt) return state
  const observations = [...state.observations, { at: includedAt, durationMs: includedAt - broadcastAt }]
  return { settings: state.settings, observations: observations.slice(-state.settings.window) }
}

/**
 * The inclusion time to expect now, ms: the configured percentile (nearest rank) of the
 * observations not older than `maxAgeMs`, or `defaultMs` when there are none.
 *
 * @example
 * let inclusion = createInclusionTimes({ defaultMs: 4_000 })
 * for (const ms of [900, 1_000, 1_100]) inclusion = observeInclusion(inclusion, { broadcastAt: 0, includedAt: ms })
 * estimateInclusionTime(inclusion, 1_100) // 1100
 */
export function estimateInclusionTime(state: InclusionTimes, now: number): number {
  const { defaultMs, percentile, maxAgeMs } = state.settings
  const recent = state.observations
    .filter((observation) => now - observation.at <= maxAgeMs)
    .map((observation) => observation.durationMs)
    .sort((a, b) => a - b)
  if (recent.length === 0) return defaultMs
  const rank = Math.ceil(percentile * recent.length)
  return recent[Math.min(recent.length, Math.max(1, rank)) - 1] ?? defaultMs
}

/**
 * The validity a quote must still have to be sent now: the estimated inclusion time plus
 * `marginMs`.
 *
 * @example
 * minimumValidityMs(createInclusionTimes({ defaultMs: 4_000 }), Date.now(), 1_500) // 5500
 */
export function minimumValidityMs(state: InclusionTimes, now: number, marginMs: number): number {
  if (!Number.isFinite(marginMs) || marginMs < 0)
    throw new RangeError(`marginMs ${marginMs} must be a finite number of milliseconds >= 0`)
  return estimateInclusionTime(state, now) + marginMs
}
