import { type Address, encodeFunctionData, type Hex } from 'viem'
import { type GetRouterQuoteReturnType, getRouterQuote } from '../api/actions/getRouterQuote.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '../api/errors.js'
import { toSignedQuoteStruct } from '../api/quoteStruct.js'
import { type AllowanceLayout, allowanceSlotOf } from '../chain/allowanceSlot.js'
import { readAllowance } from '../chain/erc20.js'
import { executorAbi } from '../chain/executorAbi.js'
import { type SimulateExecuteReturnType, simulateExecute } from '../chain/simulateExecute.js'
import type { ExecutionRecord } from '../store/executions.js'
import { toNotional } from '../store/risk.js'
import { failpoint } from '../transactions/index.js'
import { minimumValidity } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'
import { givenAmountText } from './givenAmount.js'
import { guardQuote } from './guardQuote.js'
import type { CheckedIntent } from './intent.js'
import { riskProblemOf } from './pendingQuote.js'
import { type AllowanceReading, approvalTarget, readAllowanceState } from './planApprovals.js'
import { routerQuoteParametersOf } from './quoteRequest.js'
import { storedQuoteOf } from './storedQuote.js'
import type { ChainRuntime, ChainWallet, Instrument, PendingQuote, QuoteWindow } from './types.js'

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

/**
 * Stage one of an execution, concurrent with other executions of the chain and wallet: the router
 * quote (with the market price from the cache and the allowance on chain beside it), the risk
 * check and the move to `quoted` in one write, the guard, and ONE simulation of the execute with
 * the allowance it will have once its approval (not yet signed) lands, as a state override of the
 * token's allowance slot. Nothing is signed here. A stop for good throws {@link ExecutionStop}; a
 * quote that dropped for time (or for an allowance our own transactions are still bringing) asks
 * for a re-quote while attempts remain.
 *
 * @example
 * const outcome = await prepareExecution(context, chain, wallet, { execution, intent, instrument, attempt: 1, signal })
 * if (outcome.ok) await submitPrepared(context, chain, wallet, outcome.prepared, { attempt: 1, signal })
 */
export async function prepareExecution(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: {
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
  },
): Promise<PrepareOutcome> {
  const { settings } = context
  const { intent, instrument, attempt, signal } = parameters
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
  let priceReadAt = requestedAt
  let receivedAtMs = requestedAt
  // The quote's clock starts when it arrives, even if the market price beside it is still on its
  // way (the price cache asks ahead, so that is rare: the first quote, or after a quiet spell).
  const [reply, marketPrice] = await Promise.all([
    requestQuote(context, chain, intent, instrument, signal).then((quoted) => {
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
  failpoint('quote-received')
  const notional = reply.quote.isBuy ? reply.quote.amountInUsed : reply.quote.amountOut
  // Written with the next commit, the critical section's or the stop's (see pendingQuote.ts).
  const quoted: PendingQuote = {
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
      marketPrice: { price: marketPrice, atMs: priceReadAt, fxRate: settings.fxRates[instrument.market] },
    },
    notional: toNotional(notional, chain.asset.decimals),
    chainId: chain.chainId,
    assetSymbol: chain.asset.symbol,
  }
  const stop = (to: ExecutionStop['to'], reason: string) => new ExecutionStop(to, reason, { quoted })

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
    settings,
    minValidityMs: minimumValidity(context, chain, context.now()),
    now: context.now,
  })
  if (!verdict.ok) {
    const timeRule = verdict.rule === 'validity' || verdict.rule === 'expired'
    if (timeRule && attempt < settings.maxQuoteAttempts)
      return {
        ok: false,
        requote: `quote ${reply.quote.quoteId} dropped (${verdict.message})`,
        dropped: quoted,
      }
    if (timeRule)
      throw stop('expired', `no quote with enough validity after ${attempt} attempts: ${verdict.message}`)
    throw stop('rejected', `guard ${verdict.rule}: ${verdict.message}`)
  }
  // Read here to stop early; checked again in the commit that counts the notional (pendingQuote.ts).
  const riskProblem = riskProblemOf(context, quoted)
  if (riskProblem) throw stop('rejected', `risk limit: ${riskProblem}`)

  const { allowance, data, result, simulation, approveFirst } = await simulated
  const prepared = {
    execution: parameters.execution,
    quoted,
    reply,
    data,
    allowance,
    approveFirst,
    simulation,
  }
  if (result === undefined) return { ok: true, prepared: { ...prepared, gas: settings.executeGasLimit } }
  if (!result.ok) {
    if (result.errorName === 'QuoteExpired' && attempt < settings.maxQuoteAttempts)
      return {
        ok: false,
        requote: `quote ${reply.quote.quoteId} dropped: the simulation ${result.message}`,
        dropped: quoted,
      }
    // Short of allowance while our own transactions are still landing (no override possible): a
    // new quote plans again from what has landed by then.
    if (
      result.errorName === 'ERC20InsufficientAllowance' &&
      wallet.transactions.status().pending > 0 &&
      attempt < settings.maxQuoteAttempts
    )
      return {
        ok: false,
        requote: `quote ${reply.quote.quoteId} dropped: the simulation ${result.message} while the wallet's transactions were still landing`,
        dropped: quoted,
      }
    throw stop(
      result.errorName === 'QuoteExpired' ? 'expired' : 'failed',
      `the simulation of execute ${result.message}: nothing was sent`,
    )
  }
  return {
    ok: true,
    prepared: { ...prepared, gas: result.gas + (result.gas * BigInt(settings.gasBufferBps)) / 10_000n },
  }
}

/** The allowance on chain and the token's allowance slot, asked for before the quote arrives. */
type AllowanceAhead = {
  /** The token's allowance layout when an override will be tried (simulating, overrides on, or a dry run). */
  layout: Promise<AllowanceLayout | undefined>
  onChain: Promise<bigint>
  /** The block watcher's head when the reading was asked for: the reading includes our transactions mined up to it. */
  atBlock: bigint | undefined
}

/**
 * Starts the allowance reading for an execution whose quote is being asked for. Both promises are
 * awaited only once the quote is in hand: a quote that never comes leaves their answers (or
 * failures) unread, which is harmless (they are reads).
 */
function readAllowanceAhead(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  token: Address,
  signal: AbortSignal | undefined,
): AllowanceAhead {
  const { settings } = context
  const owner = wallet.account.address
  const spender = chain.executorAddress
  // A dry run sends no approval to simulate after: it tries the override whatever the setting
  // (a node that refuses overrides just yields no layout).
  const layout =
    settings.simulate && (settings.allowanceOverride || settings.dryRun)
      ? chain.allowanceLayouts.layoutOf(token, owner, spender, { signal })
      : Promise.resolve(undefined)
  // Read at the block watcher's head, so that which of our transactions the reading includes is
  // known exactly (those mined after it still count as pending).
  const atBlock = wallet.transactions.head()
  const onChain = readAllowance(
    chain.publicClient,
    { token, owner, spender, blockNumber: atBlock },
    { signal },
  )
  layout.catch(() => undefined)
  onChain.catch(() => undefined)
  return { layout, onChain, atBlock }
}

/**
 * ONE simulation of the execute with the allowance it will find, beside the allowance reading
 * asked for with the quote. With the token's allowance slot known, the simulation leaves at once:
 * it overrides the slot with the amount an approval would set, which covers the quote just as the
 * allowance the execute will find does (the reading or our pending approvals cover it, or the
 * approval planned in the critical section will). Without the slot, the execute is simulated after
 * the reading, as is, or not at all when an approval is needed (it goes first then). No simulation
 * (`result` undefined) when simulating is off.
 */
async function simulateWithApproval(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: {
    reply: GetRouterQuoteReturnType
    token: Address
    allowanceAhead: AllowanceAhead
    signal: AbortSignal | undefined
  },
): Promise<{
  allowance: AllowanceReading
  data: Hex
  result: SimulateExecuteReturnType | undefined
  simulation: string
  approveFirst: boolean
}> {
  const { settings } = context
  const { reply, token, allowanceAhead, signal } = parameters
  const owner = wallet.account.address
  const spender = chain.executorAddress
  const needed = reply.quote.amountInUsed
  const target = approvalTarget(needed, settings.approvalPolicy)
  const struct = toSignedQuoteStruct(reply.quote)
  const data = encodeFunctionData({
    abi: executorAbi,
    functionName: 'execute',
    args: [struct, reply.signature],
  })
  const layout = await allowanceAhead.layout
  const simulate = (override: bigint | undefined) =>
    simulateExecute(
      chain.publicClient,
      {
        executor: spender,
        quote: struct,
        signature: reply.signature,
        taker: owner,
        // Our pending executes spend balances the latest block still shows.
        blockTag: wallet.transactions.status().pending > 0 ? 'pending' : 'latest',
        allowance:
          layout && override !== undefined
            ? { token, slot: allowanceSlotOf(layout, owner, spender), amount: override }
            : undefined,
      },
      { signal },
    )
  const { atBlock } = allowanceAhead
  const early = layout ? simulate(target) : undefined
  early?.catch(() => undefined)
  const onChain = await allowanceAhead.onChain
  const allowance = await readAllowanceState(
    chain.publicClient,
    {
      token,
      owner,
      spender,
      needed,
      policy: settings.approvalPolicy,
      onChain,
      atBlock,
      resetFirstTokens: chain.resetFirstTokens,
    },
    { signal },
  )
  const needsApproval =
    wallet.transactions.allowanceOutlook(token, spender, onChain, atBlock).atLeast < needed
  const base = { allowance, data }
  if (!settings.simulate)
    return { ...base, result: undefined, simulation: 'not simulated', approveFirst: false }
  if (!early && needsApproval)
    return {
      ...base,
      result: undefined,
      simulation: settings.dryRun
        ? "not simulated: it needs its approval, the token's allowance slot is unknown (no override possible) and a dry run sends no approval"
        : 'to be simulated after its approval (no allowance override)',
      approveFirst: true,
    }
  const result = await (early ?? simulate(undefined))
  const simulation = result.ok
    ? `simulated${needsApproval ? ` with the allowance of its approval (${givenAmountText(chain.asset, reply.quote, target)})` : ''}, gas ${result.gas}`
    : `simulation failed: ${result.message}`
  return { ...base, result, simulation, approveFirst: false }
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
