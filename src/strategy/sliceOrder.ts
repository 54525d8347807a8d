import { type ShareQuantity, type StockQuantity, shareDecimals } from '@stockroute/client/domain/units.js'

// The arithmetic of a sliced order (TWAP): how many shares each slice trades and when. Pure and
// exact (bigint quantities, integer milliseconds), so that every evaluation, before and after a
// restart, computes the same slices at the same times.

const shareScale = 10n ** BigInt(shareDecimals)

/** One slice of an order: its 1-based index among the configured slices, and its whole shares. */
export type OrderSlice = {
  readonly index: number
  /** Whole shares (StockToken base units), a positive multiple of the lot. */
  readonly shares: StockQuantity
}

/** An order cut into slices the market accepts, and what is left that is not a whole lot. */
export type SlicedOrder = {
  /** Slices with at least one lot, ascending by index; a slice that got no lot is absent. */
  readonly slices: readonly OrderSlice[]
  /** The shares that are not whole lots, in ShareToken base units (1e18 per share); may be zero. */
  readonly remainder: ShareQuantity
}

/**
 * Cuts `quantity` (in ShareToken base units: 1e18 per share, so that a fractional order can be
 * expressed) into `slices` slices of whole lots of `lotSize` shares. The whole lots of the order
 * are spread as evenly as they go: slice `i` (1-based) gets `floor(i·L/n) − floor((i−1)·L/n)` lots
 * of the `L` lots, so sizes differ by at most one lot and the larger ones are spread out. A slice
 * that gets no lot (fewer lots than slices) is left out. What does not make a whole lot (the odd
 * shares and any fraction of a share) is the remainder. The slices and the remainder sum exactly
 * to `quantity`.
 *
 * Throws a `RangeError` for a negative quantity, a lot size below 1, or a slice count that is not
 * a whole number from 1.
 *
 * @example
 * sliceOrder({ quantity: toShareQuantity(1050n * 10n ** 18n), slices: 10, lotSize: 100n })
 * // { slices: [{ index: 1, shares: 100n }, …, { index: 10, shares: 100n }], remainder: 50n * 10n ** 18n }
 */
export function sliceOrder(parameters: {
  quantity: ShareQuantity
  slices: number
  lotSize: bigint
}): SlicedOrder {
  const { quantity, slices, lotSize } = parameters
  if (quantity < 0n) throw new RangeError(`quantity ${quantity} is negative`)
  if (lotSize < 1n) throw new RangeError(`lot size ${lotSize} is below 1`)
  if (!Number.isSafeInteger(slices) || slices < 1)
    throw new RangeError(`slice count ${slices} is not a whole number from 1`)
  const lots = quantity / shareScale / lotSize
  const count = BigInt(slices)
  const result: OrderSlice[] = []
  for (let index = 1; index <= slices; index += 1) {
    const i = BigInt(index)
    const lotsOfSlice = (i * lots) / count - ((i - 1n) * lots) / count
    if (lotsOfSlice > 0n) result.push({ index, shares: (lotsOfSlice * lotSize) as StockQuantity })
  }
  const sliced = lots * lotSize * shareScale
  return { slices: result, remainder: (quantity - sliced) as ShareQuantity }
}

/**
 * The time of each of `slices` slices in the window `[startMs, startMs + durationMs)`, epoch ms,
 * ascending: the window is cut into `slices` equal parts (to the millisecond) and slice `i` trades
 * at the start of part `i`, moved later by a pseudo-random share of up to `jitterPct` percent of the
 * part. The share is derived from `strategyId` and the slice's index alone ({@link jitterFraction}),
 * so a restart computes the same times; with `jitterPct` at most 50 a slice stays in the first half
 * of its part, so the times are strictly increasing and inside the window.
 *
 * Throws a `RangeError` when the window is shorter than one millisecond per slice, or `jitterPct`
 * is not from 0 to 50.
 *
 * @example
 * sliceTimes({ strategyId: 'twap-0700', startMs: 0, durationMs: 600_000, slices: 10, jitterPct: 0 })
 * // [0, 60000, 120000, …, 540000]
 */
export function sliceTimes(parameters: {
  strategyId: string
  startMs: number
  durationMs: number
  slices: number
  jitterPct: number
}): number[] {
  const { strategyId, startMs, durationMs, slices, jitterPct } = parameters
  if (!Number.isSafeInteger(slices) || slices < 1)
    throw new RangeError(`slice count ${slices} is not a whole number from 1`)
  if (!Number.isSafeInteger(startMs) || !Number.isSafeInteger(durationMs) || durationMs < slices)
    throw new RangeError(
      `a window of ${durationMs} ms cannot hold ${slices} slices: give each slice at least 1 ms`,
    )
  if (!Number.isFinite(jitterPct) || jitterPct < 0 || jitterPct > 50)
    throw new RangeError(`jitter ${jitterPct}% is not from 0 to 50`)
  const boundary = (part: number) => startMs + Math.floor((part * durationMs) / slices)
  const times: number[] = []
  for (let index = 1; index <= slices; index += 1) {
    const from = boundary(index - 1)
    const length = boundary(index) - from
    const reach = Math.floor((length * jitterPct) / 100)
    times.push(from + Math.floor(jitterFraction(strategyId, index) * reach))
  }
  return times
}

/**
 * A number in `[0, 1)` that depends only on `strategyId` and `index`: FNV-1a over the UTF-16 code
 * units of `${strategyId}:slice:${index}`, mixed by MurmurHash3's 32-bit finaliser, over 2^32.
 *
 * @example
 * jitterFraction('twap-0700', 3) === jitterFraction('twap-0700', 3) // true
 */
export function jitterFraction(strategyId: string, index: number): number {
  const text = `${strategyId}:slice:${index}`
  let hash = 0x811c9dc5
  for (let position = 0; position < text.length; position += 1) {
    hash ^= text.charCodeAt(position)
    hash = Math.imul(hash, 0x01000193)
  }
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return (hash >>> 0) / 2 ** 32
}
