import {
  type GetRouterQuoteReturnType,
  getRouterQuote,
} from '@stockroute/client/api/actions/getRouterQuote.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import type { Price } from '@stockroute/client/domain/units.js'
import type { Hex } from 'viem'
import type { SimulateExecuteReturnType } from '../chain/simulateExecute.js'
import type { ExecutionRecord } from '../store/executions.js'
import { toNotional } from '../store/risk.js'
import { failpoint } from '../transactions/index.js'
import { minimumValidity } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'
import { type GuardVerdict, guardQuote } from './guardQuote.js'
import type { CheckedIntent } from './intent.js'
import { riskProblemOf } from './pendingQuote.js'
import type { AllowanceReading } from './planApprovals.js'
import { routerQuoteParametersOf } from './quoteRequest.js'
import {
  readAllowanceAhead,
  type SimulatedWithApproval,
  simulateWithApproval,
} from './simulateWithApproval.js'
import { storedQuoteOf } from './storedQuote.js'
import type {
  ChainRuntime,
  ChainWallet,
  Instrument,
  PendingQuote,
  QuoteSource,
  QuoteWindow,
} from './types.js'

/** An execution ready for the wallet's critical section: its quote guarded, its execute simulated. */
export type PreparedExecution = {
  /** As last committed: its quote is {@link PreparedExecution.quoted}, written with the critical section's commit. */
  execution: ExecutionRecord
  quoted: PendingQuote
  reply: GetRouterQuoteReturnType
  /** The `execute(quote, signature)` call data. */
  data: Hex
  gas: bigint
  /** What the simulation said, for the execution's history. */
  simulation: string
  /** The allowance as read: the critical section plans the approvals from it and the pending ones. */
  allowance: AllowanceReading
  /**
   * The token's allowance cannot be overridden in a simulation (its storage layout is unknown) and
   * an approval is needed: it is sent and mined before the execute is simulated.
   */
  approveFirst: boolean
}

/** Stage one's answer: ready, or this quote is dropped and a new one should be asked for (why). */
export type PrepareOutcome =
  | { ok: true; prepared: PreparedExecution }
  | { ok: false; requote: string; dropped: PendingQuote | undefined }

/** The execution stage one prepares, and what it needs to ask for its quote. */
export type PrepareParameters = {
  /** In the state it was left in (`intent`, a dropped quote's `quoted`, `approving`): it passes `quoting` when its quote arrives. */
  execution: ExecutionRecord
  /** Why a quote is requested (the `quoting` move's reason). */
  why: string
  /** The quote dropped before this one, not written yet: written with this one. */
  earlier: PendingQuote | undefined
  intent: CheckedIntent
  instrument: Instrument
  attempt: number
  signal: AbortSignal | undefined
  /** Opened when the quote arrives: inclusions wait while it is held (quoteWindows.ts). */
  window?: QuoteWindow | undefined
}

/** A dropped quote: a new one is asked for (why). */
type Requote = Extract<PrepareOutcome, { ok: false }>

/**
 * Stage one of an execution, concurrent with other executions of the chain and wallet: the router
 * quote (with the market price from the cache and the allowance on chain beside it), the risk
 * check and the move to `quoted` in one write, the guard, and ONE simulation of the execute with
 * the allowance it will have once its approval (not yet signed) lands, as a state override of the
 * token's allowance slot (simulateWithApproval.ts). Nothing is signed here. A stop for good throws
 * {@link ExecutionStop}; a quote that dropped for time (or for an allowance our own transactions
 * are still bringing) asks for a re-quote while attempts remain.
 *
 * @example
 * const outcome = await prepareExecution(context, chain, wallet, { execution, intent, instrument, attempt: 1, signal })
 * if (outcome.ok) await submitPrepared(context, chain, wallet, outcome.prepared, { attempt: 1, signal })
 */
export async function prepareExecution(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: PrepareParameters,
): Promise<PrepareOutcome> {
  const { intent, instrument, signal } = parameters
  const token = intent.side === 'buy' ? chain.asset.address : instrument.tokenAddress
  const requestedAt = context.now()
  context.hooks.onStage?.({
    stage: 'quoteRequested',
    chainId: chain.chainId,
    executionId: parameters.execution.id,
  })
  // The allowance (and, once per token, its storage slot) is read while the quote is on its way:
  // its answer is in hand when the quote arrives, and the node has just served a call when the
  // simulation reaches it (a quiet node answers its first call after an idle spell slower).
  const allowanceAhead = readAllowanceAhead(context, chain, wallet, token, signal)
  const arrival = await quoteBesideMarketPrice(context, chain, parameters, requestedAt)
  failpoint('quote-received')
  const { reply, marketPrice } = arrival
  // Written with the next commit, the critical section's or the stop's (see pendingQuote.ts).
  const quoted = pendingQuoteOf(context, chain, parameters, arrival)

  // The simulation asks the node while the guard checks the signature: the node's time and ours
  // overlap. Its answer is used only if the guard accepts the quote (it is a read: nothing is sent).
  // Its request leaves first: begun alone, the guard's synchronous checks ran before the batch of
  // the turn was flushed, and the question waited for them (about 0.6 ms a quote).
  const simulated = simulateWithApproval(context, chain, wallet, { reply, token, allowanceAhead, signal })
  simulated.catch(() => undefined)
  await chain.sendQueuedReads()
  const verdict = await guardQuote({
    intent,
    instrument,
    chain,
    reply,
    marketPrice,
    marketPriceAtMs: arrival.priceReadAt,
    marketStatus: context.marketStatus?.(instrument)?.status,
    settings: context.settings,
    minValidityMs: minimumValidity(context, chain, context.now()),
    now: context.now,
  })
  if (!verdict.ok) return requoteOrStopForGuard(context, verdict, parameters.attempt, quoted)
  // Read here to stop early; checked again in the commit that counts the notional (pendingQuote.ts).
  const riskProblem = riskProblemOf(context, quoted)
  if (riskProblem) throw new ExecutionStop('rejected', `risk limit: ${riskProblem}`, { quoted })

  return preparedOrRequote(context, wallet, parameters, { quoted, reply }, await simulated)
}

/** The router quote and the market price beside it, and when each arrived (Unix ms). */
type QuoteArrival = {
  reply: GetRouterQuoteReturnType
  marketPrice: Price
  receivedAtMs: number
  priceReadAt: number
  requestedAt: number
}

/**
 * Asks for the router quote and the market price together. The quote's clock starts when it
 * arrives, even if the market price beside it is still on its way (the price cache asks ahead, so
 * that is rare: the first quote, or after a quiet spell): its window opens and its stage is told then.
 */
async function quoteBesideMarketPrice(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: Pick<PrepareParameters, 'execution' | 'intent' | 'instrument' | 'signal' | 'window'>,
  requestedAt: number,
): Promise<QuoteArrival> {
  const { intent, instrument, signal } = parameters
  let priceReadAt = requestedAt
  let receivedAtMs = requestedAt
  const [reply, marketPrice] = await Promise.all([
    requestQuote(context.service, chain, intent, instrument, signal).then((quoted) => {
      receivedAtMs = context.now()
      parameters.window?.open()
      context.hooks.onStage?.({
        stage: 'quoteReceived',
        chainId: chain.chainId,
        executionId: parameters.execution.id,
        quoteId: quoted.quote.quoteId,
      })
      return quoted
    }),
    context.marketPrice(instrument, { signal }).then((price) => {
      priceReadAt = context.now()
      return price
    }),
  ])
  return { reply, marketPrice, receivedAtMs, priceReadAt, requestedAt }
}

/** The quote as it will be written with the execution's next commit: its moves, notional and market price. */
function pendingQuoteOf(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: Pick<PrepareParameters, 'execution' | 'earlier' | 'why' | 'instrument'>,
  arrival: QuoteArrival,
): PendingQuote {
  const { reply, marketPrice, receivedAtMs, priceReadAt, requestedAt } = arrival
  const notional = reply.quote.isBuy ? reply.quote.amountInUsed : reply.quote.amountOut
  return {
    from: parameters.execution,
    earlier: parameters.earlier,
    why: parameters.why,
    requestedAtMs: requestedAt,
    reason: `quote ${reply.quote.quoteId} received, ${Math.round(receivedAtMs - requestedAt)} ms after it was requested`,
    receivedAtMs,
    patch: {
      quoteId: reply.quote.quoteId,
      quote: storedQuoteOf(reply, chain.asset.decimals),
      notional: { amount: notional, decimals: chain.asset.decimals },
      marketPrice: {
        price: marketPrice,
        atMs: priceReadAt,
        fxRate: context.settings.fxRates[parameters.instrument.market],
      },
    },
    notional: toNotional(notional, chain.asset.decimals),
    chainId: chain.chainId,
    assetSymbol: chain.asset.symbol,
  }
}

/**
 * A quote the guard refused: re-quoted while attempts remain when only its time was short
 * (`validity`, `expired`); otherwise the execution stops (thrown): `expired` once the attempts
 * are spent, `rejected` for any other rule.
 */
function requoteOrStopForGuard(
  context: EngineContext,
  verdict: Extract<GuardVerdict, { ok: false }>,
  attempt: number,
  quoted: PendingQuote,
): Requote {
  const timeRule = verdict.rule === 'validity' || verdict.rule === 'expired'
  if (timeRule && attempt < context.settings.maxQuoteAttempts)
    return {
      ok: false,
      requote: `quote ${quoted.patch.quoteId} dropped (${verdict.message})`,
      dropped: quoted,
    }
  if (timeRule)
    throw new ExecutionStop(
      'expired',
      `no quote with enough validity after ${attempt} attempts: ${verdict.message}`,
      { quoted },
    )
  throw new ExecutionStop('rejected', `guard ${verdict.rule}: ${verdict.message}`, { quoted })
}

/**
 * Stage one's answer once the guard and the risk limits accepted the quote: prepared with the
 * simulated gas and its buffer (the configured limit when nothing was simulated), or, when the
 * simulation failed, a re-quote or a stop ({@link requoteOrStopForSimulation}).
 */
function preparedOrRequote(
  context: EngineContext,
  wallet: ChainWallet,
  parameters: Pick<PrepareParameters, 'execution' | 'attempt'>,
  quote: { quoted: PendingQuote; reply: GetRouterQuoteReturnType },
  simulated: SimulatedWithApproval,
): PrepareOutcome {
  const { settings } = context
  const { allowance, data, result, simulation, approveFirst } = simulated
  const prepared = {
    execution: parameters.execution,
    quoted: quote.quoted,
    reply: quote.reply,
    data,
    allowance,
    approveFirst,
    simulation,
  }
  if (result === undefined) return { ok: true, prepared: { ...prepared, gas: settings.executeGasLimit } }
  if (!result.ok) return requoteOrStopForSimulation(context, wallet, result, parameters.attempt, quote.quoted)
  return {
    ok: true,
    prepared: { ...prepared, gas: result.gas + (result.gas * BigInt(settings.gasBufferBps)) / 10_000n },
  }
}

/**
 * A simulation of the execute that failed: re-quoted while attempts remain when the quote expired,
 * or when the allowance fell short while our own transactions are still landing (no override
 * possible: a new quote plans again from what has landed by then); otherwise the execution stops
 * (thrown) with nothing sent.
 */
function requoteOrStopForSimulation(
  context: EngineContext,
  wallet: ChainWallet,
  result: Extract<SimulateExecuteReturnType, { ok: false }>,
  attempt: number,
  quoted: PendingQuote,
): Requote {
  const attemptsLeft = attempt < context.settings.maxQuoteAttempts
  const quoteId = quoted.patch.quoteId
  if (result.errorName === 'QuoteExpired' && attemptsLeft)
    return {
      ok: false,
      requote: `quote ${quoteId} dropped: the simulation ${result.message}`,
      dropped: quoted,
    }
  if (
    result.errorName === 'ERC20InsufficientAllowance' &&
    wallet.transactions.status().pending > 0 &&
    attemptsLeft
  )
    return {
      ok: false,
      requote: `quote ${quoteId} dropped: the simulation ${result.message} while the wallet's transactions were still landing`,
      dropped: quoted,
    }
  throw new ExecutionStop(
    result.errorName === 'QuoteExpired' ? 'expired' : 'failed',
    `the simulation of execute ${result.message}: nothing was sent`,
    { quoted },
  )
}

/** Asks the service for the router quote; a request it refuses stops the execution (`rejected`). */
async function requestQuote(
  service: QuoteSource,
  chain: ChainRuntime,
  intent: CheckedIntent,
  instrument: Instrument,
  signal: AbortSignal | undefined,
) {
  try {
    return await getRouterQuote(
      service,
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
