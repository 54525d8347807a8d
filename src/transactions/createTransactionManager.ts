import type { Hash, TransactionReceipt, WalletClient } from 'viem'
import type { Ledger } from '../store/openLedger.js'
import { walletAllowanceOutlook } from './allowanceOutlook.js'
import { createBroadcastMarks } from './broadcastMarks.js'
import { createBroadcastQueue } from './broadcastQueue.js'
import { type ChainBlocks, createChainBlocks } from './chainBlocks.js'
import { createEarlyReceipts } from './earlyReceipts.js'
import { createFeeSource, type FeeSource } from './fees.js'
import { createInclusionLoop, receiptOf } from './inclusionLoop.js'
import type { ManagerBasics, ManagerCore, ManagerLoop } from './managerCore.js'
import { createNonceAllocator } from './nonceAllocator.js'
import { createPendingCheckLoop } from './pendingCheckLoop.js'
import { recoverWallet } from './recoverWallet.js'
import { createReorgLoop } from './reorgLoop.js'
import { afterRefusal, fillGap, rebroadcast, replace } from './repairs.js'
import { createSigner } from './signAndStore.js'
import type { SigningCore } from './signingCore.js'
import type {
  CreateTransactionManagerParameters,
  TransactionManager,
  TransactionManagerEvent,
  TransactionManagerStatus,
} from './types.js'
import { createWalletLock } from './walletLock.js'
import { sendInOwnTurn, takeWalletTurn } from './walletTurn.js'

/** The longest an accepted broadcast waits to be marked in the ledger with another commit, ms. */
const markDelayMs = 200

/** How long the block watcher polls fast after one of our transactions is accepted, ms. */
const hurryAfterSendMs = 2_000

/**
 * The transaction manager of one (chain, wallet), composed of parts that each own one step of a
 * transaction's life and hand off through the ledger, in the manner of tx-sitter's tasks:
 * - a wallet turn (walletTurn.ts) takes the nonces, in the critical section its caller holds, and
 *   signAndStore.ts signs and stores;
 * - the broadcast queue sends in nonce order; broadcast marks record what the node accepted;
 * - the inclusion loop records our transactions found in new blocks, with their outcomes;
 * - the reorg loop takes back what a reorg removed;
 * - the pending check loop re-sends dropped transactions, re-prices stuck ones (never above the
 *   chain's fee cap) while their deadline allows, cancels them when it does not, fills nonce gaps
 *   and names a nonce used elsewhere;
 * - recovery makes the nonces sound at start, before anything is sent.
 * What the chain decided about a transaction is recorded in `ledger.transactionOutcomes` for the
 * engine; the manager never calls into it.
 *
 * @example
 * const manager = createTransactionManager({ chainId, ledger, account, publicClient, walletClient,
 *   settings: defaultTransactionManagerSettings, timeToLandMs: () => 2_000 })
 * manager.start()
 * const { record, broadcast } = await manager.send({ kind: 'approve', to: token, data, gas: 100_000n }, { executionId })
 * await broadcast
 */
export function createTransactionManager(parameters: CreateTransactionManagerParameters): TransactionManager {
  const { chainId, ledger, account, publicClient, walletClient, settings } = parameters
  const now = parameters.now ?? Date.now
  const emit = (event: TransactionManagerEvent) => parameters.onEvent?.(event)
  const lifecycle = createLifecycle()
  const ownBlocks = parameters.blocks === undefined
  const blocks =
    parameters.blocks ??
    createChainBlocks({ client: publicClient, pollMs: settings.blockPollMs, window: settings.reorgWindow })
  const feeSource = createFeeSource(publicClient, settings.maxFeePerGas, now)
  const lock = createWalletLock()
  const nonces = createNonceAllocator(ledger, chainId, account.address)
  const { broadcasts, marks, earlyReceipts } = createBroadcasting({
    ledger,
    chainId,
    walletClient,
    blocks,
    now,
    dryRun: parameters.dryRun ?? false,
    onStep: parameters.onStep,
    onError: (error) =>
      emit({ kind: 'error', message: `chain ${chainId}: could not mark broadcasts: ${messageOf(error)}` }),
    receiptOf: (hash) => receiptOf(core, hash),
    onRefused: (records, results, first) => afterRefusal(signing, records, results, first),
  })
  const basics: ManagerBasics = {
    chainId,
    address: account.address,
    ledger,
    settings,
    emit,
    counters: { gapsFilled: 0, replacements: 0, rebroadcasts: 0, reorgs: 0 },
    nonces,
    lastSentAt: broadcasts.lastSentAt,
    sending: broadcasts.sending,
  }
  const signing: SigningCore = {
    ...basics,
    account,
    walletClient,
    feeSource,
    lock,
    signer: createSigner({
      ...basics,
      account,
      fence: parameters.fence,
      onSigned: (tx) => parameters.onStep?.({ step: 'signed', tx }),
    }),
    broadcast: broadcasts.send,
  }
  const core: ManagerCore = {
    ...basics,
    publicClient,
    now,
    timeToLandMs: parameters.timeToLandMs,
    beforeInclusions: parameters.beforeInclusions ?? (() => Promise.resolve()),
    replace: (current, kind, reason) => replace(signing, current, kind, reason),
    fillGap: (nonce) => fillGap(signing, nonce),
    rebroadcast: (record, reason) => rebroadcast(signing, record, reason),
    onReceipt: (tx) => parameters.onStep?.({ step: 'receipt', tx }),
    markBroadcasts: marks.write,
    earlyReceipts,
    signal: lifecycle.signal,
  }
  const pendingChecks = createPendingCheckLoop(core)
  const loops = [
    followFees(blocks, feeSource),
    createInclusionLoop(core, blocks),
    createReorgLoop(core, blocks, pendingChecks.checkAfterCurrent),
  ]
  let recovering: Promise<void> | undefined

  const manager: TransactionManager = {
    chainId,
    address: account.address,
    ready: lifecycle.ready,
    send: (request, options) => sendInOwnTurn(manager.takeTurn(), request, options),
    async takeTurn() {
      await lifecycle.ready()
      return takeWalletTurn(signing, broadcasts, parameters.dryRun ?? false)
    },
    allowanceOutlook: (token, spender, onChain, atBlock) =>
      walletAllowanceOutlook(basics, blocks.head()?.number, {
        token,
        spender,
        onChain,
        readAtBlock: atBlock,
      }),
    head: () => blocks.head()?.number,
    check: pendingChecks.checkNow,
    status: () => statusOf(basics, lifecycle),
    start() {
      for (const loop of loops) loop.start()
      recovering = recoverWallet(core, (step) => {
        lifecycle.recovering(step)
        emit({ kind: 'recovery', message: `chain ${chainId}: ${step}` })
      }).then(() => {
        if (lifecycle.signal.aborted) return
        lifecycle.markReady()
        pendingChecks.start()
      })
      recovering.catch(() => undefined)
    },
    async stop() {
      lifecycle.stop()
      await Promise.allSettled([pendingChecks.stop(), ...loops.map((loop) => loop.stop())])
      if (ownBlocks) await blocks.stop()
      await Promise.allSettled([recovering, lock.idle()])
      await broadcasts.idle()
      marks.flush()
    },
  }
  return manager
}

function statusOf(
  basics: ManagerBasics,
  lifecycle: ReturnType<typeof createLifecycle>,
): TransactionManagerStatus {
  const { chainId, address, ledger } = basics
  return {
    chainId,
    address,
    state: lifecycle.state(),
    recovery: lifecycle.recovery(),
    nextNonce: basics.nonces.next(),
    pending: ledger.transactions.countUnresolvedTransactions(chainId, address),
    ...basics.counters,
  }
}

/** The fee source follows the chain's blocks (base fee of the newest). */
function followFees(blocks: ChainBlocks, feeSource: FeeSource): ManagerLoop {
  let unsubscribe: (() => void) | undefined
  return {
    start() {
      unsubscribe = blocks.subscribe({
        onBlocks: (watched) => feeSource.newBlock(watched.at(-1)),
        onReorg: () => {},
        waiting: () => false,
      })
    },
    async stop() {
      unsubscribe?.()
    },
  }
}

/**
 * The broadcast queue (sends in nonce order), its marks in the ledger (batched with the next
 * commit) and the receipts asked for at once, wired together: what the node accepted is looked
 * for in blocks now, marked, and its receipt asked for.
 */
function createBroadcasting(parameters: {
  ledger: Ledger
  chainId: number
  walletClient: WalletClient
  blocks: ChainBlocks
  now: () => number
  dryRun: boolean
  onStep: CreateTransactionManagerParameters['onStep']
  onError: (error: unknown) => void
  receiptOf: (hash: Hash) => Promise<TransactionReceipt | undefined>
  onRefused: Parameters<typeof createBroadcastQueue>[0]['onRefused']
}) {
  const { ledger, chainId, blocks } = parameters
  const marks = createBroadcastMarks({ ledger, chainId, delayMs: markDelayMs, onError: parameters.onError })
  const earlyReceipts = createEarlyReceipts(parameters.receiptOf)
  const broadcasts = createBroadcastQueue({
    walletClient: parameters.walletClient,
    now: parameters.now,
    dryRun: parameters.dryRun,
    onStep: parameters.onStep,
    onAccepted: (accepted) => {
      const hashes = accepted.map((record) => record.hash)
      // A chain that mines at once (automine, fast L2s) has the blocks in a moment: look for them
      // now, once the whole bundle is sent (one poll then finds them all), and often for a while.
      blocks.hurry(hurryAfterSendMs)
      marks.add(hashes)
      earlyReceipts.ask(hashes)
    },
    onRefused: parameters.onRefused,
  })
  return { broadcasts, marks, earlyReceipts }
}

/** Where a manager is in its life: recovering, ready (sends allowed) or stopped. */
function createLifecycle() {
  let state: TransactionManagerStatus['state'] = 'recovering'
  let recovery = 'not started'
  const stopper = new AbortController()
  let markReady: () => void = () => {}
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve
  })
  return {
    signal: stopper.signal,
    state: () => state,
    recovery: () => recovery,
    recovering(step: string) {
      recovery = step
    },
    markReady() {
      state = 'ready'
      markReady()
    },
    stop() {
      state = 'stopped'
      stopper.abort(new Error('the transaction manager is stopping'))
    },
    /** Resolves once recovery made the nonces sound; with `signal`, rejects when it aborts first. */
    ready(signal?: AbortSignal): Promise<void> {
      // Once ready, no listener: every execution asks, with the daemon's long-lived signal.
      if (!signal || state === 'ready') return readyPromise
      return new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        const abort = () => reject(signal.reason)
        signal.addEventListener('abort', abort, { once: true })
        readyPromise.then(() => {
          signal.removeEventListener('abort', abort)
          resolve()
        })
      })
    },
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
