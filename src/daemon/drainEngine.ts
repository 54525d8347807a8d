import { plural } from '@stockroute/client/domain/plural.js'
import type { Ledger } from '../store/openLedger.js'

/**
 * The last part of a stop: the engine (already closing, `closed`) gets `graceMs` for its executions
 * in flight, then `abort` cancels what has not been broadcast and the engine is awaited. Meanwhile
 * it says which executions it waits for, at once and whenever the set changes, so a quiet terminal
 * never looks hung.
 *
 * @example
 * await drainEngine({ closed: engine.close(), ledger, write, graceMs: 5000, abort: () => shutdown.abort() })
 */
export async function drainEngine(parameters: {
  closed: Promise<void>
  ledger: Pick<Ledger, 'executions'>
  write: (line: string) => void
  graceMs: number
  abort: () => void
  /** How often the ledger is looked at; default 500 ms. */
  pollMs?: number
}): Promise<void> {
  const { closed, ledger, write, graceMs, abort, pollMs = 500 } = parameters
  let said = ''
  const sayWhatIsInFlight = () => {
    const ids = ledger.executions.listUnfinishedExecutions().map((execution) => execution.id)
    if (ids.join(', ') === said) return
    said = ids.join(', ')
    if (ids.length > 0) write(`waiting for ${plural(ids.length, 'execution')} in flight (${said})`)
  }
  sayWhatIsInFlight()
  const watch = setInterval(sayWhatIsInFlight, pollMs)
  let graceTimer: NodeJS.Timeout | undefined
  const graceOver = new Promise<'grace over'>((resolve) => {
    graceTimer = setTimeout(resolve, graceMs, 'grace over')
  })
  try {
    if ((await Promise.race([closed.then(() => 'closed' as const), graceOver])) === 'grace over') {
      write(`the grace of ${graceMs} ms is over: cancelling what has not been broadcast`)
      abort()
      await closed
    }
  } finally {
    clearInterval(watch)
    clearTimeout(graceTimer)
  }
}
