import type { Price } from '@stockroute/client/domain/units.js'
import type { Hex } from 'viem'
import type { ExecutionEvent, ExecutionRecord } from '../store/executions.js'
import type { TransactionKind } from '../store/transactions.js'
import type { MarketStatusSource } from './marketStatus.js'
import type { EngineSettings } from './settings.js'
import type {
  ExecutionControls,
  ExecutionStore,
  InclusionWait,
  Instrument,
  InstrumentResolver,
  QuoteAdmission,
  QuoteSource,
  QuoteWindows,
  SettlementWaiters,
} from './types.js'

/** A structured logger (pino's shape). The engine logs nothing unless given one. */
export type EngineLogger = {
  debug: (fields: Record<string, unknown>, message: string) => void
  info: (fields: Record<string, unknown>, message: string) => void
  warn: (fields: Record<string, unknown>, message: string) => void
  error: (fields: Record<string, unknown>, message: string) => void
}

/** A point in the life of a transaction, reported to {@link EngineHooks.onStep}. */
export type TransactionStep = {
  /**
   * `signed`: stored in the ledger, not yet sent; `sending`: handed to the node this moment, no
   * answer yet; `broadcast`: the node accepted it, the ledger does not say so yet; `receipt`: its
   * receipt was read, nothing of it is in the ledger yet.
   */
  step: 'signed' | 'sending' | 'broadcast' | 'receipt'
  executionId: number | null
  chainId: number
  kind: TransactionKind
  hash: Hex
  nonce: number
}

/**
 * Observers of the engine. They run synchronously at the moment they name, so a test can stop the
 * process at the worst moment (SIGKILL right after signing, after broadcast, after the receipt) and
 * check that recovery still ends with exactly one execution on chain.
 */
export type EngineHooks = {
  /** After each state change of an execution, once it is committed. */
  onTransition?: ((event: ExecutionEvent, execution: ExecutionRecord) => void) | undefined
  onStep?: ((step: TransactionStep) => void) | undefined
  /**
   * An execution reached a stage of the pipeline: `quoteRequested` right before its router quote is
   * asked for, `quoteReceived` the moment it arrives (the moves to `quoting` and `quoted` are
   * committed later, with the execute or the stop), `prepared` when the quote is guarded and the
   * execute simulated, right before it asks for the wallet's critical section.
   */
  onStage?: ((event: EngineStageEvent) => void) | undefined
  /**
   * The recording of mined transactions waited for other executions' held quotes (quoteWindows.ts):
   * how long, and whether `maxInclusionDelayMs` ended the wait rather than the quotes.
   */
  onInclusionWait?: ((wait: InclusionWait) => void) | undefined
}

/** A stage an execution reached: the quote id once there is one. */
export type EngineStageEvent =
  | { stage: 'quoteRequested'; chainId: number; executionId: number }
  | { stage: 'quoteReceived' | 'prepared'; chainId: number; executionId: number; quoteId: string }

/** Every hook of {@link EngineHooks}, present. */
export type EngineHookFunctions = { [Hook in keyof EngineHooks]-?: NonNullable<EngineHooks[Hook]> }

/** The latest market price of an instrument, in its market's currency. */
export type MarketPriceSource = (
  instrument: Instrument,
  options: { signal?: AbortSignal | undefined },
) => Promise<Price>

/**
 * What every part of the engine is built over. The ledger and the service are given as the parts
 * the engine uses (types.ts): the ledger (`Ledger`) and the service client (`ServiceClient`) are
 * both, and a test can give small fakes.
 */
export type EngineContext = {
  /** The executions, their transactions and fills, allowances, checkpoints and risk (a `Ledger`). */
  ledger: ExecutionStore
  /** Where router quotes come from (a `ServiceClient`). */
  service: QuoteSource
  settings: EngineSettings
  resolveInstrument: InstrumentResolver
  marketPrice: MarketPriceSource
  /**
   * The latest market quote status of an instrument (written by the market-price source): a buy is
   * refused while it is not `normal` (guard rule `market-status`). Absent: statuses are not known.
   */
  marketStatus?: MarketStatusSource | undefined
  /** Unix milliseconds; every time decision uses it. */
  now: () => number
  hooks: EngineHooks
  logger: EngineLogger | undefined
  /** Woken by the settlement loop when the chain ends an execution. */
  settlements: SettlementWaiters
  /** The executions running now: their abort and whether they reached a signature (cancelExecution.ts). */
  executionControls: ExecutionControls
  /** Executions between asking for a quote and handing their execute to the node (quoteAdmission.ts). */
  admission: QuoteAdmission
  /** Executions holding a router quote now; inclusions wait for them to pass (quoteWindows.ts). */
  quoteWindows: QuoteWindows
}
