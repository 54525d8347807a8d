import { type Address, type Client, maxUint256 } from 'viem'
import {
  type ApproveRequest,
  buildApproveRequest,
  needsZeroAllowanceFirst,
  readAllowance,
} from '../chain/erc20.js'
import type { ChainCallOptions } from '../chain/rpcCall.js'
import { divideRounded } from '../domain/unitConversions.js'
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
   * The allowance once the wallet's pending transactions are mined, from the one on chain (the
   * transaction manager's `allowanceAfterPending`): overlapping executions of one token must not
   * count the same allowance twice. Default: the on-chain allowance as it is.
   */
  afterPending?: ((onChain: bigint) => bigint) | undefined
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
  /** The token refuses to change a non-zero allowance (USDT-like): `approve(spender, 0)` goes first. */
  zeroFirst: boolean
}

export type ApprovalPlan = {
  /** The allowance the execute will find: the one on chain after our pending transactions. */
  currentAllowance: bigint
  /** The allowance on chain now. */
  onChainAllowance: bigint
  /** The allowance the approvals set (the policy's amount), or the current one when nothing is sent. */
  target: bigint
  /** In order: a reset to zero first for tokens that refuse a non-zero change, then the approval. Empty when the allowance suffices. */
  approvals: ApproveRequest[]
}

/**
 * Reads what planning the approvals needs from the chain: the allowance (unless `onChain` was read
 * already, e.g. beside the quote) and, when it is non-zero and differs from the policy's target,
 * whether the token refuses the change (an `approve` simulated from the owner).
 *
 * @example
 * const reading = await readAllowanceState(publicClient, { token: usdc, owner, spender: router, needed: 1_000_000n, policy: { kind: 'exact' } })
 */
export async function readAllowanceState(
  client: Client,
  parameters: Omit<PlanApprovalsParameters, 'afterPending'> & {
    onChain?: bigint | undefined
    atBlock?: bigint | undefined
  },
  options: ChainCallOptions = {},
): Promise<AllowanceReading> {
  const { token, owner, spender, needed, policy } = parameters
  const target = approvalTarget(needed, policy)
  const onChain = parameters.onChain ?? (await readAllowance(client, { token, owner, spender }, options))
  const zeroFirst = await needsZeroAllowanceFirst(
    client,
    { token, owner, spender, amount: target, currentAllowance: onChain },
    options,
  )
  return { token, spender, needed, target, onChain, atBlock: parameters.atBlock, zeroFirst: zeroFirst.needed }
}

/**
 * The approvals an execute needs, from a reading and the allowance after the wallet's pending
 * transactions: none when that covers what the quote needs; else `approve(spender, target)`,
 * preceded by `approve(spender, 0)` for tokens that refuse a non-zero change. Pure: the engine
 * calls it inside the wallet's critical section, where no other send changes the pending ones.
 *
 * @example
 * const plan = planFromReading(reading, manager.allowanceAfterPending(reading.token, reading.spender, reading.onChain))
 */
export function planFromReading(reading: AllowanceReading, afterPending: bigint): ApprovalPlan {
  const { token, spender, needed, target, onChain } = reading
  if (afterPending >= needed)
    return { currentAllowance: afterPending, onChainAllowance: onChain, target: afterPending, approvals: [] }
  const approvals = [buildApproveRequest({ token, spender, amount: target })]
  if (reading.zeroFirst && afterPending !== 0n)
    approvals.unshift(buildApproveRequest({ token, spender, amount: 0n }))
  return { currentAllowance: afterPending, onChainAllowance: onChain, target, approvals }
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
  return planFromReading(reading, parameters.afterPending?.(reading.onChain) ?? reading.onChain)
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
