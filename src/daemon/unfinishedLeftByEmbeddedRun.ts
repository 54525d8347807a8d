import { dirname, join } from 'node:path'
import { plural } from '@stockroute/client/domain/plural.js'

/**
 * What becomes of the executions an embedded run leaves unfinished: nothing recovers them, because
 * the sandbox's chains end with the run and the next start archives this ledger (see
 * `startEmbeddedSandbox`); they stay in it as they are.
 *
 * @example
 * unfinishedLeftByEmbeddedRun(2, 'data/stockroute.sqlite')
 * // '2 executions left unfinished: the embedded sandbox's chains end with this run, so they stay as they are in data/stockroute.sqlite, which the next start moves to data/archive/'
 */
export function unfinishedLeftByEmbeddedRun(count: number, ledgerPath: string): string {
  if (count === 0) return 'nothing left unfinished'
  return `${plural(count, 'execution')} left unfinished: the embedded sandbox's chains end with this run, so they stay as they are in ${ledgerPath}, which the next start moves to ${join(dirname(ledgerPath), 'archive')}/`
}
