import { getBlockNumber } from 'viem/actions'
import type { ChainBlocks } from './chainBlocks.js'
import { commitInclusion, inclusionBlockOf, receiptOf } from './inclusionLoop.js'
import type { ManagerCore, ManagerLoop } from './managerCore.js'
import { recordReorged } from './recordOutcome.js'

/**
 * The reorg loop of a transaction manager (tx-sitter's "handle reorgs" task): when the chain's
 * watcher reports that blocks were replaced, the wallet's transactions mined there are pending again
 * in the ledger, each with a `reorged` outcome for the engine (which reverses its fills); then
 * `afterReorg` runs (the manager checks what the reorg put back at once).
 *
 * @example
 * const reorgs = createReorgLoop(core, blocks, () => pendingChecks.checkNow())
 * reorgs.start()
 */
export function createReorgLoop(core: ManagerCore, blocks: ChainBlocks, afterReorg: () => void): ManagerLoop {
  let unsubscribe: (() => void) | undefined
  let current: Promise<void> | undefined
  return {
    start() {
      unsubscribe = blocks.subscribe({
        onBlocks: () => {},
        onReorg: (event) => {
          current = followReorg(core, event).then(() => {
            // What the reorg put back is checked now, not at the next tick: an execute that can no
            // longer land before its deadline is cancelled at its nonce before a block mines it.
            if (event.removed.length > 0) afterReorg()
          })
          return current
        },
        waiting: () => false,
      })
    },
    async stop() {
      unsubscribe?.()
      await current?.catch(() => undefined)
    },
  }
}

/**
 * A reorg removed every block above `forkNumber`: each of our transactions mined there is pending
 * again (its `reorged` outcome waits for the engine, which reverses its fills), the settlement
 * checkpoint goes back to the fork, and the new branch's blocks, reported next, include them again
 * where they landed. A reorg deeper than the watcher's window halts trading.
 *
 * @example
 * await reverseReorgedTransactions(core, { forkNumber: 41n, removed, beyondWindow: false })
 */
export async function reverseReorgedTransactions(
  core: ManagerCore,
  event: { forkNumber: bigint; beyondWindow: boolean },
): Promise<void> {
  const { ledger, chainId, address } = core
  const reason = `a reorg removed the blocks above ${event.forkNumber}`
  const reorged = ledger.transactions
    .listMinedTransactions(chainId, { fromBlock: event.forkNumber + 1n })
    .filter((tx) => tx.from.toLowerCase() === address.toLowerCase())
  for (const tx of reorged) {
    ledger.atomically(() =>
      recordReorged(ledger, ledger.transactions.markUnmined(chainId, tx.hash, reason), reason),
    )
    core.lastSentAt.set(tx.hash, core.now())
  }
  const checkpoint = ledger.checkpoints.getCheckpoint(chainId)
  if (checkpoint !== undefined && checkpoint > event.forkNumber)
    ledger.checkpoints.rewindCheckpoint(chainId, event.forkNumber)
  if (event.beyondWindow) {
    const why = `chain ${chainId}: a reorg deeper than the ${core.settings.reorgWindow} blocks remembered (fork at or below ${event.forkNumber}): fills before it cannot be re-checked automatically. Run the reconciliation (stockroute start does at each start), check the ledger against the chain, then resume.`
    ledger.risk.halt(why)
    core.emit({ kind: 'error', message: why })
  }
}

/**
 * What the manager does when its block watcher reports a reorg: counted, told to the operator, our
 * transactions in the removed blocks taken back (fills reversed), and, when the fork lies before the
 * watcher's start, every transaction of ours mined in the window checked against the chain.
 *
 * @example
 * await followReorg(core, { forkNumber: 41n, removed, beyondWindow: false, beforeStart: false })
 */
export async function followReorg(
  core: ManagerCore,
  event: { forkNumber: bigint; removed: readonly unknown[]; beyondWindow: boolean; beforeStart: boolean },
): Promise<void> {
  core.counters.reorgs += 1
  core.emit({
    kind: 'reorg',
    forkNumber: event.forkNumber,
    removed: event.removed.length,
    beyondWindow: event.beyondWindow,
  })
  await reverseReorgedTransactions(core, event)
  if (event.beforeStart) await recheckRecentlyMined(core)
}

/**
 * Our transactions mined in the last `reorgWindow` blocks: still where the ledger says? One that
 * moved or vanished is taken back (its fill reversed) and, when found elsewhere, included again.
 *
 * @example
 * await recheckRecentlyMined(core)
 */
export async function recheckRecentlyMined(core: ManagerCore): Promise<void> {
  const { ledger, chainId, address, publicClient, settings } = core
  const head = await getBlockNumber(publicClient, { cacheTime: 0 })
  const fromBlock = head > BigInt(settings.reorgWindow) ? head - BigInt(settings.reorgWindow) : 0n
  const recent = ledger.transactions
    .listMinedTransactions(chainId, { fromBlock })
    .filter((tx) => tx.from.toLowerCase() === address.toLowerCase())
  for (const tx of recent) {
    const receipt = await receiptOf(core, tx.hash)
    const where =
      receipt &&
      (tx.blockHash === null ? receipt.blockNumber === tx.blockNumber : receipt.blockHash === tx.blockHash)
    if (where) continue
    const reason = receipt
      ? `found in block ${receipt.blockNumber} at restart, not in block ${tx.blockNumber} (a reorg while stopped)`
      : `not on chain at restart (a reorg while stopped removed block ${tx.blockNumber})`
    const back = ledger.atomically(() => {
      const unmined = ledger.transactions.markUnmined(chainId, tx.hash, reason)
      recordReorged(ledger, unmined, reason)
      return unmined
    })
    if (receipt) commitInclusion(core, back, receipt, await inclusionBlockOf(core, receipt))
  }
}
