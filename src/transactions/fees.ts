import { type PublicClient, parseTransaction, type TransactionSerializedEIP1559 } from 'viem'
import { estimateFeesPerGas } from 'viem/actions'

/** EIP-1559 fees of one transaction, wei. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** The chain's fees, read at most once per block. */
export type FeeSource = {
  /** The current fees, capped at the chain's maximum. */
  current(signal?: AbortSignal): Promise<Fees>
  /** Forget the cached fees: a new block arrived. */
  newBlock(): void
}

/**
 * Fees of a chain read once per block (`estimateFeesPerGas`), so a burst of transactions in one
 * block costs one read; never above `maxFeePerGas`.
 *
 * @example
 * const fees = createFeeSource(publicClient, 500_000_000_000n)
 * const { maxFeePerGas } = await fees.current()
 */
export function createFeeSource(client: PublicClient, maxFeePerGas: bigint): FeeSource {
  let cached: Promise<Fees> | undefined
  return {
    current() {
      cached ??= estimateFeesPerGas(client).then(
        (fees) =>
          capFees(
            { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas },
            maxFeePerGas,
          ),
        (error: unknown) => {
          cached = undefined
          throw error
        },
      )
      return cached
    },
    newBlock() {
      cached = undefined
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
