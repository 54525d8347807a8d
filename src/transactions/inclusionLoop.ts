import { type Hash, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem'
import { getBlock, getTransactionReceipt } from 'viem/actions'
import type { TransactionRecord } from '../store/transactions.js'
import type { WatchedBlock } from './blockWatcher.js'
import type { ChainBlocks } from './chainBlocks.js'
import { failpoint } from './failpoints.js'
import type { ManagerCore, ManagerLoop } from './managerCore.js'
import { recordIncluded } from './recordOutcome.js'
import type { InclusionBlock } from './types.js'

/**
 * The inclusion loop of a transaction manager: each new block of the chain's watcher is searched
 * for the wallet's transactions still unresolved in the ledger, and those found are recorded mined,
 * with their outcome for the engine, in block order (tx-sitter's "index" task).
 *
 * @example
 * const inclusions = createInclusionLoop(core, blocks)
 * inclusions.start()
 * await inclusions.stop()
 */
export function createInclusionLoop(core: ManagerCore, blocks: ChainBlocks): ManagerLoop {
  let unsubscribe: (() => void) | undefined
  let current: Promise<void> | undefined
  return {
    start() {
      unsubscribe = blocks.subscribe({
        onBlocks: (watched) => {
          current = includeFromBlocks(core, watched)
          return current
        },
        onReorg: () => {},
        onError: (error) =>
          core.emit({
            kind: 'error',
            message: `chain ${core.chainId}: block watcher: ${error instanceof Error ? error.message : String(error)}`,
          }),
        // Signed (not sent yet) and broadcast transactions wait for their blocks.
        waiting: () => core.ledger.transactions.countUnresolvedTransactions(core.chainId, core.address) > 0,
      })
    },
    async stop() {
      unsubscribe?.()
      await current?.catch(() => undefined)
    },
  }
}

/**
 * The receipts of our pending transactions in new blocks (read at once), committed in block order
 * with their consequences (the outcome the engine settles) in one ledger transaction; each
 * transaction's part in a savepoint of its own, so one that cannot be recorded does not hold back
 * the others.
 *
 * @example
 * await includeFromBlocks(core, blocks)
 */
export async function includeFromBlocks(core: ManagerCore, blocks: readonly WatchedBlock[]): Promise<void> {
  if (blocks.every((block) => block.transactions.length === 0)) return
  const byHash = new Map(landable(core).map((tx) => [tx.hash.toLowerCase(), tx]))
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
 * The wallet's transactions that may land in a new block: each still signed or broadcast, and at a
 * nonce with a replacement, the versions it replaced (a speed-up or cancel can lose the race to
 * the transaction it replaces: that one is then the nonce's mined transaction).
 */
function landable(core: ManagerCore): TransactionRecord[] {
  const { ledger, chainId, address } = core
  const unresolved = ledger.transactions.listUnresolvedTransactions(chainId, address)
  const replacedNonces = new Set(unresolved.filter((tx) => tx.replacesId !== null).map((tx) => tx.nonce))
  const replaced = [...replacedNonces].flatMap((nonce) =>
    ledger.transactions
      .listTransactionsAtNonce(chainId, address, nonce)
      .filter((tx) => tx.status === 'replaced'),
  )
  return [...unresolved, ...replaced]
}

/**
 * Records that `tx` is in `block`: mined, with its outcome for the engine, in one ledger transaction;
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
          recordIncluded(ledger, mined, receipt, block)
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
    return committed.length
  }
  return soon ? ledger.commitSoon(write).then(after) : after(ledger.atomically(write))
}

type Inclusion = { tx: TransactionRecord; receipt: TransactionReceipt; block: InclusionBlock }

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
