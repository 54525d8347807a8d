import type { Hex } from 'viem'
import { toSignedQuoteStruct } from '../api/quoteStruct.js'
import type { ExecutionRecord } from '../store/executions.js'
import type { TransactionRequest } from '../transactions/types.js'
import { claimSigning } from './cancelExecution.js'
import { minimumValidity } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { dryRunReason } from './dryRunRecord.js'
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

/**
 * Stages two and three of an execution. Two, the wallet's critical section (the transaction
 * manager's): the kill switch and the quote's remaining validity checked again, the approvals
 * planned from the reading and the wallet's pending transactions (no other send changes those
 * meanwhile), the approvals and the execute signed at consecutive nonces and stored with the
 * quote's moves (pendingQuote.ts, the risk limits checked in the same transaction) and the move to
 * `submitted` in ONE ledger commit. Three: they are sent back to back; receipts come from the
 * block watcher. A quote that aged out meanwhile is never signed: a re-quote is asked for.
 *
 * @example
 * const outcome = await submitPrepared(context, chain, wallet, prepared, { attempt, signal })
 */
export async function submitPrepared(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  prepared: PreparedExecution,
  options: {
    attempt: number
    signal: AbortSignal | undefined
    /** The execution's place among those quoting: given up once the execute is handed to the node. */
    ticket?: AdmissionTicket | undefined
    /** Its hold on the quote, closed with the ticket (or while an approval is awaited first). */
    window?: QuoteWindow | undefined
  },
): Promise<SubmitOutcome> {
  const { ledger, settings } = context
  const { reply, allowance, data } = prepared
  let { execution, gas, simulation } = prepared
  const approvedFirst = prepared.approveFirst
  if (approvedFirst) {
    // Its approval's inclusion is awaited: nothing for the other inclusions to let pass.
    options.window?.close()
    const approved = await approveThenSimulate(context, chain, wallet, prepared, options)
    if (!approved.ok) return approved
    ;({ execution, gas, simulation } = approved)
  }
  let dropped: string | undefined
  let plan: ApprovalPlan | undefined
  let submitted: ExecutionRecord | undefined
  const execute: TransactionRequest = { kind: 'execute', to: chain.executorAddress, data, gas }
  try {
    const { records, broadcast, handedOver } = await wallet.transactions.sendAll(
      () => {
        plan = planNow(wallet, allowance)
        if (plan.approvals.length > 0 && settings.approvalPolicy.kind === 'unlimited')
          context.logger?.warn(
            { chainId: chain.chainId, executionId: execution.id, spender: chain.executorAddress },
            'approving an unlimited allowance (approvalPolicy unlimited): the executor may spend this token without limit',
          )
        return [...plan.approvals.map((approval) => approveRequest(context, approval)), execute]
      },
      {
        executionId: execution.id,
        // Inside the wallet's critical section, right before the nonce: the promise is about now.
        check: () => {
          assertNotHalted(context)
          const left = reply.quote.expiresAt * 1000 - context.now()
          const required = minimumValidity(context, chain, context.now())
          if (left < required) {
            dropped = `${Math.max(0, Math.round(left))} ms of validity left before signing the execute, ${required} ms required`
            throw new ExecutionStop('expired', dropped)
          }
          // Last: from here the execution is signed, and a cancel is refused.
          claimSigning(context, execution.id, options.signal)
        },
        alsoInLedger: settings.dryRun
          ? undefined
          : (records) => {
              // The quote's moves, the risk check and the move to `submitted`: one commit. A limit
              // breached meanwhile throws here, and nothing of it is stored.
              const quoted = approvedFirst
                ? execution
                : writePendingQuote(context, prepared.quoted, { checkRisk: true })
              submitted = ledger.executions.transition(
                execution.id,
                quoted,
                'submitted',
                `${describeSigned(records)} (${simulation}); ${Math.round(reply.quote.expiresAt * 1000 - context.now())} ms of validity left`,
              )
            },
      },
    )
    if (settings.dryRun)
      return { ok: true, execution: dryRunEnd(context, chain, prepared, execution, records, simulation) }
    // Once handed to the node, the next execution may ask for its quote.
    void handedOver.then(() => {
      options.ticket?.leave()
      options.window?.close()
    })
    execution = submitted ?? execution
    announceTransitions(context, execution, approvedFirst ? 1 : 1 + pendingMoves(prepared.quoted))
    const results = await broadcast
    const sent = results.at(-1)
    const executeRecord = records.at(-1)
    if (sent?.status === 'broadcast' && executeRecord) chain.broadcastTimes.set(executeRecord.hash, sent.atMs)
    return { ok: true, execution: ledger.executions.getExecution(execution.id) ?? execution }
  } catch (error) {
    if (dropped === undefined || !(error instanceof ExecutionStop)) throw error
    if (options.attempt < settings.maxQuoteAttempts)
      return {
        ok: false,
        requote: `quote ${reply.quote.quoteId} dropped: ${dropped}`,
        dropped: approvedFirst ? undefined : prepared.quoted,
      }
    throw new ExecutionStop(
      'expired',
      `no quote with enough validity after ${options.attempt} attempts: ${dropped}`,
      {
        quoted: approvedFirst ? undefined : prepared.quoted,
      },
    )
  }
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
): Promise<
  | { ok: true; execution: ExecutionRecord; gas: bigint; simulation: string }
  | { ok: false; requote: string; dropped: undefined }
> {
  const { settings } = context
  const { reply, allowance } = prepared
  // A dry run sends no approval: prepareExecution said why it could not simulate.
  if (settings.dryRun)
    return {
      ok: true,
      execution: prepared.execution,
      gas: settings.executeGasLimit,
      simulation: prepared.simulation,
    }
  const given = (amount: bigint) => givenAmountText(chain.asset, reply.quote, amount)
  // The quote is stored before the approvals are signed: `approving` moves from `quoted`.
  const quoted = context.ledger.atomically(() =>
    writePendingQuote(context, prepared.quoted, { checkRisk: true }),
  )
  announceTransitions(context, quoted, pendingMoves(prepared.quoted))
  const execution = moveExecution(
    context,
    quoted,
    'approving',
    `approving ${given(allowance.target)} to the executor ${allowance.spender} (allowance ${given(allowance.onChain)}, needed ${given(allowance.needed)})`,
  )
  const { records, broadcast } = await wallet.transactions.sendAll(
    () => planNow(wallet, allowance).approvals.map((approval) => approveRequest(context, approval)),
    {
      executionId: execution.id,
      check: () => {
        assertNotHalted(context)
        claimSigning(context, execution.id, options.signal)
      },
    },
  )
  const refused = (await broadcast).find((result) => result.status === 'refused')
  if (refused?.status === 'refused')
    throw new ExecutionStop('failed', `the node refused approval ${records[0]?.hash}: ${refused.error}`)
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
  if (!result.ok) {
    if (
      (result.errorName === 'QuoteExpired' || result.errorName === 'ERC20InsufficientAllowance') &&
      options.attempt < settings.maxQuoteAttempts
    )
      return {
        ok: false,
        requote: `quote ${reply.quote.quoteId} dropped: the simulation ${result.message}`,
        dropped: undefined,
      }
    throw new ExecutionStop(
      result.errorName === 'QuoteExpired' ? 'expired' : 'failed',
      `the simulation of execute ${result.message}: the execute was not sent; approval ${sent} was (its allowance is recorded as open once mined)`,
    )
  }
  return {
    ok: true,
    execution,
    gas: result.gas + (result.gas * BigInt(settings.gasBufferBps)) / 10_000n,
    simulation: `simulated after approval ${sent}, gas ${result.gas}`,
  }
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

/** The kill switch, read right before each signature: a halt stops the execution with nothing signed. */
export function assertNotHalted(context: EngineContext): void {
  const killSwitch = context.ledger.risk.killSwitch()
  if (killSwitch.halted)
    throw new ExecutionStop(
      'rejected',
      `kill switch: trading is halted (${killSwitch.reason}); nothing was signed. Run stockroute resume to trade again.`,
    )
}
