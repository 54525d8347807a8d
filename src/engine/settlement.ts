import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  isAddressEqual,
  parseTransaction,
} from 'viem'
import { observeInclusion } from '../chain/inclusionTime.js'
import { fillsFromReceipt } from '../chain/settlementEvents.js'
import type { OpenAllowanceRecord } from '../store/allowances.js'
import { type ExecutionRecord, type ExecutionState, isTerminalExecutionState } from '../store/executions.js'
import type { OutcomeBlock, TransactionOutcome } from '../store/transactionOutcomes.js'
import type { TransactionRecord } from '../store/transactions.js'
import { failpoint } from '../transactions/failpoints.js'
import { findWallet, walletOf } from './chainWallet.js'
import type { EngineContext } from './context.js'
import { checkDailyRealizedLoss, hasEntryHaltLimits } from './entryHalts.js'
import { announceTransition } from './moveExecution.js'
import { fillOf, readStoredQuote } from './storedQuote.js'
import type { ChainRuntime, SettlementWaiters } from './types.js'

/** The engine's settlement loop: see {@link createSettlementLoop}. */
export type SettlementLoop = {
  /** Settles every outcome waiting now (and those recorded meanwhile); joins a pass running. */
  settleNow(): Promise<void>
  /** Resolves once the pass running (if any) ended; no pass starts afterwards. */
  stop(): Promise<void>
}

/** Outcomes settled in one ledger transaction at most: a backlog after a restart goes in slices. */
const outcomesPerCommit = 500

/**
 * Where an execution's fill is written and where it ends. The transaction managers record what the
 * chain decided about each transaction (`ledger.transactionOutcomes`, in the commit that moves the
 * transaction's status); this loop reads those outcomes in order and, for each, in ONE ledger
 * transaction with the outcome's deletion:
 * - an execute included: the `QuoteExecuted` of its quote becomes a fill, the execution `confirmed`
 *   (or `failed` / `expired` when it reverted); its cancel included: `expired`;
 * - a reorg removed it: its fills reversed (once), the execution back to `submitted`;
 * - abandoned (refused by the node, its nonce used by another program): the execution `failed`;
 * - an approval included whose execution ended without an execute: an open allowance.
 * It is cued by the ledger each time an outcome is written; when that write is part of the ledger's
 * shared commit of the moment (`commitSoon`, as the manager's inclusions are), the settlement joins
 * that commit. Otherwise it commits after: a kill between the two leaves the outcome waiting, and
 * the next start settles it (Engine.recover). After each commit the transitions are announced and
 * the executions' waiters woken.
 *
 * @example
 * const settlement = createSettlementLoop(context, { ids: () => [31337], of: chainOf }, waiters)
 * await settlement.settleNow() // what a previous run left
 */
export function createSettlementLoop(
  context: EngineContext,
  chains: { ids: () => readonly number[]; of: (chainId: number) => ChainRuntime },
  waiters: SettlementWaiters,
): SettlementLoop {
  let running: Promise<void> | undefined
  // Set by every call: a pass that began before an outcome was recorded runs once more. The pass
  // clears `running` in the same step that sees nothing more to do, so no call falls between.
  let again = false
  let stopped = false
  const pass = async () => {
    try {
      while (again && !stopped) {
        again = false
        const settled = await context.ledger.commitSoon(() => settleWaiting(context, chains))
        afterCommit(context, chains, waiters, settled)
        // A full listing that moved on: more may wait. (One that settled nothing would only repeat.)
        if (settled.full && settled.count > 0) again = true
      }
    } catch (error) {
      // A storage fault: the outcomes stay in the ledger for the next start, which settles them.
      context.logger?.error(
        { error: String(error) },
        'could not settle transaction outcomes; they stay recorded',
      )
    } finally {
      running = undefined
    }
  }
  const settleNow = () => {
    if (stopped) return Promise.resolve()
    again = true
    running ??= pass()
    return running
  }
  // Cued inside the manager's commit: this pass's commit then joins it when that commit is the
  // ledger's shared one of the moment (commitSoon), so an inclusion and its fill cost one fsync.
  const unsubscribe = context.ledger.transactionOutcomes.onRecorded(() => void settleNow())
  return {
    settleNow,
    async stop() {
      stopped = true
      unsubscribe()
      await running
    },
  }
}

/** What one commit of the settlement loop did, for after the commit. */
type Settled = {
  /** Outcomes settled and deleted. */
  count: number
  /** Whether the listing was full: more may wait. */
  full: boolean
  announced: ExecutionRecord[]
  revocations: OpenAllowanceRecord[]
  executionIds: Set<number>
}

/**
 * Inside the ledger transaction: the oldest outcomes waiting, each settled and deleted in a
 * savepoint of its own. One that cannot be settled (anything but a storage fault) is undone alone
 * and stays, with the later outcomes of its transaction (their order matters), for the next pass;
 * the others' fills are not held back by it.
 */
function settleWaiting(
  context: EngineContext,
  chains: { ids: () => readonly number[]; of: (chainId: number) => ChainRuntime },
): Settled {
  const { ledger } = context
  const outcomes = ledger.transactionOutcomes.listOutcomes({
    chainIds: chains.ids(),
    limit: outcomesPerCommit,
  })
  const settled: Settled = {
    count: 0,
    full: outcomes.length === outcomesPerCommit,
    announced: [],
    revocations: [],
    executionIds: new Set(),
  }
  // A kill here leaves the execute's inclusion recorded and its fill not: recovery settles it.
  if (outcomes.some((outcome) => outcome.outcome === 'included')) failpoint('outcome-recorded')
  const held = new Set<string>()
  for (const outcome of outcomes) {
    const key = `${outcome.chainId}:${outcome.txHash}`
    if (held.has(key)) continue
    const part: Settled = { ...settled, count: 0, announced: [], revocations: [], executionIds: new Set() }
    try {
      ledger.atomically(() => {
        const tx = ledger.transactions.getTransaction(outcome.chainId, outcome.txHash)
        if (tx) {
          settleOutcome(context, chains.of(outcome.chainId), tx, outcome, part)
          if (tx.executionId !== null) part.executionIds.add(tx.executionId)
        }
        ledger.transactionOutcomes.deleteOutcome(outcome.id)
      })
    } catch (error) {
      if (ledger.storageFault) throw error
      held.add(key)
      context.logger?.error(
        { chainId: outcome.chainId, txHash: outcome.txHash, outcome: outcome.outcome, error: String(error) },
        'could not settle a transaction outcome; it stays recorded and is tried again',
      )
      continue
    }
    settled.count += 1
    settled.announced.push(...part.announced)
    settled.revocations.push(...part.revocations)
    for (const id of part.executionIds) settled.executionIds.add(id)
  }
  return settled
}

function afterCommit(
  context: EngineContext,
  chains: { of: (chainId: number) => ChainRuntime },
  waiters: SettlementWaiters,
  settled: Settled,
) {
  for (const record of settled.announced) announceTransition(context, record)
  for (const executionId of settled.executionIds) waiters.wake(executionId)
  for (const allowance of settled.revocations)
    void revokeOpenAllowance(context, chains.of(allowance.chainId), allowance)
  if (settled.count > 0) checkRealizedLossAfterFills(context, chains)
}

/**
 * The day's realized-loss limits after fills were written (docs/configuration.md): a loss that reaches one
 * halts new entries. Reads only the fills recorded since its last call. The drawdown is the equity
 * marks' rule (the daemon marks right after fills). A failure is logged: the fills stay written.
 */
function checkRealizedLossAfterFills(
  context: EngineContext,
  chains: { of: (chainId: number) => ChainRuntime },
): void {
  if (!hasEntryHaltLimits(context.settings.risk, 'maxDailyRealizedLoss')) return
  try {
    const symbolOf = (chainId: number) => {
      try {
        return chains.of(chainId).asset.symbol
      } catch {
        return undefined
      }
    }
    for (const halt of checkDailyRealizedLoss(context.ledger, context.settings.risk, context.now(), symbolOf))
      context.logger?.warn({ chainId: halt.chainId, rule: halt.rule }, `new entries halted: ${halt.reason}`)
  } catch (error) {
    context.logger?.error({ error: String(error) }, 'could not check the realized-loss limits after fills')
  }
}

/** One outcome's consequences, inside the settlement loop's ledger transaction. */
function settleOutcome(
  context: EngineContext,
  chain: ChainRuntime,
  tx: TransactionRecord,
  outcome: TransactionOutcome,
  settled: Settled,
) {
  const { ledger } = context
  const move = (execution: ExecutionRecord, to: ExecutionState, reason: string) => {
    const moved = ledger.executions.transition(execution.id, execution, to, reason)
    settled.announced.push(moved)
    return moved
  }
  const keepOrRevoke = (opened: OpenAllowanceRecord | undefined) => {
    if (opened && context.settings.openAllowances === 'revoke') settled.revocations.push(opened)
  }
  const execution = tx.executionId === null ? undefined : ledger.executions.getExecution(tx.executionId)
  switch (outcome.outcome) {
    case 'included':
      return settleInclusion(context, chain, { tx, execution, outcome, move, keepOrRevoke })
    case 'reorged':
      ledger.fills.reverseFillsOfTransaction(tx.chainId, tx.hash, outcome.reason)
      if (!execution || (tx.kind !== 'execute' && tx.kind !== 'cancel')) return
      if (execution.state === 'confirmed' || execution.state === 'failed' || execution.state === 'expired')
        move(
          execution,
          'submitted',
          `${tx.kind} ${tx.hash} is no longer on chain: ${outcome.reason}; waiting for it to land again`,
        )
      return
    case 'abandoned':
      if (execution?.state !== 'submitted') return
      if (tx.kind === 'execute' || tx.kind === 'cancel')
        move(execution, 'failed', `${tx.kind} ${tx.hash} will never be mined: ${outcome.reason}`)
      return
  }
}

/** `tx` is in a block: the revoke it was, the allowance it left open, or its execution's fill and end. */
function settleInclusion(
  context: EngineContext,
  chain: ChainRuntime,
  parts: {
    tx: TransactionRecord
    execution: ExecutionRecord | undefined
    outcome: Extract<TransactionOutcome, { outcome: 'included' }>
    move: (execution: ExecutionRecord, to: ExecutionState, reason: string) => ExecutionRecord
    keepOrRevoke: (opened: OpenAllowanceRecord | undefined) => void
  },
) {
  const { ledger } = context
  const { tx, execution, move, keepOrRevoke } = parts
  const { receipt, block } = parts.outcome
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
  if (!execution) return
  if (tx.kind === 'approve') {
    if (isTerminalExecutionState(execution.state))
      keepOrRevoke(recordOpenAllowance(context, chain, execution, tx))
    return
  }
  if (tx.kind !== 'execute' && tx.kind !== 'cancel') return
  const quote = readStoredQuote(execution)
  if (!quote) return
  const fills = tx.kind === 'execute' ? fillsOfQuote(chain, tx, parts.outcome, quote.quoteId) : []
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
  const [to, reason] = verdictOf(tx, receipt.status, block, fills.length > 0, quote.expiresAt)
  const ended = move(execution, to, reason)
  // A reverted or cancelled execute spent nothing: its mined approvals leave allowances open.
  if (to !== 'confirmed')
    for (const approval of ledger.transactions.listTransactionsForExecution(execution.id))
      if (approval.kind === 'approve' && approval.status === 'mined' && approval.receiptStatus === 'success')
        keepOrRevoke(recordOpenAllowance(context, chain, ended, approval))
  observeInclusionTime(context, chain, tx, block)
}

/** The settlements of `quoteId` to `tx`'s sender in an included execute's logs, from the chain's executor only. */
function fillsOfQuote(
  chain: ChainRuntime,
  tx: TransactionRecord,
  outcome: Extract<TransactionOutcome, { outcome: 'included' }>,
  quoteId: string,
) {
  const { receipt, block } = outcome
  const logs = receipt.logs.map((log) => ({
    ...log,
    topics: log.topics as [Hex, ...Hex[]],
    blockNumber: block.number,
    blockHash: block.hash,
    transactionHash: tx.hash,
    transactionIndex: 0,
    removed: false,
  }))
  return fillsFromReceipt(
    { status: receipt.status, logs },
    { chainId: chain.chainId, executors: [chain.executorAddress] },
  ).filter((fill) => fill.quoteId === quoteId && isAddressEqual(fill.taker, tx.from))
}

/** The chain's time to include, learned from an execute this process sent. */
function observeInclusionTime(
  context: EngineContext,
  chain: ChainRuntime,
  tx: TransactionRecord,
  block: OutcomeBlock,
) {
  const sentAt = tx.kind === 'execute' ? chain.broadcastTimes.get(tx.hash) : undefined
  if (sentAt === undefined) return
  chain.inclusion = observeInclusion(chain.inclusion, {
    broadcastAt: sentAt,
    // Seen by the manager: the wait for held quotes after it is ours, not the chain's.
    includedAt: block.seenAtMs ?? context.now(),
  })
  chain.broadcastTimes.delete(tx.hash)
}

/**
 * An execution ended (rejected, failed, expired) after some of its approvals were mined and before
 * its execute was sent: each such approval is recorded as an open allowance, and revoked when the
 * settings say so. Approvals still pending are recorded by the settlement loop once mined.
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
  receiptStatus: 'success' | 'reverted',
  block: OutcomeBlock,
  filled: boolean,
  expiresAt: number,
): [ExecutionState, string] {
  if (tx.kind === 'cancel')
    return [
      'expired',
      `execute cancelled by replacement ${tx.hash} in block ${block.number}: it was not mined before the quote expired`,
    ]
  if (receiptStatus === 'reverted')
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
 * Waiters for executions' ends, woken by the settlement loop after each commit (and, as a
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
