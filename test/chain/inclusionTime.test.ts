import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createInclusionTimes,
  estimateInclusionTime,
  type InclusionTimes,
  minimumValidityMs,
  observeInclusion,
} from '../../src/chain/inclusionTime.js'

/** Observations of the given durations, one a second from t = 1 000 000 ms. */
function observed(state: InclusionTimes, durations: readonly number[], startAt = 1_000_000): InclusionTimes {
  return durations.reduce(
    (current, durationMs, index) =>
      observeInclusion(current, {
        broadcastAt: startAt + index * 1_000,
        includedAt: startAt + index * 1_000 + durationMs,
      }),
    state,
  )
}

describe('inclusion time estimate', () => {
  it('is the configured default before any observation', () => {
    const state = createInclusionTimes({ defaultMs: 4_000 })
    expect(estimateInclusionTime(state, 0)).toBe(4_000)
    expect(minimumValidityMs(state, 0, 1_500)).toBe(5_500)
  })

  it('is the p90 (nearest rank) of the observations, default or not', () => {
    const state = observed(
      createInclusionTimes({ defaultMs: 4_000 }),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => n * 100),
    )
    expect(estimateInclusionTime(state, 2_000_000)).toBe(900)
    // One observation is its own p90, even far below the default.
    expect(
      estimateInclusionTime(observed(createInclusionTimes({ defaultMs: 4_000 }), [250]), 2_000_000),
    ).toBe(250)
    // Order of arrival does not matter.
    const shuffled = observed(
      createInclusionTimes({ defaultMs: 4_000 }),
      [700, 100, 1000, 300, 900, 200, 500, 800, 400, 600],
    )
    expect(estimateInclusionTime(shuffled, 2_000_000)).toBe(900)
    // A slow outlier beyond the 90th percentile is not the estimate; two of ten are.
    expect(
      estimateInclusionTime(
        observed(createInclusionTimes({ defaultMs: 0 }), [...Array(9).fill(1_000), 30_000]),
        2_000_000,
      ),
    ).toBe(1_000)
    expect(
      estimateInclusionTime(
        observed(createInclusionTimes({ defaultMs: 0 }), [...Array(8).fill(1_000), 30_000, 30_000]),
        2_000_000,
      ),
    ).toBe(30_000)
  })

  it('rolls: only the latest `window` observations count', () => {
    let state = createInclusionTimes({ defaultMs: 4_000, window: 5 })
    state = observed(state, [10_000, 10_000, 10_000, 10_000, 10_000])
    expect(estimateInclusionTime(state, 2_000_000)).toBe(10_000)
    state = observed(state, [500, 600, 700, 800, 900], 1_100_000)
    expect(state.observations).toHaveLength(5)
    expect(estimateInclusionTime(state, 2_000_000)).toBe(900)
  })

  it('forgets observations older than maxAgeMs, back to the default', () => {
    let state = createInclusionTimes({ defaultMs: 4_000, maxAgeMs: 60_000 })
    state = observeInclusion(state, { broadcastAt: 0, includedAt: 9_000 }) // slow, early
    state = observeInclusion(state, { broadcastAt: 19_000, includedAt: 20_000 }) // fast, later
    expect(estimateInclusionTime(state, 69_000)).toBe(9_000)
    expect(estimateInclusionTime(state, 69_001)).toBe(1_000)
    expect(estimateInclusionTime(state, 80_000)).toBe(1_000)
    expect(estimateInclusionTime(state, 80_001)).toBe(4_000)
  })

  it('takes the percentile it is given', () => {
    const state = observed(createInclusionTimes({ defaultMs: 0, percentile: 0.5 }), [100, 200, 300, 400])
    expect(estimateInclusionTime(state, 2_000_000)).toBe(200)
    const max = observed(createInclusionTimes({ defaultMs: 0, percentile: 1 }), [100, 200, 300, 400])
    expect(estimateInclusionTime(max, 2_000_000)).toBe(400)
  })

  it('is pure: observing returns a new state and leaves the old one as it was', () => {
    const before = createInclusionTimes({ defaultMs: 4_000 })
    const after = observeInclusion(before, { broadcastAt: 10, includedAt: 1_010 })
    expect(before.observations).toEqual([])
    expect(after.observations).toEqual([{ at: 1_010, durationMs: 1_000 }])
  })

  it('ignores a receipt timed before its broadcast (the clock stepped back)', () => {
    const state = createInclusionTimes({ defaultMs: 4_000 })
    expect(observeInclusion(state, { broadcastAt: 2_000, includedAt: 1_000 })).toBe(state)
  })

  it('refuses settings and times that make no sense', () => {
    expect(() => createInclusionTimes({ defaultMs: -1 })).toThrow(/defaultMs -1/)
    expect(() => createInclusionTimes({ defaultMs: Number.NaN })).toThrow(/defaultMs/)
    expect(() => createInclusionTimes({ defaultMs: 1, window: 0 })).toThrow(/window 0/)
    expect(() => createInclusionTimes({ defaultMs: 1, window: 2.5 })).toThrow(/window 2.5/)
    expect(() => createInclusionTimes({ defaultMs: 1, percentile: 0 })).toThrow(/percentile 0/)
    expect(() => createInclusionTimes({ defaultMs: 1, percentile: 1.1 })).toThrow(/percentile 1.1/)
    expect(() => createInclusionTimes({ defaultMs: 1, maxAgeMs: 0 })).toThrow(/maxAgeMs 0/)
    const state = createInclusionTimes({ defaultMs: 1 })
    expect(() => observeInclusion(state, { broadcastAt: Number.NaN, includedAt: 1 })).toThrow(/finite/)
    expect(() => minimumValidityMs(state, 0, -5)).toThrow(/marginMs -5/)
  })

  it('property: the estimate is one of the latest observations, at least as many are at or below it as the percentile says', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (durations, window, percentile) => {
          const state = observed(createInclusionTimes({ defaultMs: 123_456, window, percentile }), durations)
          const latest = durations.slice(-window)
          const estimate = estimateInclusionTime(state, 10_000_000)
          expect(latest).toContain(estimate)
          const atOrBelow = latest.filter((duration) => duration <= estimate).length
          expect(atOrBelow).toBeGreaterThanOrEqual(Math.ceil(percentile * latest.length))
          const below = latest.filter((duration) => duration < estimate).length
          expect(below).toBeLessThan(Math.ceil(percentile * latest.length))
        },
      ),
    )
  })
})
