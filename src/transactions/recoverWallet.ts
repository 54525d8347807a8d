import { getTransactionCount } from 'viem/actions'
import { failpoint } from './failpoints.js'
import type { ManagerCore } from './managerCore.js'
import { checkPending } from './pendingCheckLoop.js'
import { recheckRecentlyMined } from './reorgLoop.js'

/** Waits between recovery attempts when the node cannot be reached, ms (then doubled up to 10 s). */
const firstRetryMs = 500

/**
 * Makes a wallet's nonces sound after a start, whatever instant the last run died at: the next
 * nonce is seeded from the chain (pending count) and the ledger (its high-water mark and stored
 * transactions); transactions mined in recent blocks are checked against the chain (a reorg while
 * we were down); then one pending check resolves every nonce the chain has used (ours by receipt,
 * another program's named), re-sends or cancels what was stored but never confirmed sent, and
 * fills gaps with self-transfers. Every call is bounded by the client's timeout; a failure is
 * reported through `progress` and retried with backoff until it succeeds or the manager stops, so
 * a start never hangs silently and the other chains trade meanwhile.
 *
 * @example
 * await recoverWallet(core, (step) => console.error(`chain ${core.chainId}: ${step}`))
 */
export async function recoverWallet(core: ManagerCore, progress: (step: string) => void): Promise<void> {
  const { ledger, chainId, address, publicClient } = core
  let waitMs = firstRetryMs
  for (let attempt = 1; ; attempt++) {
    core.signal.throwIfAborted()
    try {
      progress(attempt === 1 ? 'recovering: reading the wallet nonce' : `recovering: attempt ${attempt}`)
      const pending = await getTransactionCount(publicClient, { address, blockTag: 'pending' })
      const next = core.nonces.seed(pending)
      const open = ledger.transactions.listUnresolvedTransactions(chainId, address)
      failpoint('during-recovery')
      progress(
        open.length === 0
          ? `recovering: no transaction pending, next nonce ${next}`
          : `recovering: ${open.length} transaction(s) pending (nonces ${open[0]?.nonce}..${open.at(-1)?.nonce}), next nonce ${next}`,
      )
      await recheckRecentlyMined(core)
      await checkPending(core)
      progress(`nonces sound, next nonce ${core.nonces.next()}: trading`)
      return
    } catch (error) {
      if (core.signal.aborted) throw error
      progress(
        `recovery attempt ${attempt} failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); retrying in ${waitMs} ms`,
      )
      await sleep(waitMs, core.signal)
      waitMs = Math.min(waitMs * 2, 10_000)
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort)
      resolve()
    }, ms)
    const abort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', abort, { once: true })
  })
}
