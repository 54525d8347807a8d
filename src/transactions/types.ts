import type { Address, Hex, LocalAccount, PublicClient, WalletClient } from 'viem'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionKind, TransactionRecord } from '../store/transactions.js'
import type { AllowanceOutlook } from './allowanceOutlook.js'
import type { WatchedBlock } from './blockWatcher.js'
import type { ChainBlocks } from './chainBlocks.js'
import type { SigningFence } from './signingFence.js'

/** A transaction to sign from the manager's wallet. */
export type TransactionRequest = {
  kind: TransactionKind
  to: Address
  data: Hex
  gas: bigint
  /**
   * Unix ms after which the call must not land (an execute's quote expiry and grace): stored with
   * it; the manager cancels it at its nonce rather than send it again or let it land later.
   */
  deadlineMs?: number | undefined
}

/** How the transaction manager of a chain behaves; per chain in the configuration. */
export type TransactionManagerSettings = {
  /** Blocks on top of a transaction's block before it is final: a reorg deeper than this is not expected. */
  confirmations: number
  /** Blocks remembered to find a reorg's fork point; a deeper reorg halts trading (see docs/operations.md, "Crashes, stuck transactions, reorgs, halts, storage"). */
  reorgWindow: number
  /** Head poll interval, ms. */
  blockPollMs: number
  /** How often pending transactions are checked (dropped, stuck, nonce taken elsewhere), ms. */
  checkMs: number
  /** A transaction still pending this long after its last broadcast is stuck: re-priced or cancelled. */
  stuckAfterMs: number
  /** Highest fee per gas the manager ever offers on this chain, wei; replacements stop there. */
  maxFeePerGas: bigint
  /** Smallest raise of both fees a replacement offers, basis points (nodes ask for at least 10%). */
  replacementBumpBps: number
}

/** Defaults for a chain whose configuration says nothing. */
export const defaultTransactionManagerSettings: TransactionManagerSettings = {
  confirmations: 2,
  reorgWindow: 64,
  blockPollMs: 250,
  checkMs: 1_000,
  stuckAfterMs: 15_000,
  maxFeePerGas: 500_000_000_000n,
  replacementBumpBps: 1_250,
}

/** The block a transaction was included in. */
export type InclusionBlock = Pick<WatchedBlock, 'number' | 'hash' | 'timestamp'> & {
  /**
   * When the manager had the block and the transaction's receipt in hand (the manager's clock, ms),
   * before the inclusion waited for the engine's held quotes: the chain's time to include ends here.
   */
  seenAtMs?: number | undefined
}

/** What became of a broadcast. */
export type BroadcastResult =
  /** The node accepted it (or already had it). */
  | { status: 'broadcast'; atMs: number }
  /** Not sent (dry run). */
  | { status: 'not-sent' }
  /** No answer, or "nonce too low": it may be on chain; the manager's checks decide. */
  | { status: 'unknown'; error: string; atMs: number }
  /** The node refused it: it will never be mined. */
  | { status: 'refused'; error: string }

/** A transaction signed and stored by the manager, and its broadcast in progress. */
export type SentTransaction = {
  record: TransactionRecord
  /** Resolves when the node answered (or did not); never rejects. */
  broadcast: Promise<BroadcastResult>
}

/** Transactions signed together at consecutive nonces, stored in one commit, sent back to back. */
export type SentTransactions = {
  records: TransactionRecord[]
  /** One result per record, in order; resolves when the node answered each (or did not); never rejects. */
  broadcast: Promise<BroadcastResult[]>
  /**
   * Resolves the moment the bundle is handed to the node (its sends leave, after any bundle of the
   * wallet still being sent), before any answer; never rejects.
   */
  handedOver: Promise<void>
}

/**
 * Transactions signed at consecutive nonces from `nonce` and not stored yet: nothing of them exists
 * outside this process, and no nonce is taken until they are.
 */
export type SignedBundle = {
  readonly nonce: number
  readonly requests: readonly TransactionRequest[]
  readonly raws: readonly Hex[]
  readonly executionId: number | null
  /** The transaction a replacement replaces (same nonce). */
  readonly replaces: TransactionRecord | undefined
  /** Cluster mode: the fencing token of the wallet's lease it was signed under (signingFence.ts). */
  readonly fenceToken?: number | undefined
}

/**
 * The wallet's critical section, held by its caller (the engine) from
 * {@link TransactionManager.takeTurn} until {@link WalletTurn.send} or {@link WalletTurn.end}: what
 * it signs takes the wallet's next nonces, and nothing else of the wallet is signed meanwhile, so
 * the caller may plan from the wallet's pending transactions (allowanceOutlook) and check what
 * must hold right before the commit (kill switch, a quote's validity) between the calls.
 *
 * The caller's order: `sign`, its checks, then `store` inside its own ledger transaction with its
 * own writes (an execution's move to submitted), then `send` once that committed; `end` in a
 * `finally`. A check that throws, or a rolled-back commit, leaves nothing stored and no nonce taken.
 */
export type WalletTurn = {
  /** Signs `requests` at the wallet's next nonces; stores nothing, takes no nonce yet. */
  sign(
    requests: readonly TransactionRequest[],
    options: { executionId: number | null },
  ): Promise<SignedBundle>
  /**
   * Stores the bundle and records its nonces as taken, in the caller's ledger transaction (or one
   * of its own when there is none). Returns the stored rows, in nonce order.
   */
  store(bundle: SignedBundle): TransactionRecord[]
  /**
   * After the commit that stored the bundle: the next nonce moves past it and it is queued for the
   * node in nonce order (a dry run: stored failed, never sent, its nonces given back). Ends the turn.
   */
  send(bundle: SignedBundle): SentTransactions
  /**
   * Ends the turn (idempotent). A bundle stored and committed but not sent is sent now: a stored
   * transaction is never left behind by the turn that signed it.
   */
  end(): void
}

/** A transaction manager's state, for /health, /metrics and the start's progress lines. */
export type TransactionManagerStatus = {
  chainId: number
  address: Address
  /** `recovering`: takes no new transaction until the wallet's nonces are sound. */
  state: 'recovering' | 'ready' | 'stopped'
  /** What recovery is doing, or did last. */
  recovery: string
  nextNonce: number | undefined
  /** Transactions signed and not yet final on chain. */
  pending: number
  gapsFilled: number
  replacements: number
  rebroadcasts: number
  reorgs: number
}

/** Something for the operator: each one a line in the log, some a counter in /metrics. */
export type TransactionManagerEvent =
  | { kind: 'recovery'; message: string }
  | { kind: 'gap-filled'; nonce: number; hash: Hex }
  | { kind: 'rebroadcast'; nonce: number; hash: Hex; reason: string }
  | { kind: 'replaced'; nonce: number; hash: Hex; replaces: Hex; reason: string }
  | { kind: 'reorg'; forkNumber: bigint; removed: number; beyondWindow: boolean }
  | { kind: 'error'; message: string }

/** Options of {@link TransactionManager.send}. */
export type SendOptions = {
  /** The execution the transaction serves, if any: its outcome is recorded for it. */
  executionId: number | null
}

/** The only code that signs for one (chain, wallet): nonces, storage before broadcast, and the chain's verdicts. */
export type TransactionManager = {
  readonly chainId: number
  readonly address: `0x${string}`
  /** Resolves once recovery made the wallet's nonces sound; `send` waits for it. */
  ready(signal?: AbortSignal): Promise<void>
  /**
   * Takes the next nonce, signs, stores the raw bytes, hash and nonce in the ledger transaction that
   * takes the nonce, then queues the broadcast (in nonce order). Resolves once stored.
   */
  send(request: TransactionRequest, options: SendOptions): Promise<SentTransaction>
  /**
   * Takes the wallet's critical section for the caller (see {@link WalletTurn}): it signs several
   * transactions at consecutive nonces, checks what must hold, stores them in ONE ledger commit
   * with its own writes, and sends them at once in nonce order. A member sent after a refused one
   * is cancelled (so an execute never lands without its approval) and the hole filled.
   */
  takeTurn(): Promise<WalletTurn>
  /**
   * What the wallet's allowance of `token` to `spender` will be for its next transaction, given
   * `onChain` (read at `atBlock`) and the wallet's transactions not final yet: the least it can
   * be whatever becomes of them, the nonces it depends on, and an estimate (allowanceOutlook.ts).
   * Before the block watcher has a head, the settlement checkpoint stands in for it.
   */
  allowanceOutlook(
    token: `0x${string}`,
    spender: `0x${string}`,
    onChain: bigint,
    atBlock?: bigint,
  ): AllowanceOutlook
  /** The last block the block watcher reported, if it reported one: a consistent block to read at. */
  head(): bigint | undefined
  /** Checks pending transactions now (what the timer does every `checkMs`). */
  check(): Promise<void>
  status(): TransactionManagerStatus
  /** Starts the block watcher and recovery, in the background. */
  start(): void
  stop(): Promise<void>
}

/** What `createTransactionManager` is built over: the wallet, its chain, the ledger and the owner of its transactions' purpose. */
export type CreateTransactionManagerParameters = {
  chainId: number
  ledger: Ledger
  account: LocalAccount
  publicClient: PublicClient
  /** Sends only (never retries: a failed send must surface with the signed bytes still in hand). */
  walletClient: WalletClient
  settings: TransactionManagerSettings
  /**
   * The validity a deadline-bound transaction sent now needs to land in time, ms: the chain's
   * expected broadcast-to-inclusion time plus the engine's margin (the same rule as a first send).
   * One with less left is cancelled at its nonce instead of sent again.
   */
  timeToLandMs: () => number
  /**
   * Awaited before the inclusions found in new blocks are recorded (their receipts in hand): the
   * engine may hold quotes that the writing would delay. Default: recorded at once.
   */
  beforeInclusions?: (() => Promise<void>) | undefined
  /** Sign and store, never broadcast (dry runs). */
  dryRun?: boolean | undefined
  /** Cluster mode: checked before every signature, its token stored with every transaction. */
  fence?: SigningFence | undefined
  now?: (() => number) | undefined
  onEvent?: ((event: TransactionManagerEvent) => void) | undefined
  /**
   * The chain's block watcher, shared with the other wallets' managers of the chain; default: one
   * of its own, stopped with the manager.
   */
  blocks?: ChainBlocks | undefined
  /** Observers of each step (signed, broadcast, receipt), synchronous, for metrics and crash tests. */
  onStep?:
    | ((step: { step: 'signed' | 'sending' | 'broadcast' | 'receipt'; tx: TransactionRecord }) => void)
    | undefined
}
