import { type Address, type Client, maxUint256 } from 'viem'
import { type ApproveRequest, buildApproveRequest, needsZeroAllowanceFirst } from '../chain/erc20.js'
import { divideRounded } from '../domain/units.js'
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
 * The approvals to send before an execute: none when the allowance already covers what the quote
 * needs; else `approve(spender, target)` with `target` set by the policy (exact by default), preceded
 * by `approve(spender, 0)` when the token refuses to change a non-zero allowance (USDT-like,
 * detected by simulation).
 *
 * @example
 * const plan = await planApprovals(publicClient, { token: usdc, owner, spender: router, needed: 1_000_000n, policy: { kind: 'exact' } })
 * plan.approvals.map((a) => a.amount) // [1000000n], or [0n, 1000000n] for USDT-like tokens with a stale allowance
 */
export async function planApprovals(
  client: Client,
  parameters: PlanApprovalsParameters,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<ApprovalPlan> {
  const { token, owner, spender, needed, policy } = parameters
  const target = approvalTarget(needed, policy)
  const zeroFirst = await needsZeroAllowanceFirst(client, { token, owner, spender, amount: target }, options)
  const currentAllowance = parameters.afterPending
    ? parameters.afterPending(zeroFirst.currentAllowance)
    : zeroFirst.currentAllowance
  const onChainAllowance = zeroFirst.currentAllowance
  if (currentAllowance >= needed)
    return { currentAllowance, onChainAllowance, target: currentAllowance, approvals: [] }
  const approvals = [buildApproveRequest({ token, spender, amount: target })]
  if (zeroFirst.needed) approvals.unshift(buildApproveRequest({ token, spender, amount: 0n }))
  return { currentAllowance, onChainAllowance, target, approvals }
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
