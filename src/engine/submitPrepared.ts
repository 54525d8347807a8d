import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import type { Hex } from 'viem'
import type { SimulateExecuteReturnType } from '../chain/simulateExecute.js'
import type { ExecutionRecord } from '../store/executions.js'
import type { SentTransactions, TransactionRequest } from '../transactions/types.js'
import { claimSigning } from './cancelExecution.js'
import { minimumValidity } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { dryRunReason } from './dryRunRecord.js'
import { entryHaltProblem } from './entryHalts.js'
import { ExecutionStop } from './errors.js'
import { givenAmountText } from './givenAmount.js'
import { announceTransitions, moveExecution } from './moveExecution.js'
import { pendingMoves, writePendingQuote } from './pendingQuote.js'
import { type AllowanceReading, type ApprovalPlan, planFromReading } from './planApprovals.js'
import type { PreparedExecution } from './prepareExecution.js'
import { simulateAfterPending } from './simulateAfterPending.js'
import type { AdmissionTicket, ChainRuntime, ChainWallet, PendingQuote, QuoteWindow } from './types.js'

/** Stages two and three's answer: submitted (or ended, for a dry run), or a re-quote (why). */
export type SubmitOutcome =
  | { ok: true; execution: ExecutionRecord }
  /** `dropped`: the quote, when it was not written yet (it is, with the next quote's commit). */
  | { ok: false; requote: string; dropped: PendingQuote | undefined }

/** The attempt, and what the execution holds while it quotes. */
export type SubmitOptions = {
  attempt: number
  signal: AbortSignal | undefined
  /** The execution's place among those quoting: given up once the execute is handed to the node. */
  ticket?: AdmissionTicket | undefined
  /** Its hold on the quote, closed with the ticket (or while an approval is awaited first). */
  window?: QuoteWindow | undefined
}

/**
 * Stages two and three of an execution. Two, in the wallet's turn (its critical section, taken from
 * the transaction manager and held here): the approvals planned from the reading and the wallet's
 * pending transactions (no other send changes those meanwhile), the approvals and the execute
 * signed at consecutive nonces, then the kill switch and the quote's remaining validity checked
 * again, and the signed bundle stored with the quote's moves (pendingQuote.ts, the risk limits
 * checked in the same transaction) and the move to `submitted` in ONE ledger commit. Three: they
 * are sent back to back; receipts come from the block watcher. A quote that aged out meanwhile is
 * never stored or sent: a re-quote is asked for.
 *
 * @example
 * const outcome = await submitPrepared(context, chain, wallet, prepared, { attempt, signal })
 */
export async function submitPrepared(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  prepared: PreparedExecution,
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  if (!prepared.approveFirst) return signAndSend(context, chain, wallet, prepared, options)
  // Its approval's inclusion is awaited: nothing for the other inclusions to let pass.
  options.window?.close()
  const approved = await approveThenSimulate(context, chain, wallet, prepared, options)
  if (!approved.ok) return approved
  const { execution, gas, simulation } = approved
  return signAndSend(context, chain, wallet, { ...prepared, execution, gas, simulation }, options)
}

/**
 * The wallet's turn and the sends: the execute (after the approvals planned now) signed and
 * committed with the execution's move to `submitted`, then handed to the node. `prepared`: after
 * its approvals when they went first (`approveFirst`; `approving`, its gas simulated then).
 */
async function signAndSend(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  prepared: PreparedExecution,
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  const { settings } = context
  const { reply, allowance, data, gas, simulation } = prepared
  const { execution } = prepared
  const approvedFirst = prepared.approveFirst
  // After its quote's expiry (and a grace for the chain's clock) the manager cancels it at its nonce.
  const execute: TransactionRequest = {
    kind: 'execute',
    to: chain.executorAddress,
    data,
    gas,
    deadlineMs: reply.quote.expiresAt * 1000 + settings.cancelGraceMs,
  }
  const turn = await wallet.transactions.takeTurn()
  try {
    const requests = bundleOf(context, chain, wallet, { allowance, executionId: execution.id, execute })
    const bundle = await turn.sign(requests, { executionId: execution.id })
    // From the checks to the commit nothing awaits: the promise is about now. The signature above is
    // dropped with the turn when one throws: nothing is stored or sent.
    assertNotHalted(context, execution)
    const shortfall = validityShortfall(context, chain, reply)
    if (shortfall !== undefined)
      return requoteOrExpire(context, options.attempt, {
        quoteId: reply.quote.quoteId,
        dropped: shortfall,
        quoted: approvedFirst ? undefined : prepared.quoted,
      })
    // Last: from here the execution is signed, and a cancel is refused.
    claimSigning(context, execution.id, options.signal)
    if (settings.dryRun) {
      turn.store(bundle)
      const { records } = turn.send(bundle)
      return { ok: true, execution: dryRunEnd(context, chain, prepared, execution, records, simulation) }
    }
    const submitted = context.ledger.atomically(() => {
      const records = turn.store(bundle)
      return recordSubmitted(context, prepared, { execution, approvedFirst, records, simulation })
    })
    const sent = turn.send(bundle)
    const moves = approvedFirst ? 1 : 1 + pendingMoves(prepared.quoted)
    return {
      ok: true,
      execution: await followBroadcast(context, chain, sent, {
        execution: submitted,
        moves,
        ticket: options.ticket,
        window: options.window,
      }),
    }
  } finally {
    turn.end()
  }
}

/**
 * What the wallet's turn signs: the approvals planned now, from the reading and the
 * wallet's pending transactions (an unlimited one is warned about), then the execute.
 */
function bundleOf(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: { allowance: AllowanceReading; executionId: number; execute: TransactionRequest },
): TransactionRequest[] {
  const { allowance, executionId, execute } = parameters
  const plan = planNow(wallet, allowance)
  if (plan.approvals.length > 0 && context.settings.approvalPolicy.kind === 'unlimited')
    context.logger?.warn(
      { chainId: chain.chainId, executionId, spender: chain.executorAddress },
      'approving an unlimited allowance (approvalPolicy unlimited): the executor may spend this token without limit',
    )
  return [...plan.approvals.map((approval) => approveRequest(context, approval)), execute]
}

/** Why the quote is too close to its expiry to sign its execute now, or undefined when it is not. */
function validityShortfall(
  context: EngineContext,
  chain: ChainRuntime,
  reply: PreparedExecution['reply'],
): string | undefined {
  const left = reply.quote.expiresAt * 1000 - context.now()
  const required = minimumValidity(context, chain, context.now())
  if (left < required)
    return `${Math.max(0, Math.round(left))} ms of validity left before signing the execute, ${required} ms required`
  return undefined
}

/**
 * The quote's moves, the risk check and the move to `submitted`, in the ledger transaction that
 * stores the signed bundle: one commit. A limit breached meanwhile throws here, and nothing of it
 * is stored.
 */
function recordSubmitted(
  context: EngineContext,
  prepared: PreparedExecution,
  parameters: {
    execution: ExecutionRecord
    approvedFirst: boolean
    records: readonly { kind: string; hash: Hex; nonce: number }[]
    simulation: string
  },
): ExecutionRecord {
  const { execution, approvedFirst, records, simulation } = parameters
  const quoted = approvedFirst ? execution : writePendingQuote(context, prepared.quoted, { checkRisk: true })
  return context.ledger.executions.transition(
    execution.id,
    quoted,
    'submitted',
    `${describeSigned(records)} (${simulation}); ${Math.round(prepared.reply.quote.expiresAt * 1000 - context.now())} ms of validity left`,
  )
}

/**
 * After the commit: the execution's place among those quoting and its hold on the quote are given
 * up once the execute is handed to the node (the next execution may ask for its quote), its moves
 * are announced, and the execute's broadcast time is noted for the inclusion estimate. Resolves
 * with the execution as the ledger has it once the bundle is sent.
 */
async function followBroadcast(
  context: EngineContext,
  chain: ChainRuntime,
  signed: Pick<SentTransactions, 'records' | 'broadcast' | 'handedOver'>,
  parameters: {
    execution: ExecutionRecord
    /** How many of its last transitions to announce. */
    moves: number
    ticket?: AdmissionTicket | undefined
    window?: QuoteWindow | undefined
  },
): Promise<ExecutionRecord> {
  const { execution } = parameters
  void signed.handedOver.then(() => {
    parameters.ticket?.leave()
    parameters.window?.close()
  })
  announceTransitions(context, execution, parameters.moves)
  const results = await signed.broadcast
  const sent = results.at(-1)
  const executeRecord = signed.records.at(-1)
  if (sent?.status === 'broadcast' && executeRecord) chain.broadcastTimes.set(executeRecord.hash, sent.atMs)
  return context.ledger.executions.getExecution(execution.id) ?? execution
}

/**
 * A quote that aged out in the wallet's turn (nothing stored): a re-quote while attempts
 * remain, else the execution stops `expired` (thrown). `quoted`: the quote, when not written yet.
 */
function requoteOrExpire(
  context: EngineContext,
  attempt: number,
  parameters: { quoteId: string; dropped: string; quoted: PendingQuote | undefined },
): SubmitOutcome {
  const { quoteId, dropped, quoted } = parameters
  if (attempt < context.settings.maxQuoteAttempts)
    return { ok: false, requote: `quote ${quoteId} dropped: ${dropped}`, dropped: quoted }
  throw new ExecutionStop('expired', `no quote with enough validity after ${attempt} attempts: ${dropped}`, {
    quoted,
  })
}

/**
 * The fallback for a token whose allowance cannot be overridden in a simulation: its approvals are
 * signed and sent first (state `approving`), then the execute is simulated once they are pending.
 */
async function approveThenSimulate(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  prepared: PreparedExecution,
  options: { attempt: number; signal: AbortSignal | undefined },
): Promise<ApprovedThenSimulated> {
  const { settings } = context
  const { reply } = prepared
  // A dry run sends no approval: prepareExecution said why it could not simulate.
  if (settings.dryRun)
    return {
      ok: true,
      execution: prepared.execution,
      gas: settings.executeGasLimit,
      simulation: prepared.simulation,
    }
  const execution = moveToApproving(context, chain, prepared)
  const records = await sendApprovals(context, wallet, prepared.allowance, execution, options.signal)
  const result = await simulateAfterPending(
    chain,
    wallet,
    {
      executor: chain.executorAddress,
      quote: toSignedQuoteStruct(reply.quote),
      signature: reply.signature,
      taker: wallet.account.address,
      blockTag: 'pending',
    },
    {
      signal: options.signal,
      canWait: () =>
        reply.quote.expiresAt * 1000 - context.now() > minimumValidity(context, chain, context.now()),
    },
  )
  const sent = records.map((record) => record.hash).join(', ')
  if (!result.ok)
    return requoteOrStopAfterApproval(context, result, {
      quoteId: reply.quote.quoteId,
      sent,
      attempt: options.attempt,
    })
  return {
    ok: true,
    execution,
    gas: result.gas + (result.gas * BigInt(settings.gasBufferBps)) / 10_000n,
    simulation: `simulated after approval ${sent}, gas ${result.gas}`,
  }
}

/** {@link approveThenSimulate}'s answer: the execution `approving` with its simulated gas, or a re-quote. */
type ApprovedThenSimulated =
  | { ok: true; execution: ExecutionRecord; gas: bigint; simulation: string }
  | { ok: false; requote: string; dropped: undefined }

/**
 * Writes the quote (its moves to `quoting` and `quoted`, the risk limits checked in the same
 * commit), then moves the execution to `approving`: the quote is stored before the approvals are
 * signed.
 */
function moveToApproving(
  context: EngineContext,
  chain: ChainRuntime,
  prepared: PreparedExecution,
): ExecutionRecord {
  const { reply, allowance } = prepared
  const given = (amount: bigint) => givenAmountText(chain.asset, reply.quote, amount)
  const quoted = context.ledger.atomically(() =>
    writePendingQuote(context, prepared.quoted, { checkRisk: true }),
  )
  announceTransitions(context, quoted, pendingMoves(prepared.quoted))
  return moveExecution(
    context,
    quoted,
    'approving',
    `approving ${given(allowance.target)} to the executor ${allowance.spender} (allowance ${given(allowance.onChain)}, needed ${given(allowance.needed)})`,
  )
}

/**
 * Signs the approvals planned now in the wallet's turn (the kill switch read, a cancel refused from
 * then on) and sends them. Throws {@link ExecutionStop} `failed` when the node
 * refuses one.
 */
async function sendApprovals(
  context: EngineContext,
  wallet: ChainWallet,
  allowance: AllowanceReading,
  execution: ExecutionRecord,
  signal: AbortSignal | undefined,
): Promise<SentTransactions['records']> {
  const turn = await wallet.transactions.takeTurn()
  let sent: SentTransactions
  try {
    const approvals = planNow(wallet, allowance).approvals.map((approval) =>
      approveRequest(context, approval),
    )
    const bundle = await turn.sign(approvals, { executionId: execution.id })
    assertNotHalted(context, execution)
    claimSigning(context, execution.id, signal)
    turn.store(bundle)
    sent = turn.send(bundle)
  } finally {
    turn.end()
  }
  const refused = (await sent.broadcast).find((result) => result.status === 'refused')
  if (refused?.status === 'refused')
    throw new ExecutionStop('failed', `the node refused approval ${sent.records[0]?.hash}: ${refused.error}`)
  return sent.records
}

/**
 * The execute's simulation failed after its approvals were sent: a re-quote while attempts remain
 * when the quote expired or the allowance is still short; otherwise the execution stops (thrown),
 * the approvals sent (their allowance is recorded as open once mined).
 */
function requoteOrStopAfterApproval(
  context: EngineContext,
  result: Extract<SimulateExecuteReturnType, { ok: false }>,
  parameters: { quoteId: string; sent: string; attempt: number },
): Extract<ApprovedThenSimulated, { ok: false }> {
  const { quoteId, sent, attempt } = parameters
  if (
    (result.errorName === 'QuoteExpired' || result.errorName === 'ERC20InsufficientAllowance') &&
    attempt < context.settings.maxQuoteAttempts
  )
    return {
      ok: false,
      requote: `quote ${quoteId} dropped: the simulation ${result.message}`,
      dropped: undefined,
    }
  throw new ExecutionStop(
    result.errorName === 'QuoteExpired' ? 'expired' : 'failed',
    `the simulation of execute ${result.message}: the execute was not sent; approval ${sent} was (its allowance is recorded as open once mined)`,
  )
}

/** The approvals to sign now: from the reading and the wallet's transactions pending at this moment. */
function planNow(wallet: ChainWallet, allowance: AllowanceReading): ApprovalPlan {
  const { token, spender, onChain, atBlock } = allowance
  return planFromReading(allowance, wallet.transactions.allowanceOutlook(token, spender, onChain, atBlock))
}

function approveRequest(context: EngineContext, approval: { to: Hex; data: Hex }): TransactionRequest {
  return { kind: 'approve', to: approval.to, data: approval.data, gas: context.settings.approveGasLimit }
}

/** The signed transactions of a bundle, in words: the execute last. */
function describeSigned(records: readonly { kind: string; hash: Hex; nonce: number }[]): string {
  const execute = records.at(-1)
  const approvals = records.slice(0, -1).map((record) => `approve ${record.hash} (nonce ${record.nonce})`)
  return `execute ${execute?.hash} signed with nonce ${execute?.nonce}${approvals.length > 0 ? ` after ${approvals.join(', ')}` : ''}`
}

/**
 * A dry run ends here: everything is signed and stored, nothing sent; the manager gives the nonces
 * back. Recorded as a terminal `rejected` whose reason starts `dry run: not broadcast` and names
 * what would have been sent (see dryRunRecord.ts).
 */
function dryRunEnd(
  context: EngineContext,
  chain: ChainRuntime,
  prepared: PreparedExecution,
  execution: ExecutionRecord,
  records: readonly { kind: string; hash: Hex; nonce: number; raw: Hex }[],
  simulation: string,
): ExecutionRecord {
  const given = (amount: bigint) => givenAmountText(chain.asset, prepared.reply.quote, amount)
  const reason = dryRunReason({ records, simulation, given })
  if (execution.state === 'approving') return moveExecution(context, execution, 'rejected', reason)
  // The quote and the end in one commit, as a live execute's (no risk check: nothing is sent).
  const ended = context.ledger.atomically(() => {
    const quoted = writePendingQuote(context, prepared.quoted, { checkRisk: false })
    return context.ledger.executions.transition(quoted.id, quoted, 'rejected', reason)
  })
  announceTransitions(context, ended, 1 + pendingMoves(prepared.quoted))
  return ended
}

/**
 * The kill switch, read in the wallet's turn right before the signed transactions are stored: a
 * halt stops the execution with nothing stored or sent (the turn drops what it signed). Given the
 * execution, an entry halt (a risk limit reached: docs/configuration.md) stops a buy the same way; a sell
 * (an exit) goes on.
 */
export function assertNotHalted(
  context: EngineContext,
  execution?: Pick<ExecutionRecord, 'chainId' | 'side'>,
): void {
  const killSwitch = context.ledger.risk.killSwitch()
  if (killSwitch.halted)
    throw new ExecutionStop(
      'rejected',
      `kill switch: trading is halted (${killSwitch.reason}); nothing was signed. Run stockroute resume to trade again.`,
    )
  const entryHalt = execution && entryHaltProblem(context.ledger, execution.chainId, execution.side)
  if (entryHalt) throw new ExecutionStop('rejected', `risk limit: ${entryHalt}`)
}
