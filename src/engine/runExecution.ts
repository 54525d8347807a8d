import { encodeFunctionData } from 'viem'
import { getRouterQuote } from '../api/actions/getRouterQuote.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '../api/errors.js'
import { toSignedQuoteStruct } from '../api/quoteStruct.js'
import { executorAbi } from '../chain/abis.js'
import { isTransportFailure } from '../chain/isTransportFailure.js'
import { toPrice } from '../domain/units.js'
import type { ExecutionRecord } from '../store/executions.js'
import { toNotional } from '../store/risk.js'
import { awaitSettlement } from './awaitSettlement.js'
import { type ChainRuntime, minimumValidity } from './chainRuntime.js'
import { checkRiskLimits } from './checkRiskLimits.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'
import { guardQuote } from './guardQuote.js'
import { type CheckedIntent, checkIntent, type SwapIntent } from './intent.js'
import { announceTransition, moveExecution } from './moveExecution.js'
import { planApprovals } from './planApprovals.js'
import { approvalParametersOf, routerQuoteParametersOf } from './quoteRequest.js'
import type { Instrument } from './resolveInstrument.js'
import { recordOpenAllowancesOf } from './settlement.js'
import { simulateAfterPending } from './simulateAfterPending.js'
import { describe, stopExecution } from './stopExecution.js'
import { storedQuoteOf } from './storedQuote.js'

/**
 * Drives one execution from where it stands (`intent`, or `quoting`, `quoted`, `approving` left by
 * a restart) to its end: quote just in time, guard, risk, approvals, simulation, execute signed and
 * stored, broadcast, receipt, fill. Quote to broadcast holds the chain's send slot, so the quote is
 * requested only when the wallet can send at once; the wait for the receipt does not. Every stop
 * before the broadcast is recorded as `rejected`, `expired` or `failed` with its reason; nothing is
 * thrown for those.
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
  const { signal } = options
  try {
    const instrument = await context.resolveInstrument(
      { chainId: execution.chainId, ticker: execution.ticker, exchange: execution.exchange },
      signal ? { signal } : {},
    )
    const intent = checkIntent(intentOf(execution), instrument, chain.asset.decimals)
    // A wallet under recovery takes no new transaction until its nonces are sound.
    await chain.transactions.ready(signal)
    const submitted = await chain.sendQueue.add(async () => {
      // An RPC or service call that got no answer before the execute was signed is tried again
      // with a fresh quote, a few times, rather than failing the trade.
      for (let round = 1; ; round++) {
        const current = context.ledger.executions.getExecution(execution.id) ?? execution
        try {
          return await quoteAndSubmit(context, chain, { execution: current, intent, instrument, signal })
        } catch (error) {
          const latest = context.ledger.executions.getExecution(execution.id)
          const unsigned =
            latest?.state === 'quoting' || latest?.state === 'quoted' || latest?.state === 'approving'
          if (!unsigned || round >= transportRetries || !isTransportFailure(error) || signal?.aborted)
            throw error
          context.logger?.warn(
            { chainId: chain.chainId, executionId: execution.id, error: describe(error) },
            `no answer before the execute was signed: trying again with a new quote (${round} of ${transportRetries - 1})`,
          )
          await new Promise((resolve) => setTimeout(resolve, 250 * round))
        }
      }
    })
    if (submitted.execution.state !== 'submitted') return submitted.execution
    return await awaitSettlement(context, submitted.execution, signal)
  } catch (error) {
    // Aborted (the daemon is stopping): an execution that never broadcast its execute is cancelled;
    // a submitted one stays submitted for the next start's recovery.
    const why = signal?.aborted
      ? new ExecutionStop('rejected', `cancelled before broadcast: ${describe(signal.reason)}`)
      : error
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

type Submission = { execution: ExecutionRecord }

async function quoteAndSubmit(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: {
    execution: ExecutionRecord
    intent: CheckedIntent
    instrument: Instrument
    signal: AbortSignal | undefined
  },
): Promise<Submission> {
  const { ledger, settings } = context
  const { intent, instrument, signal } = parameters
  let execution = parameters.execution
  let why =
    execution.state === 'intent'
      ? 'executor free: requesting a router quote'
      : `resumed from ${execution.state} after a restart: requesting a new router quote`
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted()
    execution = moveExecution(context, execution, 'quoting', why)
    const [reply, marketPrice] = await Promise.all([
      requestQuote(context, chain, intent, instrument, signal),
      context.marketPrice(instrument, { signal }),
    ])
    const stored = storedQuoteOf(reply, chain.asset.decimals)
    const notional = reply.quote.isBuy ? reply.quote.amountInUsed : reply.quote.amountOut
    // The risk check and this execution's commitment (its notional, counted in flight once quoted)
    // are one write, so concurrent executions cannot together overshoot a limit.
    const quoted = ledger.atomically(() => {
      const riskProblem = checkRiskLimits(
        ledger,
        settings.risk,
        chain.chainId,
        toNotional(notional, chain.asset.decimals),
        context.now(),
      )
      const record = ledger.executions.transition(
        execution.id,
        execution,
        'quoted',
        `quote ${reply.quote.quoteId} received`,
        {
          quoteId: reply.quote.quoteId,
          quote: stored,
          notional: { amount: notional, decimals: chain.asset.decimals },
        },
      )
      return { record, riskProblem }
    })
    execution = quoted.record
    announceTransition(context, execution)

    const verdict = await guardQuote({
      intent,
      instrument,
      chain,
      reply,
      marketPrice,
      settings,
      minValidityMs: minimumValidity(context, chain, context.now()),
      now: context.now,
    })
    if (!verdict.ok) {
      if (
        (verdict.rule === 'validity' || verdict.rule === 'expired') &&
        attempt < settings.maxQuoteAttempts
      ) {
        why = `quote ${reply.quote.quoteId} dropped (${verdict.message}); re-quoting, attempt ${attempt + 1} of ${settings.maxQuoteAttempts}`
        continue
      }
      if (verdict.rule === 'validity' || verdict.rule === 'expired')
        throw new ExecutionStop(
          'expired',
          `no quote with enough validity after ${attempt} attempts: ${verdict.message}`,
        )
      throw new ExecutionStop('rejected', `guard ${verdict.rule}: ${verdict.message}`)
    }
    if (quoted.riskProblem) throw new ExecutionStop('rejected', `risk limit: ${quoted.riskProblem}`)

    const struct = toSignedQuoteStruct(reply.quote)
    const plan = await planApprovals(
      chain.publicClient,
      approvalParametersOf(chain, reply.quote, settings.approvalPolicy),
      { signal },
    )
    if (plan.approvals.length > 0 && settings.approvalPolicy.kind === 'unlimited')
      context.logger?.warn(
        { chainId: chain.chainId, executionId: execution.id, spender: chain.executorAddress },
        'approving an unlimited allowance (approvalPolicy unlimited): the executor may spend this token without limit',
      )
    const approvalsPending = plan.approvals.length > 0 && !settings.dryRun
    const approvalsSent: string[] = []
    if (approvalsPending) {
      execution = moveExecution(
        context,
        execution,
        'approving',
        `approving ${plan.target} of ${plan.approvals[0]?.token} to ${chain.executorAddress} (allowance ${plan.currentAllowance}, needed ${reply.quote.amountInUsed})`,
      )
      for (const approval of plan.approvals) {
        const { record, broadcast } = await chain.transactions.send(
          { kind: 'approve', to: approval.to, data: approval.data, gas: settings.approveGasLimit },
          { executionId: execution.id, check: () => assertNotHalted(context) },
        )
        approvalsSent.push(record.hash)
        const sent = await broadcast
        if (sent.status === 'refused')
          throw new ExecutionStop('failed', `the node refused approval ${record.hash}: ${sent.error}`)
      }
    }

    let gas = settings.executeGasLimit
    let simulation = 'not simulated'
    if (settings.simulate && !(settings.dryRun && plan.approvals.length > 0)) {
      // 'pending' when the allowance comes from transactions of ours not yet mined.
      const reliesOnPending = approvalsPending || plan.currentAllowance !== plan.onChainAllowance
      const result = await simulateAfterPending(
        chain,
        {
          executor: chain.executorAddress,
          quote: struct,
          signature: reply.signature,
          taker: chain.account.address,
          blockTag: reliesOnPending ? 'pending' : 'latest',
        },
        {
          signal,
          canWait: () =>
            reply.quote.expiresAt * 1000 - context.now() > minimumValidity(context, chain, context.now()),
        },
      )
      if (!result.ok) {
        if (result.errorName === 'QuoteExpired' && attempt < settings.maxQuoteAttempts) {
          why = `quote ${reply.quote.quoteId} dropped: the simulation ${result.message}; re-quoting`
          continue
        }
        // Short of allowance while our own transactions are still landing, and out of time to wait
        // for them: a new quote plans again from what has landed by then.
        if (
          result.errorName === 'ERC20InsufficientAllowance' &&
          chain.transactions.status().pending > 0 &&
          attempt < settings.maxQuoteAttempts
        ) {
          why = `quote ${reply.quote.quoteId} dropped: the simulation ${result.message} while the wallet's transactions were still landing; re-quoting`
          continue
        }
        throw new ExecutionStop(
          result.errorName === 'QuoteExpired' ? 'expired' : 'failed',
          `the simulation of execute ${result.message}: ${notSent(approvalsSent)}`,
        )
      }
      gas = result.gas + (result.gas * BigInt(settings.gasBufferBps)) / 10_000n
      simulation = `simulated, gas ${result.gas}`
    } else if (settings.simulate) {
      simulation = 'simulation skipped: it needs the approval, which a dry run does not send'
    }

    const data = encodeFunctionData({
      abi: executorAbi,
      functionName: 'execute',
      args: [struct, reply.signature],
    })
    if (settings.dryRun) return dryRunEnd(context, chain, { execution, data, gas, plan, simulation })
    let submitted: ExecutionRecord | undefined
    let dropped: string | undefined
    try {
      const { record, broadcast } = await chain.transactions.send(
        { kind: 'execute', to: chain.executorAddress, data, gas },
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
          },
          alsoInLedger: (record) => {
            submitted = ledger.executions.transition(
              execution.id,
              execution,
              'submitted',
              `execute ${record.hash} signed with nonce ${record.nonce} (${simulation}); ${Math.round(reply.quote.expiresAt * 1000 - context.now())} ms of validity left`,
            )
          },
        },
      )
      execution = submitted ?? execution
      announceTransition(context, execution)
      const sent = await broadcast
      if (sent.status === 'broadcast') chain.broadcastTimes.set(record.hash, sent.atMs)
      return { execution: ledger.executions.getExecution(execution.id) ?? execution }
    } catch (error) {
      if (dropped === undefined || !(error instanceof ExecutionStop)) throw error
      if (attempt < settings.maxQuoteAttempts) {
        why = `quote ${reply.quote.quoteId} dropped: ${dropped}; re-quoting, attempt ${attempt + 1} of ${settings.maxQuoteAttempts}`
        continue
      }
      throw new ExecutionStop(
        'expired',
        `no quote with enough validity after ${attempt} attempts: ${dropped}`,
      )
    }
  }
}

/** What an execution stopped before its execute leaves on chain, in words. */
function notSent(approvals: readonly string[]): string {
  if (approvals.length === 0) return 'nothing was sent'
  return `the execute was not sent; approval ${approvals.join(', ')} was (its allowance is recorded as open once mined)`
}

/** The kill switch, read right before each signature: a halt stops the execution with nothing signed. */
function assertNotHalted(context: EngineContext): void {
  const killSwitch = context.ledger.risk.killSwitch()
  if (killSwitch.halted)
    throw new ExecutionStop(
      'rejected',
      `kill switch: trading is halted (${killSwitch.reason}); nothing was signed. Run stockroute resume to trade again.`,
    )
}

async function requestQuote(
  context: EngineContext,
  chain: ChainRuntime,
  intent: CheckedIntent,
  instrument: Instrument,
  signal: AbortSignal | undefined,
) {
  try {
    return await getRouterQuote(
      context.service,
      routerQuoteParametersOf(intent, chain, instrument),
      signal ? { signal } : {},
    )
  } catch (error) {
    if (error instanceof ServiceBadRequestError || error instanceof ServiceNotFoundError)
      throw new ExecutionStop('rejected', `the service refused the quote: ${error.shortMessage}`, {
        cause: error,
      })
    throw error
  }
}

/** A dry run ends here: the execute is signed and stored, never sent; the manager gives its nonce back. */
async function dryRunEnd(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: {
    execution: ExecutionRecord
    data: `0x${string}`
    gas: bigint
    plan: Awaited<ReturnType<typeof planApprovals>>
    simulation: string
  },
): Promise<Submission> {
  const { execution, data, gas, plan, simulation } = parameters
  const { record } = await chain.transactions.send(
    { kind: 'execute', to: chain.executorAddress, data, gas },
    { executionId: execution.id, check: () => assertNotHalted(context) },
  )
  const approvals = plan.approvals
    .map((approval) => `approve(${approval.spender}, ${approval.amount})`)
    .join(', ')
  const moved = moveExecution(
    context,
    execution,
    'rejected',
    `dry run: execute ${record.hash} signed (${simulation}) and not broadcast${approvals ? `; would first send ${approvals}` : ''}`,
  )
  return { execution: moved }
}
