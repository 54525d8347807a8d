import type { TransactionRecord } from '../store/transactions.js'
import type { BroadcastQueue } from './broadcastQueue.js'
import { TransactionManagerError } from './errors.js'
import { failpoint } from './failpoints.js'
import type { SigningCore } from './signingCore.js'
import type {
  SendOptions,
  SentTransaction,
  SentTransactions,
  SignedBundle,
  TransactionRequest,
  WalletTurn,
} from './types.js'

/**
 * Opens a turn of `signing`'s wallet: waits while bundles wait to be sent (a slow node: sign
 * nothing, so that validity is checked near when the execute leaves), reads the fees, then takes
 * the critical section.
 *
 * @example
 * const turn = await takeWalletTurn(signing, broadcasts, false)
 * try {
 *   const bundle = await turn.sign([request], { executionId })
 *   assertStillValid()
 *   ledger.atomically(() => {
 *     turn.store(bundle)
 *     ledger.executions.transition(id, execution, 'submitted', 'execute signed')
 *   })
 *   const { broadcast } = turn.send(bundle)
 * } finally {
 *   turn.end()
 * }
 */
export async function takeWalletTurn(
  signing: SigningCore,
  broadcasts: Pick<BroadcastQueue, 'send' | 'waiting' | 'noneWaiting'>,
  dryRun: boolean,
): Promise<WalletTurn> {
  const { chainId, ledger, nonces, signer } = signing
  // Outside the lock: a refused bundle's repair takes it.
  if (broadcasts.waiting() > 0) await broadcasts.noneWaiting()
  const fees = await signing.feeSource.current()
  const release = await signing.lock.acquire()
  let ended = false
  let stored: { bundle: SignedBundle; records: TransactionRecord[] } | undefined

  const handOver = (bundle: SignedBundle, records: TransactionRecord[]): SentTransactions => {
    signer.committed(bundle, records)
    failpoint('stored')
    if (dryRun) return giveBackDryRun(signing, bundle, records)
    let handed = () => {}
    const handedOver = new Promise<void>((resolve) => {
      handed = resolve
    })
    // A bundle that never gets its turn (the queue cleared on stop) still settles.
    const broadcast = broadcasts.send(records, handed).finally(handed)
    return { records, broadcast, handedOver }
  }
  const committedRows = (bundle: SignedBundle) => {
    if (stored?.bundle !== bundle) return undefined
    const last = stored.records.at(-1)
    return last && ledger.transactions.isStored(chainId, last.hash) ? stored.records : undefined
  }
  const finish = () => {
    ended = true
    stored = undefined
    release()
  }
  const assertOpen = () => {
    if (ended) throw turnError(chainId, 'the wallet turn has ended')
  }

  return {
    async sign(requests, options) {
      assertOpen()
      const nonce = nonces.next()
      if (nonce === undefined) throw turnError(chainId, 'a send before recovery seeded the nonce')
      failpoint('nonce-taken')
      return signer.sign({ requests, nonce, fees, executionId: options.executionId })
    },
    store(bundle) {
      assertOpen()
      if (stored) throw turnError(chainId, 'one bundle is stored per wallet turn')
      if (bundle.nonce !== nonces.next()) throw turnError(chainId, 'the bundle was not signed in this turn')
      const records = bundle.requests.length === 0 ? [] : signer.store(bundle)
      stored = { bundle, records }
      return records
    },
    send(bundle) {
      assertOpen()
      if (ledger.database.inTransaction)
        throw turnError(chainId, 'send runs after the commit that stored the bundle, not inside it')
      if (bundle.requests.length === 0) {
        finish()
        return { records: [], broadcast: Promise.resolve([]), handedOver: Promise.resolve() }
      }
      const records = committedRows(bundle)
      if (!records) throw turnError(chainId, 'the bundle is not stored: store it, and commit, before sending')
      try {
        return handOver(bundle, records)
      } finally {
        finish()
      }
    },
    end() {
      if (ended) return
      const leftBehind = stored && committedRows(stored.bundle)
      try {
        if (stored && leftBehind) void handOver(stored.bundle, leftBehind).broadcast
      } finally {
        finish()
      }
    },
  }
}

/**
 * One transaction in a turn of its own, with nothing to check or commit beside it
 * (TransactionManager.send): signed, stored in its own commit, sent.
 */
export async function sendInOwnTurn(
  taking: Promise<WalletTurn>,
  request: TransactionRequest,
  options: SendOptions,
): Promise<SentTransaction> {
  const turn = await taking
  try {
    const bundle = await turn.sign([request], options)
    turn.store(bundle)
    const { records, broadcast } = turn.send(bundle)
    const [record] = records
    if (!record)
      throw new TransactionManagerError({
        code: 'WALLET_TURN',
        shortMessage: 'one transaction was asked for, none was signed',
      })
    return { record, broadcast: broadcast.then(([result]) => result ?? { status: 'not-sent' as const }) }
  } finally {
    turn.end()
  }
}

/** A dry run's bundle: stored to show what would be sent, failed, never sent; its nonces free again. */
function giveBackDryRun(signing: SigningCore, bundle: SignedBundle, records: readonly TransactionRecord[]) {
  const { ledger, chainId, nonces } = signing
  const failed = records.map((record) =>
    ledger.transactions.markFailed(chainId, record.hash, 'dry run: never broadcast'),
  )
  // Last taken first: each is then the last one taken when given back.
  for (let taken = bundle.nonce + records.length - 1; taken >= bundle.nonce; taken--) nonces.giveBack(taken)
  return {
    records: failed,
    broadcast: Promise.resolve(records.map(() => ({ status: 'not-sent' as const }))),
    handedOver: Promise.resolve(),
  }
}

function turnError(chainId: number, message: string) {
  return new TransactionManagerError({
    code: 'WALLET_TURN',
    shortMessage: `Chain ${chainId}: ${message}`,
    details: { chainId },
  })
}
