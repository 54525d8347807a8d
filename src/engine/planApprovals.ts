import { divideRounded } from '@stockroute/client/domain/unitConversions.js'
import { type Address, type Client, maxUint256 } from 'viem'
import {
  type ApproveRequest,
  buildApproveRequest,
  needsZeroAllowanceFirst,
  readAllowance,
} from '../chain/erc20.js'
import type { ResetFirstTokens } from '../chain/resetFirstTokens.js'
import type { ChainCallOptions } from '../chain/rpcCall.js'
import type { AllowanceOutlook } from '../transactions/allowanceOutlook.js'
import type { ApprovalPolicy } from './settings.js'

export type PlanApprovalsParameters = {
  /** The token the taker gives: the asset on a buy, the stock token on a sell. */
  token: Address
  owner: Address
  /** The pinned executor (the guard has checked every approval names an allow-listed spender). */
  spender: Address
  /** What the quote needs: its amount_in_used. */
  needed: bigint
  policy: ApprovalPolicy
  /**
   * The allowance's outlook given the wallet's transactions not final yet, from the one on chain
   * (the transaction manager's `allowanceOutlook`): overlapping executions of one token must not
   * count the same allowance twice, nor on how an unresolved transaction ends. Default: the
   * on-chain allowance, with nothing of ours pending.
   */
  outlook?: ((onChain: bigint) => AllowanceOutlook) | undefined
  /** Tells whether a token refuses to change a non-zero allowance, while the allowance is zero. */
  resetFirstTokens?: ResetFirstTokens | undefined
}

/** What the chain says about an allowance, read before the wallet's critical section. */
export type AllowanceReading = {
  token: Address
  spender: Address
  needed: bigint
  /** The allowance the policy asks for when an approval is sent. */
  target: bigint
  /** The allowance on chain when read. */
  onChain: bigint
  /** The block `onChain` was read at, when known: our transactions mined after it still count. */
  atBlock?: bigint | undefined
  /**
   * The token refuses to change a non-zero allowance (USDT-like): `approve(spender, 0)` goes first
   * whenever the allowance may not be zero. `undefined`: it could not be told (treated as refusing).
   */
  resetFirst: boolean | undefined
}

export type ApprovalPlan = {
  /** The least allowance the approvals meet: the one on chain, less what our not-final transactions may spend. */
  currentAllowance: bigint
  /** The allowance on chain now. */
  onChainAllowance: bigint
  /** The allowance the approvals set (the policy's amount), or the current one when nothing is sent. */
  target: bigint
  /** In order: a reset to zero first for tokens that refuse a non-zero change, then the approval. Empty when the allowance suffices. */
  approvals: ApproveRequest[]
  /** Our not-final transactions' nonces that touch this allowance: the plan holds whichever way they end. */
  dependsOn: number[]
}

/**
 * Reads what planning the approvals needs from the chain: the allowance (unless `onChain` was read
 * already, e.g. beside the quote) and whether the token refuses to change a non-zero allowance:
 * when the allowance is non-zero and differs from the policy's target, an `approve` simulated from
 * the owner; otherwise the token's answer from `resetFirstTokens` (asked once per token).
 *
 * @example
 * const reading = await readAllowanceState(publicClient, { token: usdc, owner, spender: router, needed: 1_000_000n, policy: { kind: 'exact' } })
 */
export async function readAllowanceState(
  client: Client,
  parameters: Omit<PlanApprovalsParameters, 'outlook'> & {
    onChain?: bigint | undefined
    atBlock?: bigint | undefined
  },
  options: ChainCallOptions = {},
): Promise<AllowanceReading> {
  const { token, owner, spender, needed, policy } = parameters
  const target = approvalTarget(needed, policy)
  const onChain = parameters.onChain ?? (await readAllowance(client, { token, owner, spender }, options))
  const change = await needsZeroAllowanceFirst(
    client,
    { token, owner, spender, amount: target, currentAllowance: onChain },
    options,
  )
  const resetFirst =
    change.reason === 'approve-reverts' || change.reason === 'approve-succeeds'
      ? change.needed
      : await parameters.resetFirstTokens?.isResetFirst(token, owner, spender, options)
  return { token, spender, needed, target, onChain, atBlock: parameters.atBlock, resetFirst }
}

/**
 * The approvals an execute needs, from a reading and the allowance's outlook behind the wallet's
 * transactions not final yet. It never counts on how one of those ends (cancelled, dropped,
 * replaced, reorged out, or a cancel that loses the race to its execute):
 * - none when the least the allowance can be covers what the quote needs;
 * - else `approve(spender, target)`, which sets the allowance whatever it was, preceded by
 *   `approve(spender, 0)` for a token that refuses a non-zero change (or may: `resetFirst`
 *   unknown) unless the allowance is known to be zero: nothing of ours touching it is pending and
 *   the chain reads zero. A reset to zero never reverts, so the pair holds whatever came before.
 * Pure: the engine calls it inside the wallet's critical section, where no other send changes the
 * pending ones.
 *
 * @example
 * const plan = planFromReading(reading, manager.allowanceOutlook(reading.token, reading.spender, reading.onChain, reading.atBlock))
 */
export function planFromReading(reading: AllowanceReading, outlook: AllowanceOutlook): ApprovalPlan {
  const { token, spender, needed, target, onChain } = reading
  const { atLeast, dependsOn } = outlook
  if (atLeast >= needed)
    return { currentAllowance: atLeast, onChainAllowance: onChain, target: atLeast, approvals: [], dependsOn }
  const approvals = [buildApproveRequest({ token, spender, amount: target })]
  const knownZero = dependsOn.length === 0 && onChain === 0n
  if (reading.resetFirst !== false && !knownZero)
    approvals.unshift(buildApproveRequest({ token, spender, amount: 0n }))
  return { currentAllowance: atLeast, onChainAllowance: onChain, target, approvals, dependsOn }
}

/** The outlook of an allowance with nothing of ours pending: the chain's reading is the allowance. */
export function settledOutlook(onChain: bigint): AllowanceOutlook {
  return { expected: onChain, atLeast: onChain, dependsOn: [] }
}

/**
 * The approvals to send before an execute, read and planned at once (a preview's view; the engine
 * reads before its critical section and plans inside it).
 *
 * @example
 * const plan = await planApprovals(publicClient, { token: usdc, owner, spender: router, needed: 1_000_000n, policy: { kind: 'exact' } })
 * plan.approvals.map((a) => a.amount) // [1000000n], or [0n, 1000000n] for USDT-like tokens with a stale allowance
 */
export async function planApprovals(
  client: Client,
  parameters: PlanApprovalsParameters,
  options: ChainCallOptions = {},
): Promise<ApprovalPlan> {
  const reading = await readAllowanceState(client, parameters, options)
  return planFromReading(reading, parameters.outlook?.(reading.onChain) ?? settledOutlook(reading.onChain))
}

/**
 * The allowance a policy asks for when `needed` is to be spent.
 *
 * @example
 * approvalTarget(1_000_000n, { kind: 'buffered', bufferBps: 1_000 }) // 1100000n
 */
export function approvalTarget(needed: bigint, policy: ApprovalPolicy): bigint {
  switch (policy.kind) {
    case 'exact':
      return needed
    case 'buffered':
      return needed + divideRounded(needed * BigInt(policy.bufferBps), 10_000n, 'up')
    case 'unlimited':
      return maxUint256
  }
}
