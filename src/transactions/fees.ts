import { type PublicClient, parseTransaction, type TransactionSerializedEIP1559 } from 'viem'
import { estimateFeesPerGas, estimateMaxPriorityFeePerGas } from 'viem/actions'

/** EIP-1559 fees of one transaction, wei. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** The chain's fees, read at most once per block. */
export type FeeSource = {
  /** The current fees, capped at the chain's maximum. */
  current(signal?: AbortSignal): Promise<Fees>
  /** A new block arrived: its base fee, when known, prices the next transactions without a read. */
  newBlock(block?: { baseFeePerGas: bigint | null }): void
}

/** How long a read priority fee is used before it is read again, ms. */
const priorityMaxAgeMs = 5_000
/** From this age on, a new block reads the priority fee again in the background. */
const priorityRefreshAgeMs = 4_000

/**
 * Fees of a chain, never above `maxFeePerGas`. The base fee comes from the block watcher's blocks
 * (read once per block anyway), so a transaction costs no fee read; the priority fee
 * (`eth_maxPriorityFeePerGas`) is read again every few seconds, in the background, started by the
 * first block after it is 4 s old, so that no execution waits for it between its quote and its
 * signature (one in a couple of hundred did, one at a time). A send waits for a read only when
 * there is no fee younger than 5 s at all: before the first block, after a long quiet spell, or on
 * a chain without a base fee (`estimateFeesPerGas` once per block). Same formula as viem's
 * estimate: base fee × 1.2 plus the priority fee.
 *
 * @example
 * const fees = createFeeSource(publicClient, 500_000_000_000n)
 * fees.newBlock(block) // from the block watcher
 * const { maxFeePerGas } = await fees.current()
 */
export function createFeeSource(
  client: PublicClient,
  maxFeePerGas: bigint,
  now: () => number = Date.now,
): FeeSource {
  let cached: Promise<Fees> | undefined
  let baseFee: bigint | undefined
  let priority: { value: bigint; atMs: number } | undefined
  let refreshing: Promise<bigint> | undefined
  const readPriority = () => {
    refreshing ??= estimateMaxPriorityFeePerGas(client).then(
      (value) => {
        priority = { value, atMs: now() }
        refreshing = undefined
        return value
      },
      (error: unknown) => {
        refreshing = undefined
        throw error
      },
    )
    return refreshing
  }
  const read = async (): Promise<Fees> => {
    if (baseFee === undefined) {
      const fees = await estimateFeesPerGas(client)
      priority = { value: fees.maxPriorityFeePerGas, atMs: now() }
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    }
    const fresh = priority && now() - priority.atMs <= priorityMaxAgeMs ? priority.value : undefined
    const value = fresh ?? (await readPriority())
    return { maxFeePerGas: (baseFee * 12n) / 10n + value, maxPriorityFeePerGas: value }
  }
  return {
    current() {
      cached ??= read().then(
        (fees) => capFees(fees, maxFeePerGas),
        (error: unknown) => {
          cached = undefined
          throw error
        },
      )
      return cached
    },
    newBlock(block) {
      cached = undefined
      baseFee = block?.baseFeePerGas ?? undefined
      // Read ahead of need: a failure here is only a read the next send makes itself.
      if (baseFee !== undefined && priority && now() - priority.atMs >= priorityRefreshAgeMs)
        readPriority().catch(() => undefined)
    },
  }
}

/** The fees a signed transaction offers. */
export function feesOf(raw: `0x${string}`): Fees {
  const parsed = parseTransaction(raw as TransactionSerializedEIP1559)
  return { maxFeePerGas: parsed.maxFeePerGas ?? 0n, maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n }
}

/**
 * The fees of a replacement for a transaction offering `old`: at least `bumpBps` more on both fees
 * (nodes refuse a replacement below +10%), at least the market's, never above `cap`. Undefined when
 * the cap leaves no room for a valid replacement: then the operator must raise the cap.
 *
 * @example
 * replacementFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, market, 1_250, 10_000n)
 * // { maxFeePerGas: 113n, maxPriorityFeePerGas: 12n } when the market is lower
 */
export function replacementFees(old: Fees, market: Fees, bumpBps: number, cap: bigint): Fees | undefined {
  const bump = (value: bigint) => value + (value * BigInt(bumpBps) + 9_999n) / 10_000n + 1n
  const priority = max(market.maxPriorityFeePerGas, bump(old.maxPriorityFeePerGas))
  const fee = max(max(market.maxFeePerGas, bump(old.maxFeePerGas)), priority)
  if (fee > cap) return undefined
  return { maxFeePerGas: fee, maxPriorityFeePerGas: priority }
}

function capFees(fees: Fees, cap: bigint): Fees {
  const maxFee = min(fees.maxFeePerGas, cap)
  return { maxFeePerGas: maxFee, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFee) }
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
