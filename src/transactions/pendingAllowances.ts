import { type Address, decodeFunctionData, erc20Abi, isAddressEqual, parseTransaction } from 'viem'
import { executorAbi } from '../chain/executorAbi.js'
import type { TransactionRecord } from '../store/transactions.js'

/** What one of our pending transactions does to an allowance. */
type AllowanceEffect = { token: Address; spender: Address; nonce: number } & (
  | { kind: 'set'; amount: bigint }
  | { kind: 'spend'; amount: bigint }
)

/**
 * The allowance `token` will give `spender` once our pending transactions are mined, from the one
 * on chain now: the last pending approval sets it, and every pending execute after it spends from
 * it. Read from the stored raw transactions, so it holds across restarts. Two overlapping
 * executions of one token therefore never count the same allowance twice (the second approves
 * what it needs instead of reverting). Conservative: an execute mined between the chain read and
 * this call is counted once more, which can only add an approval.
 *
 * @example
 * const effective = allowanceAfterPending(ledger.transactions.listUnresolvedTransactions(chainId, owner), {
 *   token: usdc, spender: router, onChain: await readAllowance(...),
 * })
 */
export function allowanceAfterPending(
  pending: readonly TransactionRecord[],
  parameters: { token: Address; spender: Address; onChain: bigint },
): bigint {
  const effects = newestPerNonce(pending)
    .map(effectOf)
    .filter(
      (effect): effect is AllowanceEffect =>
        effect !== undefined &&
        isAddressEqual(effect.token, parameters.token) &&
        isAddressEqual(effect.spender, parameters.spender),
    )
    .sort((a, b) => a.nonce - b.nonce)
  let allowance = parameters.onChain
  for (const effect of effects) {
    if (effect.kind === 'set') allowance = effect.amount
    else allowance = allowance > effect.amount ? allowance - effect.amount : 0n
  }
  return allowance
}

/** Per nonce, the transaction that will land if any does: the newest replacement. */
function newestPerNonce(pending: readonly TransactionRecord[]): TransactionRecord[] {
  const newest = new Map<number, TransactionRecord>()
  for (const tx of pending) {
    const seen = newest.get(tx.nonce)
    if (!seen || tx.id > seen.id) newest.set(tx.nonce, tx)
  }
  return [...newest.values()]
}

/**
 * Each transaction's effect, parsed once: a busy wallet asks for its allowance at every execution,
 * over every transaction still pending. Bounded; the oldest entries go first.
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
      return { kind: 'set', token: parsed.to, spender, amount, nonce: tx.nonce }
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
      nonce: tx.nonce,
    }
  } catch {
    return undefined
  }
}
