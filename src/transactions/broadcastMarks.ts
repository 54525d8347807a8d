import type { Hex } from 'viem'
import type { Ledger } from '../store/openLedger.js'

/** Accepted broadcasts waiting to be marked in the ledger. */
export type BroadcastMarks = {
  /** The node accepted these: mark them with the next commit, or within `delayMs`. */
  add(hashes: readonly Hex[]): void
  /** Writes the waiting marks; call inside a ledger transaction about to commit. */
  write(): void
  /** Writes the waiting marks in a commit of their own (at stop). */
  flush(): void
}

/**
 * Marks accepted broadcasts (`signed` → `broadcast`) with the ledger's next commit (a receipt's,
 * usually) or within `delayMs`, never in a commit of their own per send: the mark is informational
 * (recovery sends a `signed` transaction again either way) and a commit costs an fsync.
 *
 * @example
 * const marks = createBroadcastMarks({ ledger, chainId, delayMs: 200, onError })
 * marks.add([record.hash])
 * ledger.atomically(() => { marks.write(); ledger.transactions.markMined(…) })
 */
export function createBroadcastMarks(parameters: {
  ledger: Ledger
  chainId: number
  delayMs: number
  onError: (error: unknown) => void
}): BroadcastMarks {
  const { ledger, chainId } = parameters
  const waiting: Hex[] = []
  let timer: NodeJS.Timeout | undefined
  const write = () => {
    clearTimeout(timer)
    timer = undefined
    for (const hash of waiting.splice(0)) ledger.transactions.markBroadcast(chainId, hash)
  }
  const flush = () => {
    if (waiting.length === 0 || ledger.storageFault) return
    try {
      ledger.atomically(write)
    } catch (error) {
      parameters.onError(error)
    }
  }
  return {
    add(hashes) {
      waiting.push(...hashes)
      timer ??= setTimeout(flush, parameters.delayMs)
    },
    write,
    flush,
  }
}
