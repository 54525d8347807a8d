import { type Hash, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem'
import {
  getBlock,
  getBlockNumber,
  getTransaction,
  getTransactionCount,
  getTransactionReceipt,
} from 'viem/actions'
import { findTransactionAtNonce } from '../chain/findTransactionAtNonce.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { WatchedBlock } from './blockWatcher.js'
import { failpoint } from './failpoints.js'
import type { ManagerCore } from './managerCore.js'
import type { InclusionBlock } from './types.js'

/**
 * The receipts of our pending transactions in new blocks (read at once), committed in block order
 * with their consequences (the handler's fill and execution end) in one ledger transaction; each
 * transaction's part in a savepoint of its own, so one that cannot be recorded does not hold back
 * the others.
 *
 * @example
 * await includeFromBlocks(core, blocks)
 */
export async function includeFromBlocks(core: ManagerCore, blocks: readonly WatchedBlock[]): Promise<void> {
  if (blocks.every((block) => block.transactions.length === 0)) return
  const byHash = new Map(unresolved(core).map((tx) => [tx.hash.toLowerCase(), tx]))
  const found: { tx: TransactionRecord; block: WatchedBlock }[] = []
  for (const block of blocks)
    for (const hash of block.transactions) {
      const tx = byHash.get(hash.toLowerCase())
      if (tx) found.push({ tx, block })
    }
  if (found.length === 0) return
  const receipts = await Promise.all(
    found.map(async ({ tx, block }) => {
      const receipt = await core.earlyReceipts.take(tx.hash)
      return receipt?.blockHash === block.hash ? receipt : receiptOf(core, tx.hash)
    }),
  )
  const seenAtMs = core.now()
  // What can wait lets the engine's held quotes go first; a kill meanwhile is a kill before the receipt.
  await core.beforeInclusions()
  // Stopped meanwhile: the next start's recovery finds these receipts.
  if (core.signal.aborted) return
  // The node may answer for the block before it serves the receipt: the next check finds it.
  // Committed with the other wallets' inclusions of this moment: one fsync for all their fills.
  await commitInclusions(
    core,
    found.flatMap(({ tx, block }, index) => {
      const receipt = receipts[index]
      return receipt && receipt.blockHash === block.hash
        ? [{ tx, receipt, block: { ...block, seenAtMs } }]
        : []
    }),
    'soon',
  )
}

/**
 * Records that `tx` is in `block`: mined, with the handler's consequences, in one ledger transaction;
 * nothing when the ledger has it mined already (a block and a check can both see it; a mined one
 * moves only through a reorg the block watcher reports).
 */
export function commitInclusion(
  core: ManagerCore,
  tx: TransactionRecord,
  receipt: TransactionReceipt,
  block: InclusionBlock,
): boolean {
  return commitInclusions(core, [{ tx, receipt, block }]) > 0
}

/**
 * {@link commitInclusion} for several transactions, in one ledger transaction; returns how many
 * were new. `soon`: that transaction is the ledger's shared one of this moment (commitSoon), so the
 * fills of several wallets' transactions seen in one poll cost one fsync.
 */
function commitInclusions(core: ManagerCore, inclusions: readonly Inclusion[]): number
function commitInclusions(core: ManagerCore, inclusions: readonly Inclusion[], soon: 'soon'): Promise<number>
function commitInclusions(
  core: ManagerCore,
  inclusions: readonly Inclusion[],
  soon?: 'soon',
): number | Promise<number> {
  const { ledger, chainId } = core
  if (inclusions.length === 0) return soon ? Promise.resolve(0) : 0
  for (const { tx } of inclusions) {
    failpoint('receipt-seen')
    core.onReceipt(tx)
    // An execute's inclusion is where its fill is written.
    if (tx.kind === 'execute') failpoint('before-fill-commit')
  }
  const problems: string[] = []
  const write = () => {
    core.markBroadcasts()
    return inclusions.flatMap(({ tx, receipt, block }) => {
      try {
        return ledger.atomically(() => {
          const current = ledger.transactions.getTransaction(chainId, tx.hash)
          // Mined already, in this block or another: it stays there until the block watcher reports
          // that block removed (reverseReorgedTransactions takes it back, then the new branch's block
          // includes it). A check that read its receipt after a reorg, from a list taken before the
          // first inclusion, must not move it: the reorg would then take back the right block's fill.
          if (!current || current.status === 'mined') return []
          const mined = ledger.transactions.markMined(chainId, tx.hash, {
            blockNumber: block.number,
            blockHash: block.hash,
            status: receipt.status,
          })
          core.handler.included(mined, receipt, block)
          return [mined]
        })
      } catch (error) {
        // A storage fault ends the whole commit; anything else is this transaction's alone.
        if (ledger.storageFault) throw error
        problems.push(`${tx.kind} ${tx.hash}: ${error instanceof Error ? error.message : String(error)}`)
        return []
      }
    })
  }
  const after = (committed: TransactionRecord[]) => {
    for (const problem of problems)
      core.emit({ kind: 'error', message: `chain ${chainId}: could not record the inclusion of ${problem}` })
    for (const mined of committed) core.handler.settled?.(mined)
    return committed.length
  }
  return soon ? ledger.commitSoon(write).then(after) : after(ledger.atomically(write))
}

type Inclusion = { tx: TransactionRecord; receipt: TransactionReceipt; block: InclusionBlock }

/**
 * A reorg removed every block above `forkNumber`: each of our transactions mined there is pending
 * again (its fills reversed once, its execution back to submitted, by the handler), the settlement
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
    const back = ledger.atomically(() => {
      const unmined = ledger.transactions.markUnmined(chainId, tx.hash, reason)
      core.handler.reorged(unmined, reason)
      return unmined
    })
    core.lastSentAt.set(tx.hash, core.now())
    core.handler.settled?.(back)
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
 * One pass over the wallet's unresolved transactions, nonce by nonce:
 * - a nonce the chain has used: ours found by receipt (committed), else the transaction that used it
 *   is found and ours are dropped ("nonce used by another program") — never guessed;
 * - a nonce below ours with no live transaction (a refused one, a crash): filled with a self-transfer;
 * - a pending one: never sent or dropped by the node (a reorg took it out) → the same bytes again
 *   while its deadline leaves the time to land, else a cancel; stuck for `stuckAfterMs` → re-priced
 *   while its deadline allows, else cancelled; still pending at the last check before its deadline
 *   → cancelled, so that it cannot be mined after it and revert.
 *
 * @example
 * await checkPending(core)
 */
export async function checkPending(core: ManagerCore): Promise<void> {
  const { publicClient, address } = core
  const latest = await getTransactionCount(publicClient, { address, blockTag: 'latest' })
  const slots = slotsOf(unresolved(core))
  for (const [nonce, candidates] of slots) {
    if (core.signal.aborted) return
    if (nonce < latest) await resolveUsedNonce(core, nonce, candidates)
    else await keepAlive(core, candidates)
  }
  const next = core.nonces.next()
  if (next === undefined) return
  for (let nonce = latest; nonce < next; nonce++) {
    if (core.signal.aborted) return
    if (slots.has(nonce)) continue
    if (core.ledger.transactions.listTransactionsAtNonce(core.chainId, address, nonce).some(isLive)) continue
    await core.fillGap(nonce)
  }
}

/** The chain used `nonce`: which of ours landed, or whose transaction it was. */
export async function resolveUsedNonce(
  core: ManagerCore,
  nonce: number,
  candidates: readonly TransactionRecord[],
): Promise<void> {
  for (const tx of [...candidates].reverse()) {
    const receipt = await receiptOf(core, tx.hash)
    if (receipt) {
      commitInclusion(core, tx, receipt, await inclusionBlockOf(core, receipt))
      return
    }
  }
  const found = await findTransactionAtNonce(core.publicClient, { address: core.address, nonce })
  if (!found) return // Not visible yet at the block the count came from: the next check decides.
  const ours = core.ledger.transactions.getTransaction(core.chainId, found.hash)
  if (ours) {
    const receipt = await receiptOf(core, found.hash)
    if (receipt) commitInclusion(core, ours, receipt, await inclusionBlockOf(core, receipt))
    return
  }
  const reason = `nonce ${nonce} was used by ${found.hash} in block ${found.blockNumber}, a transaction this ledger did not sign: another program sends from this wallet`
  const current = candidates.at(-1)
  if (!current) return
  core.ledger.atomically(() => {
    for (const tx of candidates) core.ledger.transactions.markDropped(core.chainId, tx.hash, reason)
    core.handler.abandoned(current, reason)
  })
  core.emit({ kind: 'error', message: `chain ${core.chainId}: ${reason}` })
  core.handler.settled?.(current)
}

/** A pending nonce: keep its newest transaction on its way, or cancel it when it can no longer land in time. */
async function keepAlive(core: ManagerCore, candidates: readonly TransactionRecord[]): Promise<void> {
  const current = candidates.at(-1)
  if (!current || (current.status !== 'signed' && current.status !== 'broadcast')) return
  // On its way: the broadcast queue sends it (in nonce order), not this check.
  if (core.sending.has(current.hash)) return
  const nowMs = core.now()
  const deadline = deadlineOfSlot(core, candidates)
  const canLand = deadline === undefined || nowMs + core.timeToLandMs() < deadline
  const cancelled = current.kind === 'cancel' || current.kind === 'gap-fill'
  // Still `signed` in the ledger but sent by this process: accepted moments ago, its mark not
  // written yet (broadcastMarks), or sent without an answer. The node says whether it has it.
  const sent = current.status === 'broadcast' || core.lastSentAt.has(current.hash)
  const onNode = sent
    ? await getTransaction(core.publicClient, { hash: current.hash }).catch(() => null)
    : null
  if (!onNode) {
    if (canLand || cancelled) {
      await core.rebroadcast(current, sent ? 'the node no longer has it' : 'never confirmed sent')
      return
    }
    await core.replace(
      current,
      'cancel',
      `its deadline passed before it was sent again (${new Date(deadline ?? 0).toISOString()})`,
    )
    return
  }
  // The last check before its deadline cancels it: a cancel sent after the deadline may come after
  // the block that mines it to revert (an execute back in the pool after a reorg, mining paused).
  if (deadline !== undefined && !cancelled && nowMs + cancelLeadMs(core) >= deadline) {
    await core.replace(
      current,
      'cancel',
      `still pending ${Math.max(0, deadline - nowMs)} ms before its deadline ${new Date(deadline).toISOString()}: cancelled before it can land too late`,
    )
    return
  }
  const sentAt = core.lastSentAt.get(current.hash)
  if (sentAt === undefined) {
    core.lastSentAt.set(current.hash, nowMs)
    return
  }
  if (nowMs - sentAt < core.settings.stuckAfterMs) return
  const replaced =
    canLand || cancelled
      ? await core.replace(
          current,
          'speed-up',
          `pending for ${Math.round((nowMs - sentAt) / 1000)} s: re-priced`,
        )
      : await core.replace(
          current,
          'cancel',
          `pending for ${Math.round((nowMs - sentAt) / 1000)} s and too late to land in time`,
        )
  if (!replaced) core.lastSentAt.set(current.hash, nowMs)
}

/**
 * How long before its deadline a transaction still pending is cancelled: one check period and a
 * half, so that one check always falls in that stretch (checks follow each other `checkMs` apart,
 * plus the time each takes).
 */
function cancelLeadMs(core: ManagerCore): number {
  return Math.round(core.settings.checkMs * 1.5)
}

/** The deadline of a nonce's call: the execute's (a cancel of it has none). */
function deadlineOfSlot(core: ManagerCore, candidates: readonly TransactionRecord[]): number | undefined {
  const current = candidates.at(-1)
  if (!current || current.kind === 'cancel' || current.kind === 'gap-fill') return undefined
  return core.handler.deadlineOf(current)
}

function unresolved(core: ManagerCore): TransactionRecord[] {
  return core.ledger.transactions.listUnresolvedTransactions(core.chainId, core.address)
}

/** Unresolved transactions by nonce, oldest first within a nonce (the last is the newest replacement). */
function slotsOf(transactions: readonly TransactionRecord[]): Map<number, TransactionRecord[]> {
  const slots = new Map<number, TransactionRecord[]>()
  for (const tx of transactions) {
    const slot = slots.get(tx.nonce) ?? []
    slot.push(tx)
    slots.set(tx.nonce, slot)
  }
  for (const slot of slots.values()) slot.sort((a, b) => a.id - b.id)
  return new Map([...slots].sort(([a], [b]) => a - b))
}

function isLive(tx: TransactionRecord): boolean {
  return (
    tx.status === 'signed' || tx.status === 'broadcast' || tx.status === 'mined' || tx.status === 'replaced'
  )
}

export async function receiptOf(core: ManagerCore, hash: Hash): Promise<TransactionReceipt | undefined> {
  try {
    return await getTransactionReceipt(core.publicClient, { hash })
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined
    throw error
  }
}

export async function inclusionBlockOf(
  core: ManagerCore,
  receipt: TransactionReceipt,
): Promise<InclusionBlock> {
  const block = await getBlock(core.publicClient, { blockHash: receipt.blockHash })
  return { number: receipt.blockNumber, hash: receipt.blockHash, timestamp: block.timestamp }
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
      core.handler.reorged(unmined, reason)
      return unmined
    })
    core.handler.settled?.(back)
    if (receipt) commitInclusion(core, back, receipt, await inclusionBlockOf(core, receipt))
  }
}
