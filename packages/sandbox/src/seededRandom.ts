/**
 * A small seeded PRNG (mulberry32): uniform numbers in [0, 1), the same sequence for the same seed.
 * For fault injection and soak tests, where a run must be reproducible; never for keys.
 *
 * @example
 * const random = seededRandom(7)
 * random() // 0.0117…, and the same first value for every seededRandom(7)
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
