import type { BroadcastQueue } from './broadcastQueue.js'
import { failpoint } from './failpoints.js'
import { assertWritable } from './signAndStore.js'
import type { SigningCore } from './signingCore.js'
import type { SendOptions, SentTransactions, TransactionRequest } from './types.js'

/**
 * Where a nonce is taken for new transactions (TransactionManager.sendAll): inside the wallet's
 * critical section, after `options.check`, `build` says what to sign; they are signed and stored at
 * the next nonces in one commit (signAndStore.ts) and queued for the node in nonce order. A dry run
 * stores them failed and gives their nonces back.
 *
 * @example
 * const { records, broadcast } = await sendBundle(signing, broadcasts, () => [request], { executionId }, false)
 */
export async function sendBundle(
  signing: SigningCore,
  broadcasts: Pick<BroadcastQueue, 'send' | 'waiting' | 'noneWaiting'>,
  build: () => readonly TransactionRequest[],
  options: SendOptions,
  dryRun: boolean,
): Promise<SentTransactions> {
  const { chainId, ledger, nonces } = signing
  // Backpressure: sign nothing while bundles wait to be sent (a slow node), so validity is checked
  // near when the execute leaves. Outside the lock: a refused bundle's repair takes it.
  if (broadcasts.waiting() > 0) await broadcasts.noneWaiting()
  const fees = await signing.feeSource.current()
  return signing.withLock(async () => {
    options.check?.()
    assertWritable(ledger, chainId)
    const requests = build()
    const nonce = nonces.next()
    if (nonce === undefined) throw new Error(`chain ${chainId}: send before recovery seeded the nonce`)
    if (requests.length === 0)
      return { records: [], broadcast: Promise.resolve([]), handedOver: Promise.resolve() }
    failpoint('nonce-taken')
    const records = await signing.signAndStore({
      requests,
      nonce,
      fees,
      executionId: options.executionId,
      alsoInLedger: options.alsoInLedger,
    })
    failpoint('stored')
    if (dryRun) {
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
    const broadcast = broadcasts.send(records, handed).finally(handed)
    return { records, broadcast, handedOver }
  })
}
