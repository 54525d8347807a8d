import { parseTransaction } from 'viem'
import type { TransactionRecord } from '../store/transactions.js'
import { failpoint } from './failpoints.js'
import { feesOf, replacementFees } from './fees.js'
import { recordAbandoned } from './recordOutcome.js'
import type { SigningCore } from './signingCore.js'
import type { BroadcastResult, TransactionRequest } from './types.js'

// What a transaction manager does to its own transactions after signing them: give a refused one's
// nonce back, replace a stuck one, fill a gap, send one again. Each takes the critical section.

/**
 * The node refused `records` for good (a bundle's refused members, lowest nonce first): each is
 * failed with its execution told; their nonces are given back when they are the
 * last taken, else the pending check fills them. Handled from the highest nonce down, so a whole
 * refused bundle gives all its nonces back.
 */
export function refuseAll(core: SigningCore, records: readonly TransactionRecord[], error: string) {
  return core.lock.run(async () => {
    const { ledger, chainId } = core
    const [first] = records
    const descending = [...records].sort((a, b) => b.nonce - a.nonce)
    for (const record of descending) {
      const reason =
        record === first
          ? `the node refused ${record.kind} ${record.hash}: ${error}`
          : `the node refused ${record.kind} ${record.hash} after ${first?.kind} ${first?.hash}: ${error}`
      ledger.atomically(() => {
        ledger.transactions.markFailed(chainId, record.hash, reason)
        if (record.replacesId === null) recordAbandoned(ledger, record, reason)
      })
      if (record.replacesId === null) core.nonces.giveBack(record.nonce)
    }
  })
}

/**
 * Part of a bundle was refused for good. The refused ones fail (their nonces come back when they
 * are the last taken); one sent after a refused one would wait behind its nonce and then land
 * without it (an execute without its approval reverts), so it is cancelled (a self-transfer at its
 * nonce, its execution failed with the reason) and the refused nonces below it are filled.
 */
export async function afterRefusal(
  core: SigningCore,
  records: readonly TransactionRecord[],
  results: readonly BroadcastResult[],
  first: number,
): Promise<void> {
  const refusedResult = results[first]
  const refused = records[first]
  if (!refused || refusedResult?.status !== 'refused') return
  const why = `${refused.kind} ${refused.hash} before it was refused (${refusedResult.error})`
  const laterLive = records.filter((_, index) => index > first && results[index]?.status !== 'refused')
  for (const record of laterLive) {
    const cancel = await replace(core, record, 'cancel', why)
    if (!cancel) continue
    core.ledger.atomically(() => recordAbandoned(core.ledger, record, `${why}; cancelled by ${cancel.hash}`))
  }
  const allRefused = records.filter((_, index) => results[index]?.status === 'refused')
  await refuseAll(core, allRefused, refusedResult.error)
  const highestLive = Math.max(-1, ...laterLive.map((record) => record.nonce))
  for (const record of allRefused) if (record.nonce < highestLive) await fillGap(core, record.nonce)
}

/** A copy of `current`'s call (speed-up) or a self-transfer (cancel) at its nonce, with higher fees; undefined when not possible now. */
export function replace(
  core: SigningCore,
  current: TransactionRecord,
  kind: 'speed-up' | 'cancel',
  reason: string,
) {
  return core.lock.run(async (): Promise<TransactionRecord | undefined> => {
    const { ledger, chainId, address, settings } = core
    const live = ledger.transactions.getTransaction(chainId, current.hash)
    if (!live || (live.status !== 'signed' && live.status !== 'broadcast')) return undefined
    const fees = replacementFees(
      feesOf(current.raw),
      await core.feeSource.current(),
      settings.replacementBumpBps,
      settings.maxFeePerGas,
    )
    if (!fees) {
      core.emit({
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
            deadlineMs: current.deadlineMs ?? undefined,
          }
        : { kind: 'cancel', to: address, data: '0x', gas: 21_000n }
    const [record] = await core.signer.signAndStore({
      requests: [request],
      nonce: current.nonce,
      fees,
      executionId: current.executionId,
      replaces: current,
    })
    if (!record) return undefined
    failpoint('replacement-stored')
    core.counters.replacements += 1
    core.emit({ kind: 'replaced', nonce: current.nonce, hash: record.hash, replaces: current.hash, reason })
    void core.broadcast([record])
    return record
  })
}

/** A zero-value self-transfer at `nonce`, which no live transaction of ours holds. */
export function fillGap(core: SigningCore, nonce: number) {
  return core.lock.run(async () => {
    const [record] = await core.signer.signAndStore({
      requests: [{ kind: 'gap-fill', to: core.address, data: '0x', gas: 21_000n }],
      nonce,
      fees: await core.feeSource.current(),
      executionId: null,
    })
    if (!record) throw new Error(`chain ${core.chainId}: the gap fill at nonce ${nonce} was not signed`)
    core.counters.gapsFilled += 1
    core.emit({ kind: 'gap-filled', nonce, hash: record.hash })
    void core.broadcast([record])
    return record
  })
}

/** The same signed bytes, to the node again (it dropped them, or never answered). */
export async function rebroadcast(
  core: SigningCore,
  record: TransactionRecord,
  reason: string,
): Promise<BroadcastResult> {
  core.counters.rebroadcasts += 1
  core.emit({ kind: 'rebroadcast', nonce: record.nonce, hash: record.hash, reason })
  const [result] = await core.broadcast([record])
  return result ?? { status: 'unknown', error: 'not sent', atMs: Date.now() }
}
