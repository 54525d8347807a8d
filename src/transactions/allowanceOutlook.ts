import { type Address, decodeFunctionData, erc20Abi, isAddressEqual, parseTransaction } from 'viem'
import { executorAbi } from '../chain/executorAbi.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'

/**
 * What an allowance of the wallet will be when its next transaction lands, given its own
 * transactions that are not final yet. An approval plan must hold whatever becomes of those
 * (cancelled, dropped, replaced, reorged out, or a cancel that loses the race to its execute), so
 * it plans from `atLeast` and `dependsOn`, never from `expected`.
 */
export type AllowanceOutlook = {
  /** If each not-final nonce lands as its newest version says: an estimate, for previews and revokes. */
  expected: bigint
  /**
   * The least it can be whatever becomes of our transactions not final yet: at each such nonce any
   * of its versions may land, or none. An execute may count on this much without an approval.
   */
  atLeast: bigint
  /**
   * The nonces of our not-final transactions that touch this allowance (any version, mined ones
   * included). Empty: the allowance read on chain is the one the next transaction finds.
   */
  dependsOn: number[]
}

/** What one of our transactions does to an allowance. */
type AllowanceEffect = { token: Address; spender: Address } & (
  | { kind: 'set'; amount: bigint }
  | { kind: 'spend'; amount: bigint }
)

/**
 * {@link allowanceOutlook} of a wallet from its ledger: final is `confirmations` blocks under the
 * head, and a transaction mined after the reading's block is not in the reading, so it counts as not
 * final whatever its depth. Before the watcher's first block, the ledger's settlement checkpoint
 * stands in for the head.
 *
 * @example
 * const outlook = walletAllowanceOutlook(basics, blocks.head()?.number, { token, spender, onChain, readAtBlock })
 */
export function walletAllowanceOutlook(
  wallet: { ledger: Ledger; chainId: number; address: Address; settings: { confirmations: number } },
  head: bigint | undefined,
  reading: Parameters<typeof allowanceOutlook>[1],
): AllowanceOutlook {
  const { ledger, chainId, address, settings } = wallet
  const headOrCheckpoint = head ?? ledger.checkpoints.getCheckpoint(chainId)
  const finalBelowHead =
    headOrCheckpoint === undefined ? -1n : headOrCheckpoint - BigInt(settings.confirmations)
  const { readAtBlock } = reading
  const finalBlock = readAtBlock !== undefined && readAtBlock < finalBelowHead ? readAtBlock : finalBelowHead
  return allowanceOutlook(ledger.transactions.listTransactionsNotFinal(chainId, address, finalBlock), reading)
}

/**
 * The outlook of `token`'s allowance to `spender`, from the one read on chain at `readAtBlock` and
 * the wallet's transactions at nonces not final yet (`listTransactionsNotFinal`, all versions).
 * A nonce mined at or below `readAtBlock` is in the reading already (for `expected` and
 * `atLeast`); it still counts in `dependsOn`, since a reorg may undo it. Read from the stored raw
 * transactions, so it holds across restarts.
 *
 * @example
 * const outlook = allowanceOutlook(ledger.transactions.listTransactionsNotFinal(31337, owner, head - 2n), {
 *   token: usdc, spender: router, onChain: await readAllowance(...), readAtBlock: head,
 * })
 * const needsApproval = outlook.atLeast < needed
 */
export function allowanceOutlook(
  notFinal: readonly TransactionRecord[],
  parameters: { token: Address; spender: Address; onChain: bigint; readAtBlock?: bigint | undefined },
): AllowanceOutlook {
  const { token, spender, onChain, readAtBlock } = parameters
  const touches = (effect: AllowanceEffect | undefined): effect is AllowanceEffect =>
    effect !== undefined && isAddressEqual(effect.token, token) && isAddressEqual(effect.spender, spender)
  let expected = onChain
  let atLeast = onChain
  const dependsOn: number[] = []
  for (const versions of byNonce(notFinal)) {
    const effects = versions.map((tx) => effectOf(tx))
    if (!effects.some(touches)) continue
    dependsOn.push((versions[0] as TransactionRecord).nonce)
    const inReading = versions.some(
      (tx) => tx.status === 'mined' && (readAtBlock === undefined || (tx.blockNumber ?? 0n) <= readAtBlock),
    )
    if (inReading) continue
    const landing = versions.find((tx) => tx.status === 'mined') ?? versions.at(-1)
    const landingEffect = effects[versions.indexOf(landing as TransactionRecord)]
    if (touches(landingEffect) && landing?.receiptStatus !== 'reverted')
      expected = apply(landingEffect, expected)
    // Each version may land, or none (refused, cancelled, a revert): the least of all outcomes.
    atLeast = effects.reduce(
      (least, effect) => (touches(effect) ? min(least, apply(effect, atLeast)) : least),
      atLeast,
    )
  }
  return { expected, atLeast, dependsOn }
}

function apply(effect: AllowanceEffect, allowance: bigint): bigint {
  if (effect.kind === 'set') return effect.amount
  return allowance > effect.amount ? allowance - effect.amount : 0n
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** The transactions grouped by nonce, in nonce order, oldest version first. */
function byNonce(transactions: readonly TransactionRecord[]): TransactionRecord[][] {
  const slots = new Map<number, TransactionRecord[]>()
  for (const tx of transactions) {
    const slot = slots.get(tx.nonce)
    if (slot) slot.push(tx)
    else slots.set(tx.nonce, [tx])
  }
  return [...slots.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot.sort((a, b) => a.id - b.id))
}

/**
 * Each transaction's effect, parsed once: a busy wallet asks for its allowance at every execution,
 * over every transaction not final yet. Bounded; the oldest entries go first.
 */
const parsedEffects = new Map<string, AllowanceEffect | undefined>()
const parsedEffectsLimit = 4_096

function effectOf(tx: TransactionRecord): AllowanceEffect | undefined {
  if (tx.kind !== 'approve' && tx.kind !== 'execute') return undefined
  const key = `${tx.chainId}:${tx.hash}`
  if (parsedEffects.has(key)) return parsedEffects.get(key)
  const effect = parseEffect(tx)
  parsedEffects.set(key, effect)
  if (parsedEffects.size > parsedEffectsLimit) {
    const oldest = parsedEffects.keys().next().value
    if (oldest !== undefined) parsedEffects.delete(oldest)
  }
  return effect
}

function parseEffect(tx: TransactionRecord): AllowanceEffect | undefined {
  const parsed = parseTransaction(tx.raw)
  if (!parsed.to || !parsed.data) return undefined
  try {
    if (tx.kind === 'approve') {
      const call = decodeFunctionData({ abi: erc20Abi, data: parsed.data })
      if (call.functionName !== 'approve') return undefined
      const [spender, amount] = call.args
      return { kind: 'set', token: parsed.to, spender, amount }
    }
    const call = decodeFunctionData({ abi: executorAbi, data: parsed.data })
    if (call.functionName !== 'execute') return undefined
    const [quote] = call.args as unknown as [
      { isBuy: boolean; stockToken: Address; assetToken: Address; amountIn: bigint },
    ]
    return {
      kind: 'spend',
      token: quote.isBuy ? quote.assetToken : quote.stockToken,
      spender: parsed.to,
      amount: quote.amountIn,
    }
  } catch {
    return undefined
  }
}
