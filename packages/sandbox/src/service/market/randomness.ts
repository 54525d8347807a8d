import { createHash } from 'node:crypto'

/**
 * Eight unsigned 32-bit words derived from `parts` by SHA-256: the simulator's only source of
 * randomness, so the same parts (seed, ticker, day, step index, purpose) always give the same words
 * and any step can be drawn without drawing the ones before it.
 *
 * @example
 * hashWords(['bar', 'stockroute-sandbox', 'AAPL', 0, 20000, 17]) // 8 numbers in [0, 2^32)
 */
export function hashWords(parts: readonly (string | number)[]): readonly number[] {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest()
  const words: number[] = []
  for (let offset = 0; offset < digest.length; offset += 4) words.push(digest.readUInt32BE(offset))
  return words
}

/**
 * A random-access stream of 32-bit words keyed by SHA-256 of `parts`: `word(index, lane)` mixes
 * the key with the step index and a lane (which draw of that step) through a 32-bit finalizer, so a
 * day's 1,440 bar steps cost one SHA-256, not 1,440, and any step is drawn without the others.
 *
 * @example
 * const bars = hashStream(['bar', seed, 'AAPL', 'usex', day])
 * bars(17, 0) // the first draw of bar 17
 */
export function hashStream(parts: readonly (string | number)[]): (index: number, lane: number) => number {
  const [a = 0, b = 0, c = 0, d = 0] = hashWords(parts)
  return (index, lane) => {
    const mixed = finalize32(a ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(lane + 1, 0x85ebca77))
    return finalize32((mixed ^ b) + Math.imul(c, index + 1) + d)
  }
}

/** murmur3's 32-bit finalizer: an avalanche of every input bit into every output bit. */
function finalize32(value: number): number {
  let h = value >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

const wordRange = 2n ** 32n

/**
 * `amplitude * r` for `r` uniform in [-1, 1) taken from one 32-bit word, rounded toward zero.
 *
 * @example
 * symmetricDraw(0x8000_0000, 100n) // 0n
 * symmetricDraw(0, 100n) // -100n
 */
export function symmetricDraw(word: number, amplitude: bigint): bigint {
  return ((2n * BigInt(word) - wordRange) * amplitude) / wordRange
}

/**
 * `amplitude * r` for `r` uniform in [0, 1) taken from one 32-bit word, rounded down.
 *
 * @example
 * unitDraw(0x8000_0000, 100n) // 50n
 */
export function unitDraw(word: number, amplitude: bigint): bigint {
  return (BigInt(word) * amplitude) / wordRange
}
