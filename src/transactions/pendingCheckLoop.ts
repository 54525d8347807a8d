import { getTransaction, getTransactionCount } from 'viem/actions'
import { findTransactionAtNonce } from '../chain/findTransactionAtNonce.js'
import type { TransactionRecord } from '../store/transactions.js'
import { commitInclusion, inclusionBlockOf, receiptOf } from './inclusionLoop.js'
import type { ManagerCore } from './managerCore.js'
import { recordAbandoned } from './recordOutcome.js'

/**
 * The pending check loop of a transaction manager (tx-sitter's "escalate" and "finalize" tasks):
 * every `checkMs` once the wallet is ready, one {@link checkPending} pass over the wallet's
 * unresolved transactions in the ledger, after the engine's held quotes; `checkNow` runs one at
 * once (or joins the one running).
 *
 * @example
 * const checks = createPendingCheckLoop(core)
 * checks.start() // after recovery
 * await checks.checkNow()
 */
export function createPendingCheckLoop(core: ManagerCore) {
  let timer: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined
  let stopped = false
  const checkNow = (): Promise<void> => {
    checking ??= checkPending(core)
      .catch((error: unknown) =>
        core.emit({
          kind: 'error',
          message: `chain ${core.chainId}: pending check failed: ${error instanceof Error ? error.message : String(error)}`,
        }),
      )
      .finally(() => {
        checking = undefined
      })
    return checking
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      // What it finds is written like the blocks' inclusions: after the engine's held quotes.
      void core
        .beforeInclusions()
        .then(() => (stopped ? undefined : checkNow()))
        .finally(schedule)
    }, core.settings.checkMs)
  }
  return {
    /** Starts the periodic checks (once the wallet's nonces are sound). */
    start: schedule,
    checkNow,
    /** Runs a check once the one running (if any) has ended. */
    checkAfterCurrent: () => void Promise.resolve(checking).then(checkNow),
    async stop() {
      stopped = true
      clearTimeout(timer)
      await checking
    },
  }
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
    recordAbandoned(core.ledger, current, reason)
  })
  core.emit({ kind: 'error', message: `chain ${core.chainId}: ${reason}` })
}

/** A pending nonce: keep its newest transaction on its way, or cancel it when it can no longer land in time. */
async function keepAlive(core: ManagerCore, candidates: readonly TransactionRecord[]): Promise<void> {
  const current = candidates.at(-1)
  if (!current || (current.status !== 'signed' && current.status !== 'broadcast')) return
  // On its way: the broadcast queue sends it (in nonce order), not this check.
  if (core.sending.has(current.hash)) return
  const nowMs = core.now()
  const deadline = deadlineOfSlot(candidates)
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

/** The deadline of a nonce's call, stored with it: the execute's (a cancel of it has none). */
function deadlineOfSlot(candidates: readonly TransactionRecord[]): number | undefined {
  const current = candidates.at(-1)
  if (!current || current.kind === 'cancel' || current.kind === 'gap-fill') return undefined
  return current.deadlineMs ?? undefined
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
