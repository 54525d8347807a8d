// Deterministic randomness for the generated ledger: the same seed gives the same file.

/** mulberry32: a fast 32-bit PRNG; returns uint32 values. */
export function createRandom(seed: number) {
  let state = seed >>> 0
  const next32 = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
  const next = () => next32() / 4294967296
  // Hex strings through a buffer of random words and Buffer's native hex encoding: building them
  // digit by digit in JS took a sixth of the generator's time.
  const pool = Buffer.alloc(64 * 1024)
  let poolAt = pool.length
  const hex = (bytes: number) => {
    if (poolAt + bytes > pool.length) {
      for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE(next32(), i)
      poolAt = 0
    }
    poolAt += bytes
    return `0x${pool.toString('hex', poolAt - bytes, poolAt)}`
  }
  return {
    next32,
    /** [0, 1) */
    next,
    /** Integer in [min, max]. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    /** Log-normal around `median` (sigma in natural log units). */
    logNormal: (median: number, sigma: number) => {
      const u = Math.max(next(), 1e-12)
      const v = next()
      return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v))
    },
    /** Exponential with the given mean. */
    exponential: (mean: number) => -mean * Math.log(1 - next()),
    /** A lowercase 0x hex string of `bytes` bytes (at most 64 KiB). */
    hex,
    /** Picks an index by cumulative weights (sorted ascending, last = total). */
    pick: (cumulative: Float64Array) => {
      const x = next() * (cumulative[cumulative.length - 1] as number)
      let lo = 0
      let hi = cumulative.length - 1
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if ((cumulative[mid] as number) > x) hi = mid
        else lo = mid + 1
      }
      return lo
    },
  }
}
export type Random = ReturnType<typeof createRandom>

/** A 32-byte lowercase hex value derived from two integers (block hashes): no state, no memory. */
const hashBuffer = Buffer.alloc(32)
export function hashOf(a: number, b: number): string {
  let x = (Math.imul(a, 0x9e3779b1) ^ b) >>> 0
  let y = (b * 2654435761) >>> 0
  for (let i = 0; i < 8; i++) {
    x = (x + 0x6d2b79f5 + y) >>> 0
    let t = x
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    y = (t ^ (t >>> 14)) >>> 0
    hashBuffer.writeUInt32BE(y, i * 4)
  }
  return `0x${hashBuffer.toString('hex')}`
}
