import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Address, LocalAccount } from 'viem'
import { type ExecutionRecord, ExecutionStateError } from '../store/executions.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import { createTransactionManager } from '../transactions/createTransactionManager.js'
import type { SigningFence } from '../transactions/signingFence.js'
import type { TransactionManagerEvent, TransactionManagerStatus } from '../transactions/types.js'
import { type CancelOutcome, cancelExecution } from './cancelExecution.js'
import { createChainRuntimes, type EngineChainConfig, minimumValidity } from './chainRuntime.js'
import type { EngineContext, EngineHooks, EngineLogger, MarketPriceSource } from './context.js'
import { EngineError } from './errors.js'
import { createExecutionTracker, type ExecutionOutcome, type FollowedExecution } from './executionTracker.js'
import { checkIntent, type SwapIntent } from './intent.js'
import { logManagerEvent } from './logManagerEvent.js'
import { cachedMarketPrice, serviceMarketPrice } from './marketPrice.js'
import { createMarketStatusBook, type MarketStatusSource } from './marketStatus.js'
import { previewIntent, type QuotePreview } from './previewIntent.js'
import { createQuoteAdmission } from './quoteAdmission.js'
import { createQuoteWindows } from './quoteWindows.js'
import { type RecoveryReport, recordFillsSinceCheckpoint, recoverExecutions } from './recoverExecutions.js'
import { createInstrumentResolver } from './resolveInstrument.js'
import { runExecution } from './runExecution.js'
import { defaultEngineSettings, type EngineSettings } from './settings.js'
import { createSettlementLoop, createSettlementWaiters } from './settlement.js'
import type { ChainRuntime } from './types.js'

export type { ExecutionOutcome, FollowedExecution } from './executionTracker.js'
export type { QuotePreview } from './previewIntent.js'

export type CreateEngineParameters = {
  /** The ledger (dry runs: a file of their own). */
  ledger: Ledger
  /** The service client: API key credentials and the wallet's address as `makerAddress`. */
  service: ServiceClient
  /** The taker wallet, the same on every chain. */
  account: LocalAccount
  chains: readonly EngineChainConfig[]
  settings?: Partial<EngineSettings> | undefined
  /** Default: the service's market quote (`close`) of the instrument's stock, cached `marketPriceMaxAgeMs`. */
  marketPrice?: MarketPriceSource | undefined
  /**
   * The latest market quote status of an instrument, beside a caller's `marketPrice` (the daemon's
   * cache gives both); a buy is refused while it is not `normal`. Default: the statuses of the
   * engine's own market quotes, or none when `marketPrice` is given without it.
   */
  marketStatus?: MarketStatusSource | undefined
  /** Unix milliseconds; default `Date.now`. */
  now?: (() => number) | undefined
  hooks?: EngineHooks | undefined
  logger?: EngineLogger | undefined
  /** Each transaction manager's events (recovery steps, gap fills, replacements, reorgs), besides the log. */
  onTransactionEvent?: ((chainId: number, event: TransactionManagerEvent) => void) | undefined
  /** Cluster mode: each wallet's lease, checked before every signature (docs/scale-out.md). */
  fenceFor?: ((chainId: number, wallet: Address) => SigningFence) | undefined
  signal?: AbortSignal | undefined
}

/** An execution as the ledger has it: its row with its state and reason, its transactions, its fills. */
/** The execution engine: one wallet, several chains, one ledger. */
export type Engine = {
  readonly chains: ReadonlyMap<number, ChainRuntime>
  readonly settings: EngineSettings
  /** Reconciles everything a previous run left unfinished (run it once, before new intents). */
  recover(options?: { signal?: AbortSignal | undefined }): Promise<RecoveryReport>
  /**
   * Records the settlements in the executors' logs since each chain's checkpoint as fills (those
   * of this ledger's quotes, idempotently) and moves the checkpoints to the heads.
   */
  syncSettlements(): Promise<Pick<RecoveryReport, 'fillsRecorded' | 'unattributedFills'>>
  /**
   * Records the intent and starts its execution; resolves once it is recorded, with the
   * execution's id and a promise of its end. An intent id seen before is not executed again: its
   * execution is followed (or, finished, returned).
   */
  submit(intent: SwapIntent, options?: { signal?: AbortSignal | undefined }): Promise<FollowedExecution>
  /** `submit` and wait for the end. */
  execute(intent: SwapIntent, options?: { signal?: AbortSignal | undefined }): Promise<ExecutionOutcome>
  /** Quote and guard an intent without executing it. */
  preview(intent: SwapIntent, options?: { signal?: AbortSignal | undefined }): Promise<QuotePreview>
  outcome(executionId: number): ExecutionOutcome
  /**
   * Cancels an execution with nothing signed yet (it ends `rejected` with the reason); refused for
   * one with a signed transaction or a terminal one. See {@link cancelExecution}.
   */
  cancel(executionId: number, reason: string): Promise<CancelOutcome>
  /** Each chain's transaction manager: recovering or ready, next nonce, pending, gaps filled, replacements, reorgs. */
  transactionStatus(): TransactionManagerStatus[]
  /** Refuses new intents, waits for the executions in flight to end, stops the transaction managers. */
  close(): Promise<void>
}

/**
 * Builds the engine: checks each configured chain against the service and the chain (pinned
 * executor and operator, chain id, asset decimals), then executes intents one chain queue at a
 * time. Call `recover()` once before submitting.
 *
 * @example
 * const engine = await createEngine({ ledger, service, account, chains: config.chains })
 * await engine.recover()
 * const { execution, fills } = await engine.execute({
 *   intentId: 'buy-aapl-1', chainId: 31337, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000',
 * })
 * execution.state // 'confirmed'
 */
export async function createEngine(parameters: CreateEngineParameters): Promise<Engine> {
  const { ledger, service, account } = parameters
  const settings: EngineSettings = { ...defaultEngineSettings, ...parameters.settings }
  const context = engineContextOf(parameters, settings)
  const settlement = createSettlementLoop(
    context,
    { ids: () => [...chains.keys()], of: (chainId) => chainOf(chainId) },
    context.settlements,
  )
  const chains: Map<number, ChainRuntime> = await createChainRuntimes(
    {
      service,
      account,
      chains: parameters.chains,
      pipelineDepth: settings.pipelineDepth,
      onRetry: (chainId, message) => {
        context.logger?.warn({ chainId }, message)
        parameters.onTransactionEvent?.(chainId, {
          kind: 'recovery',
          message: `chain ${chainId}: ${message}`,
        })
      },
      createManager: managerFactory(context, parameters, {
        chainOf: (chainId) => chainOf(chainId),
      }),
    },
    parameters.signal ? { signal: parameters.signal } : {},
  )
  // Reports name each chain's amounts by its asset's symbol.
  for (const { chainId, asset } of chains.values()) ledger.chainAssets.record({ chainId, ...asset })
  let started = false
  const recovering = new Set<Promise<RecoveryReport>>()
  /**
   * The managers start with the first recovery or submission: a preview never signs anything. What
   * a previous run's managers recorded and did not see settled is settled first.
   */
  const start = () => {
    if (started) return
    started = true
    void settlement.settleNow()
    for (const chain of chains.values()) for (const wallet of chain.wallets) wallet.transactions.start()
  }
  const executions = createExecutionTracker(ledger)
  let closed = false

  const chainOf = (chainId: number) => chainIn(chains, chainId)

  const engine: Engine = {
    chains,
    settings,
    async recover(options = {}) {
      start()
      await settlement.settleNow()
      const run = recoverExecutions(context, chains, options)
      recovering.add(run)
      return run.finally(() => recovering.delete(run))
    },
    transactionStatus() {
      return [...chains.values()].flatMap((chain) =>
        chain.wallets.map((wallet) => wallet.transactions.status()),
      )
    },
    async syncSettlements() {
      const counts = { fillsRecorded: 0, unattributedFills: 0 }
      await Promise.all(
        [...chains.values()].map((chain) => recordFillsSinceCheckpoint(context, chain, counts)),
      )
      return counts
    },
    async submit(intent, options = {}) {
      if (closed)
        throw new EngineError({
          code: 'ENGINE_CLOSED',
          shortMessage: 'The engine is closed: it takes no new intents.',
          remedy:
            'submit the intent to an engine that runs (a new createEngine, or the daemon once it is started again)',
        })
      const existing = executions.follow(intent.intentId)
      if (existing) return existing
      const chain = chainOf(intent.chainId)
      start()
      const execution = await recordIntent(context, ledger, chain, intent, options)
      if (execution === 'recorded by another submit') {
        const first = executions.follow(intent.intentId)
        if (first) return first
        throw new Error(`intent ${intent.intentId}: recorded by another submit, then not found`)
      }
      return {
        executionId: execution.id,
        created: true,
        done: executions.track(execution.id, runExecution(context, chain, execution, options)),
      }
    },
    async execute(intent, options = {}) {
      const { done } = await engine.submit(intent, options)
      return done
    },
    preview: (intent, options = {}) => previewIntent(context, chainOf(intent.chainId), intent, options),
    outcome: executions.outcome,
    cancel: (executionId, reason) => cancelExecution(context, executionId, reason),
    async close() {
      closed = true
      await Promise.allSettled([executions.idle(), ...recovering])
      await stopChains(chains)
      // What the managers recorded last is settled before the ledger closes.
      await settlement.settleNow()
      await settlement.stop()
    },
  }
  return engine
}

/** The configured chain `chainId`; throws {@link EngineError} `UNKNOWN_CHAIN`. */
function chainIn(chains: ReadonlyMap<number, ChainRuntime>, chainId: number): ChainRuntime {
  const chain = chains.get(chainId)
  if (!chain)
    throw new EngineError({
      code: 'UNKNOWN_CHAIN',
      shortMessage: `Chain ${chainId} is not configured: configured chains are ${[...chains.keys()].join(', ')}.`,
      remedy: 'trade on one of the configured chains, or add this one to the configuration\'s "chains"',
      details: { chainId },
    })
  return chain
}

/** Each wallet's queue drained, then its transaction manager and each chain's block watcher stopped. */
async function stopChains(chains: ReadonlyMap<number, ChainRuntime>): Promise<void> {
  const wallets = [...chains.values()].flatMap((chain) => chain.wallets)
  await Promise.all(wallets.map((wallet) => wallet.pipeline.onIdle()))
  await Promise.all(wallets.map((wallet) => wallet.transactions.stop()))
  await Promise.all([...chains.values()].map((chain) => chain.blocks.stop()))
}

/**
 * Builds each wallet's transaction manager: the engine's held quotes go before its inclusions, its
 * events go to the log and the caller. (What it records for the engine, the settlement loop reads
 * from the ledger.)
 */
function managerFactory(
  context: EngineContext,
  parameters: CreateEngineParameters,
  engine: { chainOf: (chainId: number) => ChainRuntime },
): Parameters<typeof createChainRuntimes>[0]['createManager'] {
  return (runtime, wallet) =>
    createTransactionManager({
      chainId: runtime.chainId,
      ledger: parameters.ledger,
      account: wallet.account,
      publicClient: runtime.publicClient,
      walletClient: wallet.walletClient,
      blocks: runtime.blocks,
      settings: runtime.transactionSettings,
      timeToLandMs: () => minimumValidity(context, engine.chainOf(runtime.chainId), context.now()),
      beforeInclusions: () => context.quoteWindows.passed(),
      dryRun: context.settings.dryRun,
      fence: parameters.fenceFor?.(runtime.chainId, wallet.account.address),
      now: context.now,
      onEvent: (event) => {
        logManagerEvent(context, runtime.chainId, event)
        parameters.onTransactionEvent?.(runtime.chainId, event)
      },
      onStep: ({ step, tx }) => context.hooks.onStep?.({ step, ...transactionStepOf(tx) }),
    })
}

/** The context every part of the engine is built over. */
function engineContextOf(parameters: CreateEngineParameters, settings: EngineSettings): EngineContext {
  const { ledger, service } = parameters
  // The engine's own price source writes each quote's status here; a caller's source, its own.
  const statuses = createMarketStatusBook()
  return {
    ledger,
    service,
    settings,
    resolveInstrument: createInstrumentResolver(service),
    // A caller's source owns its freshness (the daemon's price cache); the engine's own fetch is
    // cached for marketPriceMaxAgeMs, so the deviation guard does not cost a request per execution.
    marketPrice:
      parameters.marketPrice ??
      cachedMarketPrice(serviceMarketPrice(service, statuses), { maxAgeMs: settings.marketPriceMaxAgeMs }),
    marketStatus:
      parameters.marketStatus ?? (parameters.marketPrice === undefined ? statuses.latest : undefined),
    now: parameters.now ?? Date.now,
    hooks: parameters.hooks ?? {},
    logger: parameters.logger,
    settlements: createSettlementWaiters(),
    executionControls: new Map(),
    admission: createQuoteAdmission({ ceiling: settings.maxQuotesInFlight }),
    quoteWindows: createQuoteWindows({
      maxWaitMs: settings.maxInclusionDelayMs,
      onWaited: (wait) => parameters.hooks?.onInclusionWait?.(wait),
    }),
  }
}

function transactionStepOf(tx: TransactionRecord) {
  return { executionId: tx.executionId, chainId: tx.chainId, kind: tx.kind, hash: tx.hash, nonce: tx.nonce }
}

/**
 * Checks an intent against its instrument and records it as a new execution, committed with the
 * other intents of this moment (one fsync for a burst), before any work. Another submit of the same
 * intent may have recorded it meanwhile (while this one resolved the ticker, or in the same moment):
 * then that one is to be followed.
 */
async function recordIntent(
  context: EngineContext,
  ledger: Ledger,
  chain: ChainRuntime,
  intent: SwapIntent,
  options: { signal?: AbortSignal | undefined },
): Promise<ExecutionRecord | 'recorded by another submit'> {
  const instrument = await context.resolveInstrument(intent, options.signal ? { signal: options.signal } : {})
  const checked = checkIntent(intent, instrument, chain.asset.decimals)
  if (ledger.executions.getExecutionByIntent(intent.intentId)) return 'recorded by another submit'
  const execution = await ledger
    .commitSoon(() =>
      ledger.executions.createExecution({
        intentId: checked.intentId,
        chainId: checked.chainId,
        ticker: checked.ticker,
        exchange: checked.exchange,
        side: checked.side,
        amountIn: checked.amountIn,
        amountType: checked.amountType,
        limitPrice: checked.limitPrice,
        strategy: checked.strategy,
      }),
    )
    .catch((error: unknown) => {
      // The same intent submitted twice in one moment: the first recorded it; follow that one.
      if (error instanceof ExecutionStateError && error.code === 'DUPLICATE_INTENT') return undefined
      throw error
    })
  if (!execution) return 'recorded by another submit'
  const created = ledger.executions.listExecutionEvents(execution.id).at(-1)
  if (created) context.hooks.onTransition?.(created, execution)
  return execution
}
