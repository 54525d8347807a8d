import { toPrice } from '@stockroute/client/domain/units.js'
import { isTransportFailure } from '../chain/isTransportFailure.js'
import type { ExecutionRecord } from '../store/executions.js'
import { awaitSettlement } from './awaitSettlement.js'
import { CancelRequest, watchExecution } from './cancelExecution.js'
import { pickWallet, walletOf } from './chainWallet.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'
import { type CheckedIntent, checkIntent, type SwapIntent } from './intent.js'
import { type PrepareOutcome, prepareExecution } from './prepareExecution.js'
import { recordOpenAllowancesOf } from './settlement.js'
import { describe, stopExecution } from './stopExecution.js'
import { type SubmitOutcome, submitPrepared } from './submitPrepared.js'
import type { AdmissionTicket, ChainRuntime, ChainWallet, Instrument, PendingQuote } from './types.js'

/**
 * Drives one execution from where it stands (`intent`, or `quoting`, `quoted`, `approving` left by
 * a restart) to its end, in three stages: (1) router quote, guard, risk and one simulation,
 * concurrently with the chain's other executions ({@link prepareExecution}); (2) the wallet's
 * critical section: kill switch, remaining validity, approvals planned, nonces, signatures and one
 * ledger commit; (3) approvals and execute sent back to back ({@link submitPrepared}); then the
 * block watcher's receipt and the fill. Every stop before the broadcast is recorded as `rejected`,
 * `expired` or `failed` with its reason; nothing is thrown for those.
 *
 * @example
 * const done = await runExecution(context, chain, ledger.executions.createExecution(newExecution))
 * done.state // 'confirmed'
 */
export async function runExecution(
  context: EngineContext,
  chain: ChainRuntime,
  execution: ExecutionRecord,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<ExecutionRecord> {
  // Its own signal: aborted by the caller's (a daemon stopping) or by a cancel before signing.
  const control = watchExecution(context, execution.id, options.signal)
  try {
    return await runWatched(context, chain, execution, control.signal)
  } finally {
    control.release()
  }
}

async function runWatched(
  context: EngineContext,
  chain: ChainRuntime,
  execution: ExecutionRecord,
  signal: AbortSignal,
): Promise<ExecutionRecord> {
  try {
    const instrument = await context.resolveInstrument(
      { chainId: execution.chainId, ticker: execution.ticker, exchange: execution.exchange },
      signal ? { signal } : {},
    )
    const intent = checkIntent(intentOf(execution), instrument, chain.asset.decimals)
    // The wallet is chosen and its pipeline slot taken at once (no await between), so executions
    // submitted together spread over the wallets.
    const wallet = walletForExecution(context, chain, execution)
    // Stage one runs concurrently, a few executions deep per wallet: deep enough to keep the wallet
    // busy, shallow enough that no quote ages waiting for the critical section.
    // Given the signal, a job still queued for a slot leaves the queue when it is cancelled.
    const submitted = await wallet.pipeline.add(
      async () => {
        // A wallet under recovery takes no new transaction until its nonces are sound.
        await wallet.transactions.ready(signal)
        // An RPC or service call that got no answer before the execute was signed is tried again
        // with a fresh quote, a few times, rather than failing the trade.
        for (let round = 1; ; round++) {
          const current = context.ledger.executions.getExecution(execution.id) ?? execution
          // Left once the execute is handed to the node (submitPrepared), or here at the latest.
          const ticket = await context.admission.enter(signal, wallet.account.address)
          try {
            return await quoteAndSubmit(context, chain, wallet, {
              execution: current,
              intent,
              instrument,
              signal,
              ticket,
            })
          } catch (error) {
            ticket.leave()
            const latest = context.ledger.executions.getExecution(execution.id)
            const unsigned =
              latest?.state === 'intent' ||
              latest?.state === 'quoting' ||
              latest?.state === 'quoted' ||
              latest?.state === 'approving'
            if (!unsigned || round >= transportRetries || !isTransportFailure(error) || signal?.aborted)
              throw error
            context.logger?.warn(
              { chainId: chain.chainId, executionId: execution.id, error: describe(error) },
              `no answer before the execute was signed: trying again with a new quote (${round} of ${transportRetries - 1})`,
            )
            await new Promise((resolve) => setTimeout(resolve, 250 * round))
          } finally {
            ticket.leave()
          }
        }
      },
      { signal },
    )
    if (submitted.state !== 'submitted') return submitted
    return await awaitSettlement(context, submitted, signal)
  } catch (error) {
    // Aborted (the daemon is stopping): an execution that never broadcast its execute is cancelled;
    // a submitted one stays submitted for the next start's recovery.
    const why = !signal.aborted
      ? error
      : signal.reason instanceof CancelRequest
        ? new ExecutionStop('rejected', `${signal.reason.message}; nothing was signed`)
        : new ExecutionStop('rejected', `cancelled before broadcast: ${describe(signal.reason)}`)
    try {
      const stopped = stopExecution(context, execution.id, why)
      // Approvals it sent stay on chain: recorded as open allowances (and revoked, if so configured).
      recordOpenAllowancesOf(context, chain, stopped)
      return stopped
    } catch (stopError) {
      // The ledger refused the write (a storage fault): the execution stays where it was, for the
      // next start's recovery; the caller gets its last committed state rather than a rejection.
      if (!context.ledger.storageFault) throw stopError
      context.logger?.error(
        { executionId: execution.id, error: describe(stopError) },
        'could not record why the execution stopped: the ledger has a storage fault',
      )
      return context.ledger.executions.getExecution(execution.id) ?? execution
    }
  }
}

/**
 * The wallet an execution runs on: the one that signed its transactions already (an approval sent
 * before a restart), else the chain's least busy one.
 */
function walletForExecution(
  context: EngineContext,
  chain: ChainRuntime,
  execution: ExecutionRecord,
): ChainWallet {
  const [signed] = context.ledger.transactions.listTransactionsForExecution(execution.id)
  return signed ? walletOf(chain, signed.from) : pickWallet(chain)
}

/** Rounds of quote-to-signature an execution gets when calls go unanswered. */
const transportRetries = 3

/** The intent an execution row was created from. */
export function intentOf(execution: ExecutionRecord): SwapIntent {
  return {
    intentId: execution.intentId,
    chainId: execution.chainId,
    ticker: execution.ticker,
    exchange: execution.exchange,
    side: execution.side,
    amountIn: execution.amountIn,
    amountType: execution.amountType,
    limitPrice: execution.limitPrice === null ? undefined : toPrice(execution.limitPrice),
  }
}

/**
 * Quote, guard and simulate (stage one), then sign, store and send (stages two and three), with a
 * new quote each time one drops for time, up to `maxQuoteAttempts`.
 */
async function quoteAndSubmit(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: {
    execution: ExecutionRecord
    intent: CheckedIntent
    instrument: Instrument
    signal: AbortSignal | undefined
    ticket: AdmissionTicket
  },
): Promise<ExecutionRecord> {
  const { intent, instrument, signal, ticket } = parameters
  let execution = parameters.execution
  let why =
    execution.state === 'intent'
      ? 'requesting a router quote'
      : `resumed from ${execution.state} after a restart: requesting a new router quote`
  let earlier: PendingQuote | undefined
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted()
    // Held from the quote's arrival to the execute's hand-over (submitPrepared), or to here at the latest.
    const window = context.quoteWindows.create()
    let submitted: SubmitOutcome | PrepareOutcome
    try {
      const outcome = await prepareExecution(context, chain, wallet, {
        execution,
        why,
        earlier,
        intent,
        instrument,
        attempt,
        signal,
        window,
      })
      if (outcome.ok)
        context.hooks.onStage?.({
          stage: 'prepared',
          chainId: chain.chainId,
          executionId: execution.id,
          quoteId: outcome.prepared.reply.quote.quoteId,
        })
      submitted = outcome.ok
        ? await submitPrepared(context, chain, wallet, outcome.prepared, { attempt, signal, ticket, window })
        : outcome
    } finally {
      window.close()
    }
    if (submitted.ok) return submitted.execution
    // A dropped quote not written yet is written with the next one, before it in the history.
    earlier = submitted.dropped
    execution = context.ledger.executions.getExecution(execution.id) ?? execution
    why = `${submitted.requote}; re-quoting, attempt ${attempt + 1} of ${context.settings.maxQuoteAttempts}`
  }
}
