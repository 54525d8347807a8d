// The engine's shared types, beside the context (context.ts) and the settings (settings.ts): what
// it needs of the ledger, the service and the transaction managers (narrow: a test can give small
// fakes), the chains and wallets it runs on, the instruments it resolves, the quotes it holds, and
// the parts of its context. Types only, from the layers below the engine: no engine implementation
// file is imported here, so every file of the engine can import them without closing a circle.

import type { CallOptions, ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { ExchangeCode, MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import type PQueue from 'p-queue'
import type { Address, Chain, Hex, HttpTransport, LocalAccount, PublicClient, WalletClient } from 'viem'
import type { AllowanceLayouts } from '../chain/allowanceSlot.js'
import type { InclusionTimes } from '../chain/inclusionTime.js'
import type { ExecutorDomain } from '../chain/readExecutorDomain.js'
import type { ResetFirstTokens } from '../chain/resetFirstTokens.js'
import type { KnownExecutor } from '../chain/verifyRouterQuote.js'
import type { ExecutionPatch, ExecutionRecord } from '../store/executions.js'
import type { Ledger } from '../store/openLedger.js'
import type { Notional } from '../store/risk.js'
import type { ChainBlocks } from '../transactions/chainBlocks.js'
import type { TransactionManager, TransactionManagerSettings } from '../transactions/types.js'

/**
 * The parts of the ledger the engine reads and writes through its context: executions and their
 * moves, their transactions, fills, open allowances, the settlement checkpoints, the risk
 * notional and the kill switch, one write transaction (`atomically`), and the storage fault that
 * stops everything. A {@link Ledger} is one; add here what the engine comes to need.
 */
export type ExecutionStore = Pick<Ledger, 'path' | 'storageFault' | 'atomically' | 'commitSoon'> & {
  readonly executions: Pick<
    Ledger['executions'],
    | 'getExecution'
    | 'getExecutionByQuoteId'
    | 'listUnfinishedExecutions'
    | 'listExecutionEvents'
    | 'transition'
  >
  readonly transactions: Pick<Ledger['transactions'], 'listTransactionsForExecution' | 'getTransaction'>
  /** What the transaction managers recorded about the chain's decisions, for the settlement loop. */
  readonly transactionOutcomes: Pick<
    Ledger['transactionOutcomes'],
    'listOutcomes' | 'deleteOutcome' | 'onRecorded'
  >
  readonly fills: Pick<Ledger['fills'], 'recordFill' | 'reverseFillsOfTransaction'>
  readonly allowances: Pick<
    Ledger['allowances'],
    'recordOpenAllowance' | 'listOpenAllowances' | 'closeOpenAllowances'
  >
  readonly checkpoints: Pick<Ledger['checkpoints'], 'getCheckpoint' | 'advanceCheckpoint'>
  readonly risk: Pick<
    Ledger['risk'],
    // The entry halts: read before a buy is quoted and signed, latched by the realized-loss rule after fills.
    | 'notionalSince'
    | 'killSwitch'
    | 'entryHaltFor'
    | 'entryHalts'
    | 'haltEntries'
    | 'realizedSince'
    | 'lastResumeMs'
  >
}

/**
 * What the engine asks of the service while it runs an execution: its router quote
 * (`getRouterQuote`, which goes through `request` alone). A {@link ServiceClient} is one.
 */
export type QuoteSource = Pick<ServiceClient, 'request'>

/**
 * What the engine calls of a wallet's transaction manager: wait for its recovery, send (one
 * transaction or a bundle, signed in its critical section), the allowance its pending
 * transactions will leave, the block watcher's head, its status, and its start and stop. A
 * {@link TransactionManager} is one; it stays the only code that signs.
 */
export type TransactionSender = Pick<
  TransactionManager,
  'ready' | 'send' | 'takeTurn' | 'allowanceOutlook' | 'head' | 'status' | 'start' | 'stop'
>

/** The chain as the guard sees it: what the configuration pins and what the chain reports. */
export type GuardChain = {
  chainId: number
  executorAddress: Address
  operatorAddress: Address
  executorDomain: ExecutorDomain
  /** Other executors (the other chains'), to name a quote signed for one of them. */
  knownExecutors: readonly KnownExecutor[]
  /** The symbol names amounts in messages ('asset' when not given). */
  asset: { address: Address; decimals: number; symbol?: string | undefined }
}

/** A chain ready to trade on: its clients, its pins as verified, its asset, its wallets. */
export type ChainRuntime = GuardChain & {
  rpcUrl: string
  asset: { address: Address; decimals: number; symbol: string }
  publicClient: PublicClient<HttpTransport, Chain>
  /** Resolves once the public client's calls made so far are sent: work awaited after it overlaps the node's answer. */
  sendQueuedReads: () => Promise<void>
  /** Rolling broadcast-to-receipt estimate, replaced after each receipt. */
  inclusion: InclusionTimes
  /** When each execute was broadcast (Unix ms), until its inclusion is observed. */
  broadcastTimes: Map<Hex, number>
  /** Each token's allowance storage layout, found once: simulations override the allowance with it. */
  allowanceLayouts: AllowanceLayouts
  /** Each token's answer to "does it refuse to change a non-zero allowance?", found once. */
  resetFirstTokens: ResetFirstTokens
  /** The chain's wallets (at least one), each with its own transaction manager and pipeline. */
  wallets: readonly ChainWallet[]
  /** The one block watcher of the chain, shared by its wallets' managers. */
  blocks: ChainBlocks
  transactionSettings: TransactionManagerSettings
}

/** One wallet trading on one chain: its signer, its transaction manager and its pipeline. */
export type ChainWallet = {
  account: LocalAccount
  /** Never retries: a failed send surfaces at once with the signed transaction still in hand. */
  walletClient: WalletClient<HttpTransport, Chain, LocalAccount>
  /** The only signer of this wallet on this chain (its transaction manager). */
  transactions: TransactionSender
  /**
   * Executions in stage one or two at once (quote, guard, simulation, then the wallet's critical
   * section): `pipelineDepth` of them; the wait for a receipt is outside.
   */
  pipeline: PQueue
}

/** A ticker resolved on one chain: the token the guard expects in a quote, and the rules it follows. */
export type Instrument = {
  chainId: number
  ticker: string
  exchange: ExchangeCode
  market: MarketCode
  tokenAddress: Address
  tokenKind: TokenKind
  /** Board lot in whole shares (1 for US and KR). */
  lotSize: bigint
  spreadTableCode: string
  /** The stock ticker market data is quoted under (a ShareToken's underlying stock). */
  marketSymbol: string
}

/** Resolves tickers once per chain and caches them for the resolver's life (a failure is not cached). */
export type InstrumentResolver = (
  parameters: { chainId: number; ticker: string; exchange: ExchangeCode },
  options?: CallOptions,
) => Promise<Instrument>

/**
 * A router quote that arrived, not yet written: its moves to `quoting` and `quoted` are stored with
 * the execution's next commit (the critical section's move to `submitted`, or its stop), each at
 * the time it happened. A commit costs an fsync on the one JS thread, and the quote holds nothing
 * recovery needs: an execution found in `intent` after a kill is quoted again, as one found in
 * `quoting` or `quoted` always was.
 */
export type PendingQuote = {
  /** The execution as last committed (`intent`, or where a restart left it), before any pending quote. */
  from: ExecutionRecord
  /** The quote this one replaced (dropped for time), also not yet written: its moves go first. */
  earlier: PendingQuote | undefined
  /** Why the quote was asked for (the `quoting` move's reason). */
  why: string
  requestedAtMs: number
  /** The `quoted` move's reason. */
  reason: string
  receivedAtMs: number
  /** The quote, its notional and the market price it was compared with. */
  patch: ExecutionPatch
  /** The notional the risk limits count, in the ledger's notional units. */
  notional: Notional
  chainId: number
  assetSymbol: string
}

/** A place among the executions let in; leaving twice is leaving once. */
export type AdmissionTicket = { leave(): void }

/**
 * How many executions of the engine are, at once, between asking for their router quote and
 * handing their execute to the node. All chains and wallets share the process' one JS thread: when
 * a burst asks for many quotes together, they arrive together, and each then waits behind the
 * others' guard, simulation and signing, ageing in the process. Letting in only a few at a time
 * keeps each quote's own path short; the others wait before asking, not while holding a quote.
 */
export type QuoteAdmission = {
  /**
   * Waits for a place; rejects with the signal's reason if it aborts first. Waiters get in in order
   * of arrival, except that a waiter whose `wallet` has nobody inside goes before those whose wallet
   * has: two executions of one wallet inside at once queue for its critical section and its
   * broadcasts (one bundle at a time), while another wallet's sit idle.
   */
  enter(signal?: AbortSignal, wallet?: string): Promise<AdmissionTicket>
  /** Executions let in now and waiting, the places now, and the bounds they move between. */
  status(): { inside: number; waiting: number; limit: number; floor: number; ceiling: number | undefined }
}

/** One execution's hold on a router quote: from its arrival to the execute's hand-over to the node. */
export type QuoteWindow = {
  /** The quote arrived: work that can wait now waits for this execution. */
  open(): void
  /** The execute was handed to the node, or the quote dropped: closing twice is closing once. */
  close(): void
}

/**
 * The executions now holding a router quote, and a way for work that can wait (recording the
 * inclusions of transactions already sent) to let them pass. Every execution shares the process'
 * one JS thread: a receipt's fills and positions written while a quote is held are written on
 * that quote's time, and its 10 s of validity is what the trade runs on. Inclusions wait instead,
 * never longer than `maxWaitMs` at a time, and those released together share one commit.
 */
export type QuoteWindows = {
  /** A window for one attempt of one execution, closed until `open()`. */
  create(): QuoteWindow
  /** Resolves at once when no quote is held, else when none is (or after `maxWaitMs`, whichever comes first). */
  passed(): Promise<void>
  /** Quotes held now, and callers waiting for them to pass. */
  status(): { open: number; waiting: number; maxWaitMs: number }
}

/** One wait that {@link QuoteWindows.passed} made: how long, and whether the bound ended it. */
export type InclusionWait = { waitedMs: number; ranOut: boolean }

/** A running execution's handle: its own abort, and whether it has reached its first signature. */
export type ExecutionControl = {
  controller: AbortController
  signing: boolean
  ended: Promise<void>
  end: () => void
}

/** The executions this engine is running, by id: one owner for "may it still be cancelled?". */
export type ExecutionControls = Map<number, ExecutionControl>

/** Wakes whoever waits for an execution's end. */
export type SettlementWaiters = {
  wait(executionId: number, signal?: AbortSignal): Promise<void>
  wake(executionId: number): void
}
