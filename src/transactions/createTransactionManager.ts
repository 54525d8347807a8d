import PQueue from 'p-queue'
import {
  type Hex,
  keccak256,
  type LocalAccount,
  type PublicClient,
  parseTransaction,
  type WalletClient,
} from 'viem'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import { type BlockWatcher, startBlockWatcher } from './blockWatcher.js'
import { broadcastRaw } from './broadcastRaw.js'
import { TransactionManagerError } from './errors.js'
import { failpoint } from './failpoints.js'
import { createFeeSource, type Fees, feesOf, replacementFees } from './fees.js'
import { checkPending, followReorg, includeFromBlock } from './followTransactions.js'
import type { ManagerCore } from './managerCore.js'
import { allowanceAfterPending } from './pendingAllowances.js'
import { recoverWallet } from './recoverWallet.js'
import type {
  BroadcastResult,
  TransactionManager,
  TransactionManagerEvent,
  TransactionManagerSettings,
  TransactionManagerStatus,
  TransactionOutcomeHandler,
  TransactionRequest,
} from './types.js'

export type CreateTransactionManagerParameters = {
  chainId: number
  ledger: Ledger
  account: LocalAccount
  publicClient: PublicClient
  /** Sends only (never retries: a failed send must surface with the signed bytes still in hand). */
  walletClient: WalletClient
  settings: TransactionManagerSettings
  handler: TransactionOutcomeHandler
  /** The chain's expected broadcast-to-inclusion time, ms: can a deadline-bound transaction still land? */
  inclusionMs: () => number
  /** Sign and store, never broadcast (dry runs). */
  dryRun?: boolean | undefined
  now?: (() => number) | undefined
  onEvent?: ((event: TransactionManagerEvent) => void) | undefined
  /** Observers of each step (signed, broadcast, receipt), synchronous, for metrics and crash tests. */
  onStep?: ((step: { step: 'signed' | 'broadcast' | 'receipt'; tx: TransactionRecord }) => void) | undefined
}

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
 *   settings: defaultTransactionManagerSettings, handler, inclusionMs: () => 2_000 })
 * manager.start()
 * const { record, broadcast } = await manager.send({ kind: 'approve', to: token, data, gas: 100_000n }, { executionId })
 * await broadcast
 */
export function createTransactionManager(parameters: CreateTransactionManagerParameters): TransactionManager {
  const { chainId, ledger, account, publicClient, walletClient, settings, handler } = parameters
  const now = parameters.now ?? Date.now
  const address = account.address
  const feeSource = createFeeSource(publicClient, settings.maxFeePerGas)
  const broadcasts = new PQueue({ concurrency: 1 })
  const counters = { gapsFilled: 0, replacements: 0, rebroadcasts: 0, reorgs: 0 }
  let state: TransactionManagerStatus['state'] = 'recovering'
  let recovery = 'not started'
  let next: number | undefined
  let critical: Promise<unknown> = Promise.resolve()
  let watcher: BlockWatcher | undefined
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

  /** Inside the critical section: sign at `nonce`, store, and move the in-memory nonce past it. */
  const signAndStore = async (input: {
    request: TransactionRequest
    nonce: number
    fees: Fees
    executionId: number | null
    replaces?: TransactionRecord | undefined
    alsoInLedger?: ((record: TransactionRecord) => void) | undefined
  }): Promise<TransactionRecord> => {
    assertWritable()
    const { request, nonce, fees } = input
    const raw = await account.signTransaction({
      chainId,
      type: 'eip1559',
      to: request.to,
      data: request.data,
      value: 0n,
      nonce,
      gas: request.gas,
      ...fees,
    })
    failpoint('signed')
    const record = ledger.atomically(() => {
      ledger.nonces.commitNonce(chainId, address, nonce)
      const stored = ledger.transactions.recordSignedTransaction({
        executionId: input.executionId ?? undefined,
        chainId,
        from: address,
        nonce,
        kind: request.kind,
        hash: keccak256(raw),
        raw,
        replaces: input.replaces?.hash,
      })
      input.alsoInLedger?.(stored)
      return stored
    })
    if (next === undefined || nonce >= next) next = nonce + 1
    parameters.onStep?.({ step: 'signed', tx: record })
    return record
  }

  const lastSentAt = new Map<Hex, number>()

  const broadcast = (record: TransactionRecord): Promise<BroadcastResult> =>
    broadcasts.add(async (): Promise<BroadcastResult> => {
      if (parameters.dryRun) return { status: 'not-sent' }
      const atMs = now()
      const sent = await broadcastRaw(walletClient, record.raw)
      if (sent.outcome === 'accepted') {
        failpoint(record.kind === 'approve' ? 'approve-broadcast' : 'broadcast')
        parameters.onStep?.({ step: 'broadcast', tx: record })
        lastSentAt.set(record.hash, atMs)
        ledger.transactions.markBroadcast(chainId, record.hash)
        // A chain that mines at once (automine, fast L2s) has the block in a moment: look for it
        // often for a while rather than at the next tick.
        watcher?.hurry(hurryAfterSendMs)
        return { status: 'broadcast', atMs }
      }
      if (sent.outcome === 'refused' || (sent.outcome === 'underpriced' && record.replacesId !== null)) {
        await refuse(record, sent.error)
        return { status: 'refused', error: sent.error }
      }
      // No answer, or the nonce is used: the transaction may be on chain; the checks decide.
      lastSentAt.set(record.hash, atMs)
      return { status: 'unknown', error: sent.error, atMs }
    })

  /** The node refused `record` for good: it is failed; its nonce is given back when last, else filled. */
  const refuse = (record: TransactionRecord, error: string) =>
    withLock(async () => {
      const reason = `the node refused ${record.kind} ${record.hash}: ${error}`
      ledger.atomically(() => {
        ledger.transactions.markFailed(chainId, record.hash, error)
        if (record.replacesId === null) handler.abandoned(record, reason)
      })
      if (
        record.replacesId === null &&
        next === record.nonce + 1 &&
        ledger.nonces.rewindNextNonce(chainId, address, record.nonce)
      )
        next = record.nonce
      handler.settled?.(record)
    })

  /** A copy of `current`'s call (speed-up) or a self-transfer (cancel, gap fill) at its nonce, with higher fees. */
  const replace = (current: TransactionRecord, kind: 'speed-up' | 'cancel', reason: string) =>
    withLock(async (): Promise<TransactionRecord | undefined> => {
      const live = ledger.transactions.getTransaction(chainId, current.hash)
      if (!live || (live.status !== 'signed' && live.status !== 'broadcast')) return undefined
      const fees = replacementFees(
        feesOf(current.raw),
        await feeSource.current(),
        settings.replacementBumpBps,
        settings.maxFeePerGas,
      )
      if (!fees) {
        emit({
          kind: 'error',
          message: `chain ${chainId}: ${kind} of ${current.hash} (nonce ${current.nonce}) needs more than the fee cap ${settings.maxFeePerGas} wei: raise maxFeePerGas for this chain, or wait for fees to fall`,
        })
        return undefined
      }
      const parsed = parseTransaction(current.raw)
      const request: TransactionRequest =
        kind === 'speed-up'
          ? {
              kind: current.kind,
              to: parsed.to ?? address,
              data: parsed.data ?? '0x',
              gas: parsed.gas ?? 21_000n,
            }
          : { kind: 'cancel', to: address, data: '0x', gas: 21_000n }
      const record = await signAndStore({
        request,
        nonce: current.nonce,
        fees,
        executionId: current.executionId,
        replaces: current,
      })
      failpoint('replacement-stored')
      counters.replacements += 1
      emit({ kind: 'replaced', nonce: current.nonce, hash: record.hash, replaces: current.hash, reason })
      void broadcast(record)
      return record
    })

  /** A zero-value self-transfer at `nonce`, which no live transaction of ours holds. */
  const fillGap = (nonce: number) =>
    withLock(async () => {
      const record = await signAndStore({
        request: { kind: 'gap-fill', to: address, data: '0x', gas: 21_000n },
        nonce,
        fees: await feeSource.current(),
        executionId: null,
      })
      counters.gapsFilled += 1
      emit({ kind: 'gap-filled', nonce, hash: record.hash })
      void broadcast(record)
      return record
    })

  const rebroadcast = async (record: TransactionRecord, reason: string) => {
    counters.rebroadcasts += 1
    emit({ kind: 'rebroadcast', nonce: record.nonce, hash: record.hash, reason })
    return broadcast(record)
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
    inclusionMs: parameters.inclusionMs,
    nextNonce: () => next,
    setNextNonce: (value: number) => {
      next = value
    },
    lastSentAt,
    replace,
    fillGap,
    rebroadcast,
    counters,
    onReceipt: (tx: TransactionRecord) => parameters.onStep?.({ step: 'receipt', tx }),
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
      if (state === 'ready') void runCheck().finally(scheduleChecks)
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
      await manager.ready()
      const fees = await feeSource.current()
      return withLock(async () => {
        options.check?.()
        assertWritable()
        const nonce = next
        if (nonce === undefined) throw new Error(`chain ${chainId}: send before recovery seeded the nonce`)
        failpoint('nonce-taken')
        const record = await signAndStore({
          request,
          nonce,
          fees,
          executionId: options.executionId,
          alsoInLedger: options.alsoInLedger,
        })
        failpoint('stored')
        if (parameters.dryRun) {
          // Signed and stored to show what would be sent; never sent, so its nonce is free again.
          const failed = ledger.transactions.markFailed(chainId, record.hash, 'dry run: never broadcast')
          if (ledger.nonces.rewindNextNonce(chainId, address, nonce)) next = nonce
          return { record: failed, broadcast: Promise.resolve({ status: 'not-sent' as const }) }
        }
        return { record, broadcast: broadcast(record) }
      })
    },
    allowanceAfterPending(token, spender, onChain) {
      return allowanceAfterPending(ledger.transactions.listUnresolvedTransactions(chainId, address), {
        token,
        spender,
        onChain,
      })
    },
    check: runCheck,
    status() {
      return {
        chainId,
        address,
        state,
        recovery,
        nextNonce: next,
        pending: ledger.transactions.listUnresolvedTransactions(chainId, address).length,
        ...counters,
      }
    },
    start() {
      watcher = startBlockWatcher({
        client: publicClient,
        pollMs: settings.blockPollMs,
        window: settings.reorgWindow,
        listener: {
          onBlock: async (block) => {
            feeSource.newBlock()
            await includeFromBlock(core, block)
          },
          onReorg: (event) => followReorg(core, event),
          onError: (error) =>
            emit({ kind: 'error', message: `chain ${chainId}: block watcher: ${messageOf(error)}` }),
        },
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
      await watcher?.stop()
      await Promise.allSettled([checking, recovering, critical])
      await broadcasts.onIdle()
    },
  }
  return manager
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
