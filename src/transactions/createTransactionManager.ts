import type { Hex } from 'viem'
import { signsSynchronously } from '../chain/privateKeyToFastAccount.js'
import { keccak256Fast } from '../domain/keccak256Fast.js'
import type { TransactionRecord } from '../store/transactions.js'
import { allowanceOutlook } from './allowanceOutlook.js'
import { createBroadcastMarks } from './broadcastMarks.js'
import { createBroadcastQueue } from './broadcastQueue.js'
import { createChainBlocks } from './chainBlocks.js'
import { createEarlyReceipts } from './earlyReceipts.js'
import { TransactionManagerError } from './errors.js'
import { failpoint } from './failpoints.js'
import { createFeeSource } from './fees.js'
import { checkPending, followReorg, includeFromBlocks, receiptOf } from './followTransactions.js'
import type { ManagerCore } from './managerCore.js'
import { createNonceAllocator } from './nonceAllocator.js'
import { recoverWallet } from './recoverWallet.js'
import { afterRefusal, fillGap, rebroadcast, replace } from './repairs.js'
import type { SigningCore } from './signingCore.js'
import type {
  CreateTransactionManagerParameters,
  TransactionManager,
  TransactionManagerEvent,
  TransactionManagerStatus,
} from './types.js'

/** The longest an accepted broadcast waits to be marked in the ledger with another commit, ms. */
const markDelayMs = 200

/** How long the block watcher polls fast after one of our transactions is accepted, ms. */
const hurryAfterSendMs = 2_000

/**
 * The transaction manager of one (chain, wallet). Nonces are allocated in memory, seeded at start
 * from the chain and the ledger; each transaction is signed and stored (raw bytes, hash, nonce) in
 * the same SQLite transaction that takes its nonce, before any broadcast, so that a crash at any
 * instant leaves either nothing or a stored transaction that recovery finishes. One block watcher
 * finds our transactions in new blocks and reverses those a reorg removes; a periodic check
 * re-broadcasts dropped transactions, re-prices stuck ones (never above the chain's fee cap) while
 * their deadline allows, cancels them with a self-transfer at the same nonce when it does not, fills
 * nonce gaps with self-transfers, and classifies a nonce used elsewhere.
 *
 * @example
 * const manager = createTransactionManager({ chainId, ledger, account, publicClient, walletClient,
 *   settings: defaultTransactionManagerSettings, handler, timeToLandMs: () => 2_000 })
 * manager.start()
 * const { record, broadcast } = await manager.send({ kind: 'approve', to: token, data, gas: 100_000n }, { executionId })
 * await broadcast
 */
export function createTransactionManager(parameters: CreateTransactionManagerParameters): TransactionManager {
  const { chainId, ledger, account, publicClient, walletClient, settings, handler } = parameters
  const now = parameters.now ?? Date.now
  const address = account.address
  const feeSource = createFeeSource(publicClient, settings.maxFeePerGas, now)
  const counters = { gapsFilled: 0, replacements: 0, rebroadcasts: 0, reorgs: 0 }
  let state: TransactionManagerStatus['state'] = 'recovering'
  let recovery = 'not started'
  const nonces = createNonceAllocator(ledger, chainId, address)
  let critical: Promise<unknown> = Promise.resolve()
  const ownBlocks = parameters.blocks === undefined
  const blocks =
    parameters.blocks ??
    createChainBlocks({ client: publicClient, pollMs: settings.blockPollMs, window: settings.reorgWindow })
  let unsubscribe: (() => void) | undefined
  let checkTimer: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined
  let recovering: Promise<void> | undefined
  const stopper = new AbortController()
  let markReady: () => void = () => {}
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve
  })

  const emit = (event: TransactionManagerEvent) => parameters.onEvent?.(event)

  /** One critical section per wallet: nonce, signature and the ledger commit never interleave. */
  const withLock = <T>(work: () => Promise<T>): Promise<T> => {
    const run = critical.then(work, work)
    critical = run.catch(() => undefined)
    return run
  }

  const assertWritable = () => {
    const fault = ledger.storageFault
    if (fault)
      throw new TransactionManagerError({
        code: 'STORAGE_FAULT',
        shortMessage: `Chain ${chainId}: nothing is signed while the ledger has a storage fault (${fault.reason}): ${fault.remedy}`,
        details: { chainId },
      })
  }

  const signAndStore: SigningCore['signAndStore'] = async (input) => {
    assertWritable()
    const { requests, nonce, fees } = input
    const transactions = requests.map((request, offset) => ({
      chainId,
      type: 'eip1559' as const,
      to: request.to,
      data: request.data,
      value: 0n,
      nonce: nonce + offset,
      gas: request.gas,
      ...fees,
    }))
    // The daemon's signer signs without an await: from the kill switch's last read to the commit,
    // the critical section then runs in one stretch, and no other execution's work (a burst has
    // plenty) slips in between. Other accounts are awaited, one transaction after another.
    const raws: Hex[] = []
    if (signsSynchronously(account))
      for (const transaction of transactions) raws.push(account.signTransactionSync(transaction))
    else for (const transaction of transactions) raws.push(await account.signTransaction(transaction))
    failpoint('signed')
    const records = nonces.take(nonce, requests.length, () => {
      const stored = requests.map((request, offset) =>
        ledger.transactions.recordSignedTransaction({
          executionId: input.executionId ?? undefined,
          chainId,
          from: address,
          nonce: nonce + offset,
          kind: request.kind,
          hash: keccak256Fast(raws[offset] as Hex),
          raw: raws[offset] as Hex,
          replaces: input.replaces?.hash,
        }),
      )
      input.alsoInLedger?.(stored)
      return stored
    })
    for (const record of records) parameters.onStep?.({ step: 'signed', tx: record })
    return records
  }

  const earlyReceipts = createEarlyReceipts((hash) => receiptOf(core, hash))

  const marks = createBroadcastMarks({
    ledger,
    chainId,
    delayMs: markDelayMs,
    onError: (error) =>
      emit({ kind: 'error', message: `chain ${chainId}: could not mark broadcasts: ${messageOf(error)}` }),
  })

  const broadcasts = createBroadcastQueue({
    walletClient,
    now,
    dryRun: parameters.dryRun ?? false,
    onStep: parameters.onStep,
    onAccepted: (accepted) => {
      const hashes = accepted.map((record) => record.hash)
      // A chain that mines at once (automine, fast L2s) has the blocks in a moment: look for them
      // now, once the whole bundle is sent (one poll then finds them all), and often for a while.
      blocks.hurry(hurryAfterSendMs)
      marks.add(hashes)
      earlyReceipts.ask(hashes)
    },
    onRefused: (records, results, first) => afterRefusal(signing, records, results, first),
  })
  const { lastSentAt, sending } = broadcasts

  const signing: SigningCore = {
    chainId,
    address,
    ledger,
    account,
    walletClient,
    settings,
    handler,
    feeSource,
    emit,
    counters,
    withLock,
    nonces,
    signAndStore,
    broadcast: broadcasts.send,
    lastSentAt,
    sending,
  }

  const core: ManagerCore = {
    chainId,
    address,
    ledger,
    publicClient,
    settings,
    handler,
    now,
    emit,
    timeToLandMs: parameters.timeToLandMs,
    beforeInclusions: parameters.beforeInclusions ?? (() => Promise.resolve()),
    nonces,
    lastSentAt,
    sending,
    replace: (current, kind, reason) => replace(signing, current, kind, reason),
    fillGap: (nonce) => fillGap(signing, nonce),
    rebroadcast: (record, reason) => rebroadcast(signing, record, reason),
    counters,
    onReceipt: (tx: TransactionRecord) => parameters.onStep?.({ step: 'receipt', tx }),
    markBroadcasts: marks.write,
    earlyReceipts,
    signal: stopper.signal,
  }

  const runCheck = () => {
    checking ??= checkPending(core)
      .catch((error: unknown) =>
        emit({ kind: 'error', message: `chain ${chainId}: pending check failed: ${messageOf(error)}` }),
      )
      .finally(() => {
        checking = undefined
      })
    return checking
  }
  const scheduleChecks = () => {
    if (stopper.signal.aborted) return
    checkTimer = setTimeout(() => {
      // What it finds is written like the blocks' inclusions: after the engine's held quotes.
      if (state === 'ready')
        void core
          .beforeInclusions()
          .then(() => (stopper.signal.aborted ? undefined : runCheck()))
          .finally(scheduleChecks)
      else scheduleChecks()
    }, settings.checkMs)
  }

  const manager: TransactionManager = {
    chainId,
    address,
    ready(signal) {
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
    async send(request, options) {
      const { records, broadcast: sent } = await manager.sendAll(() => [request], options)
      const [record] = records
      if (!record) throw new Error(`chain ${chainId}: the transaction was not signed`)
      return { record, broadcast: sent.then(([result]) => result ?? { status: 'not-sent' as const }) }
    },
    async sendAll(build, options) {
      await manager.ready()
      // Backpressure: sign nothing while bundles wait to be sent (a slow node), so validity is checked
      // near when the execute leaves. Outside the lock: a refused bundle's repair takes it.
      if (broadcasts.waiting() > 0) await broadcasts.noneWaiting()
      const fees = await feeSource.current()
      return withLock(async () => {
        options.check?.()
        assertWritable()
        const requests = build()
        const nonce = nonces.next()
        if (nonce === undefined) throw new Error(`chain ${chainId}: send before recovery seeded the nonce`)
        if (requests.length === 0)
          return { records: [], broadcast: Promise.resolve([]), handedOver: Promise.resolve() }
        failpoint('nonce-taken')
        const records = await signAndStore({
          requests,
          nonce,
          fees,
          executionId: options.executionId,
          alsoInLedger: options.alsoInLedger,
        })
        failpoint('stored')
        if (parameters.dryRun) {
          // Signed and stored to show what would be sent; never sent, so their nonces are free again.
          const failed = records.map((record) =>
            ledger.transactions.markFailed(chainId, record.hash, 'dry run: never broadcast'),
          )
          // Last taken first: each is then the last one taken when given back.
          for (let taken = nonce + records.length - 1; taken >= nonce; taken--) nonces.giveBack(taken)
          return {
            records: failed,
            broadcast: Promise.resolve(records.map(() => ({ status: 'not-sent' as const }))),
            handedOver: Promise.resolve(),
          }
        }
        let handed = () => {}
        const handedOver = new Promise<void>((resolve) => {
          handed = resolve
        })
        // A bundle that never gets its turn (the queue cleared on stop) still settles.
        const sent = broadcasts.send(records, handed).finally(handed)
        return { records, broadcast: sent, handedOver }
      })
    },
    allowanceOutlook(token, spender, onChain, atBlock) {
      // Final: `confirmations` blocks under the head. A transaction mined after the reading's block
      // is not in it: it counts as not final whatever its depth.
      // Before the watcher's first block, the ledger's settlement checkpoint stands in for the head.
      const head = blocks.head()?.number ?? ledger.checkpoints.getCheckpoint(chainId)
      const finalBelowHead = head === undefined ? -1n : head - BigInt(settings.confirmations)
      const finalBlock = atBlock !== undefined && atBlock < finalBelowHead ? atBlock : finalBelowHead
      return allowanceOutlook(ledger.transactions.listTransactionsNotFinal(chainId, address, finalBlock), {
        token,
        spender,
        onChain,
        readAtBlock: atBlock,
      })
    },
    head: () => blocks.head()?.number,
    check: runCheck,
    status() {
      return {
        chainId,
        address,
        state,
        recovery,
        nextNonce: nonces.next(),
        pending: ledger.transactions.countUnresolvedTransactions(chainId, address),
        ...counters,
      }
    },
    start() {
      unsubscribe = blocks.subscribe({
        onBlocks: async (watched) => {
          feeSource.newBlock(watched.at(-1))
          await includeFromBlocks(core, watched)
        },
        onReorg: async (event) => {
          await followReorg(core, event)
          // What the reorg put back is checked now, not at the next tick: an execute that can no
          // longer land before its deadline is cancelled at its nonce before a block mines it.
          if (event.removed.length > 0) void Promise.resolve(checking).then(runCheck)
        },
        onError: (error) =>
          emit({ kind: 'error', message: `chain ${chainId}: block watcher: ${messageOf(error)}` }),
        // Signed (not sent yet) and broadcast transactions wait for their blocks.
        waiting: () => ledger.transactions.countUnresolvedTransactions(chainId, address) > 0,
      })
      recovering = recoverWallet(core, (step) => {
        recovery = step
        emit({ kind: 'recovery', message: `chain ${chainId}: ${step}` })
      }).then(() => {
        if (stopper.signal.aborted) return
        state = 'ready'
        markReady()
        scheduleChecks()
      })
      recovering.catch(() => undefined)
    },
    async stop() {
      state = 'stopped'
      stopper.abort(new Error('the transaction manager is stopping'))
      clearTimeout(checkTimer)
      unsubscribe?.()
      if (ownBlocks) await blocks.stop()
      await Promise.allSettled([checking, recovering, critical])
      await broadcasts.idle()
      marks.flush()
    },
  }
  return manager
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
