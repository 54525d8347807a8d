import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  isAddressEqual,
  parseTransaction,
  type TransactionReceipt,
} from 'viem'
import { observeInclusion } from '../chain/inclusionTime.js'
import { fillsFromReceipt } from '../chain/settlementEvents.js'
import type { OpenAllowanceRecord } from '../store/allowances.js'
import { type ExecutionRecord, type ExecutionState, isTerminalExecutionState } from '../store/executions.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { InclusionBlock, TransactionOutcomeHandler } from '../transactions/types.js'
import { findWallet, walletOf } from './chainWallet.js'
import type { EngineContext } from './context.js'
import { announceTransition } from './moveExecution.js'
import { fillOf, readStoredQuote } from './storedQuote.js'
import type { ChainRuntime, SettlementWaiters } from './types.js'

/**
 * What the engine does when the chain decides about one of its transactions: the handler each
 * chain's transaction manager calls inside the ledger transaction that records the decision. This
 * is where an execution's fill is written and where it ends:
 * - its execute included: the `QuoteExecuted` of its quote becomes a fill, the execution
 *   `confirmed` (or `failed` / `expired` when it reverted); its cancel included: `expired`;
 * - a reorg removed it: its fills reversed (once), the execution back to `submitted`;
 * - abandoned (refused by the node, its nonce used by another program): the execution `failed`;
 * - an approval included whose execution ended without an execute: an open allowance.
 *
 * @example
 * const handler = createSettlementHandler(context, () => chain, waiters)
 */
export function createSettlementHandler(
  context: EngineContext,
  chainOf: () => ChainRuntime,
  waiters: SettlementWaiters,
): TransactionOutcomeHandler {
  const { ledger } = context
  const announced: ExecutionRecord[] = []
  const move = (execution: ExecutionRecord, to: ExecutionState, reason: string) => {
    const moved = ledger.executions.transition(execution.id, execution, to, reason)
    announced.push(moved)
    return moved
  }
  const executionOf = (tx: TransactionRecord) =>
    tx.executionId === null ? undefined : ledger.executions.getExecution(tx.executionId)

  const revocations: OpenAllowanceRecord[] = []
  const keepOrRevoke = (opened: OpenAllowanceRecord | undefined) => {
    if (opened && context.settings.openAllowances === 'revoke') revocations.push(opened)
  }

  return {
    included(tx, receipt, block) {
      if (tx.kind === 'approve' && tx.executionId === null) {
        // Our revoke of an open allowance (approve to zero) is on chain.
        const call = approveCallOf(tx)
        if (call && call.amount === 0n && receipt.status === 'success')
          ledger.allowances.closeOpenAllowances(
            tx.chainId,
            call.token,
            call.spender,
            'revoked',
            `approval to zero ${tx.hash} mined in block ${block.number}`,
          )
        return
      }
      const execution = executionOf(tx)
      if (!execution) return
      if (tx.kind === 'approve') {
        if (isTerminalExecutionState(execution.state))
          keepOrRevoke(recordOpenAllowance(context, chainOf(), execution, tx))
        return
      }
      if (tx.kind !== 'execute' && tx.kind !== 'cancel') return
      const chain = chainOf()
      const quote = readStoredQuote(execution)
      if (!quote) return
      const fills =
        tx.kind === 'execute'
          ? fillsFromReceipt(receipt, { chainId: chain.chainId, executors: [chain.executorAddress] }).filter(
              (fill) => fill.quoteId === quote.quoteId && isAddressEqual(fill.taker, tx.from),
            )
          : []
      for (const fill of fills) ledger.fills.recordFill(fillOf(fill, execution, quote, block.timestamp))
      if (fills.length > 0)
        // An allowance left open by an earlier execution of this token and spender is spent now.
        ledger.allowances.closeOpenAllowances(
          chain.chainId,
          quote.isBuy ? quote.assetToken : quote.stockToken,
          chain.executorAddress,
          'used',
          `spent by execution ${execution.id} (${tx.hash})`,
        )
      if (execution.state !== 'submitted') return
      const [to, reason] = verdictOf(tx, receipt, block, fills.length > 0, quote.expiresAt)
      const ended = move(execution, to, reason)
      // A reverted or cancelled execute spent nothing: its mined approvals leave allowances open.
      if (to !== 'confirmed')
        for (const approval of ledger.transactions.listTransactionsForExecution(execution.id))
          if (
            approval.kind === 'approve' &&
            approval.status === 'mined' &&
            approval.receiptStatus === 'success'
          )
            keepOrRevoke(recordOpenAllowance(context, chain, ended, approval))
      const sentAt = tx.kind === 'execute' ? chain.broadcastTimes.get(tx.hash) : undefined
      if (sentAt !== undefined) {
        chain.inclusion = observeInclusion(chain.inclusion, {
          broadcastAt: sentAt,
          // Seen by the manager: the wait for held quotes after it is ours, not the chain's.
          includedAt: block.seenAtMs ?? context.now(),
        })
        chain.broadcastTimes.delete(tx.hash)
      }
    },
    reorged(tx, reason) {
      ledger.fills.reverseFillsOfTransaction(tx.chainId, tx.hash, reason)
      const execution = executionOf(tx)
      if (!execution || (tx.kind !== 'execute' && tx.kind !== 'cancel')) return
      if (execution.state === 'confirmed' || execution.state === 'failed' || execution.state === 'expired')
        move(
          execution,
          'submitted',
          `${tx.kind} ${tx.hash} is no longer on chain: ${reason}; waiting for it to land again`,
        )
    },
    abandoned(tx, reason) {
      const execution = executionOf(tx)
      if (execution?.state !== 'submitted') return
      if (tx.kind === 'execute' || tx.kind === 'cancel')
        move(execution, 'failed', `${tx.kind} ${tx.hash} will never be mined: ${reason}`)
    },
    deadlineOf(tx) {
      if (tx.kind !== 'execute') return undefined
      const execution = executionOf(tx)
      const quote = execution ? readStoredQuote(execution) : undefined
      return quote ? quote.expiresAt * 1000 + context.settings.cancelGraceMs : undefined
    },
    settled(tx) {
      for (const record of announced.splice(0)) announceTransition(context, record)
      if (tx.executionId !== null) waiters.wake(tx.executionId)
      for (const allowance of revocations.splice(0)) void revokeOpenAllowance(context, chainOf(), allowance)
    },
  }
}

/**
 * An execution ended (rejected, failed, expired) after some of its approvals were mined and before
 * its execute was sent: each such approval is recorded as an open allowance, and revoked when the
 * settings say so. Approvals still pending are recorded by the settlement handler once mined.
 *
 * @example
 * recordOpenAllowancesOf(context, chain, stoppedExecution)
 */
export function recordOpenAllowancesOf(
  context: EngineContext,
  chain: ChainRuntime,
  execution: ExecutionRecord,
): void {
  if (!isTerminalExecutionState(execution.state)) return
  for (const tx of context.ledger.transactions.listTransactionsForExecution(execution.id)) {
    if (tx.kind !== 'approve' || tx.status !== 'mined' || tx.receiptStatus !== 'success') continue
    const opened = recordOpenAllowance(context, chain, execution, tx)
    if (opened && context.settings.openAllowances === 'revoke')
      void revokeOpenAllowance(context, chain, opened)
  }
}

/**
 * Under `openAllowances: 'revoke'`, at recovery: the allowances still open whose approval to zero
 * was never signed (the process died between recording one and revoking it) are revoked now. One
 * whose revoke is already pending (the allowance after our pending transactions is zero) is left to it.
 *
 * @example
 * await revokeLeftOpenAllowances(context, chain)
 */
export async function revokeLeftOpenAllowances(context: EngineContext, chain: ChainRuntime): Promise<void> {
  if (context.settings.openAllowances !== 'revoke') return
  for (const allowance of context.ledger.allowances.listOpenAllowances({ chainId: chain.chainId })) {
    const wallet = findWallet(chain, allowance.owner)
    // A wallet no longer configured: its allowance stays recorded as open for the operator.
    if (!wallet) continue
    if (
      wallet.transactions.allowanceOutlook(allowance.token, allowance.spender, allowance.amount).expected ===
      0n
    )
      continue
    await revokeOpenAllowance(context, chain, allowance)
  }
}

/** Sends an approval to zero for an open allowance (the transaction manager follows it to the chain). */
async function revokeOpenAllowance(
  context: EngineContext,
  chain: ChainRuntime,
  allowance: OpenAllowanceRecord,
) {
  try {
    await walletOf(chain, allowance.owner).transactions.send(
      {
        kind: 'approve',
        to: allowance.token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [allowance.spender, 0n] }),
        gas: context.settings.approveGasLimit,
      },
      { executionId: null },
    )
  } catch (error) {
    context.logger?.error(
      { chainId: chain.chainId, token: allowance.token, spender: allowance.spender, error: String(error) },
      'could not revoke an open allowance; it stays recorded as open',
    )
  }
}

/** The token, spender and amount of an ERC-20 approve transaction, if it is one. */
function approveCallOf(
  tx: TransactionRecord,
): { token: Address; spender: Address; amount: bigint } | undefined {
  const parsed = parseTransaction(tx.raw)
  if (!parsed.to || !parsed.data) return undefined
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data: parsed.data })
    if (call.functionName !== 'approve') return undefined
    const [spender, amount] = call.args
    return { token: parsed.to, spender, amount }
  } catch {
    return undefined
  }
}

function verdictOf(
  tx: TransactionRecord,
  receipt: TransactionReceipt,
  block: InclusionBlock,
  filled: boolean,
  expiresAt: number,
): [ExecutionState, string] {
  if (tx.kind === 'cancel')
    return [
      'expired',
      `execute cancelled by replacement ${tx.hash} in block ${block.number}: it was not mined before the quote expired`,
    ]
  if (receipt.status === 'reverted')
    return block.timestamp > BigInt(expiresAt)
      ? ['expired', `execute ${tx.hash} reverted in block ${block.number}, mined after the quote expired`]
      : ['failed', `execute ${tx.hash} reverted in block ${block.number}`]
  if (filled) return ['confirmed', `settled in block ${block.number} by ${tx.hash}`]
  return [
    'failed',
    `execute ${tx.hash} succeeded in block ${block.number} but emitted no QuoteExecuted for its quote`,
  ]
}

/**
 * An approval of `execution` is on chain but no execute of it spent the allowance (never sent,
 * refused, reverted or cancelled): the allowance stays open.
 * Recorded, so the next execution of the same token and spender uses it (its allowance read
 * covers it) or the configured policy revokes it.
 */
function recordOpenAllowance(
  context: EngineContext,
  chain: ChainRuntime,
  execution: ExecutionRecord,
  approval: TransactionRecord,
): OpenAllowanceRecord | undefined {
  const { ledger } = context
  // Open unless an execute of the execution may still spend it (pending) or did (mined, success).
  const spends = ledger.transactions
    .listTransactionsForExecution(execution.id)
    .some(
      (tx) =>
        tx.kind === 'execute' &&
        (tx.status === 'signed' ||
          tx.status === 'broadcast' ||
          (tx.status === 'mined' && tx.receiptStatus === 'success')),
    )
  if (spends) return undefined
  const call = approveCallOf(approval)
  if (!call || call.amount === 0n) return undefined
  const { allowance, created } = ledger.allowances.recordOpenAllowance({
    chainId: chain.chainId,
    owner: approval.from,
    token: call.token,
    spender: call.spender,
    amount: call.amount,
    approveTxHash: approval.hash,
    executionId: execution.id,
    reason: `execution ${execution.id} ended ${execution.state} after approving ${call.amount}, and no execute of it spent the allowance`,
  })
  return created ? allowance : undefined
}

/**
 * Waiters for executions' ends, woken by the settlement handler after each commit (and, as a
 * safety net, by a periodic look at the ledger).
 *
 * @example
 * const waiters = createSettlementWaiters()
 * await waiters.wait(executionId, signal)
 */
export function createSettlementWaiters(): SettlementWaiters {
  const waiting = new Map<number, Set<() => void>>()
  return {
    wait(executionId, signal) {
      return new Promise((resolve, reject) => {
        const set = waiting.get(executionId) ?? new Set()
        const done = () => {
          set.delete(done)
          signal?.removeEventListener('abort', abort)
          resolve()
        }
        const abort = () => {
          set.delete(done)
          reject(signal?.reason)
        }
        set.add(done)
        waiting.set(executionId, set)
        signal?.addEventListener('abort', abort, { once: true })
      })
    },
    wake(executionId) {
      for (const done of [...(waiting.get(executionId) ?? [])]) done()
    },
  }
}
