// How long the JS thread waits in each of the ledgers' COMMIT statements during bench:engine (the
// WAL frames written and fsync'd; a checkpoint as well when SQLite runs it inside the commit).
import Database from 'better-sqlite3'
import type { TimedSample } from './diskProbe.js'

export type CommitClock = {
  /** The COMMITs since the last call (or the start): when each started (ms since the epoch) and its ms. */
  take(): TimedSample[]
  /** Puts better-sqlite3's statement back as it was. */
  stop(): void
}

/**
 * Times every `COMMIT` run by better-sqlite3 in this process (its transactions end with a prepared
 * `COMMIT` statement), by wrapping the statements' `run`: a string compare per statement besides.
 *
 * @example
 * const clock = timeCommits()
 * clock.take() // discard the set-up's commits
 * await run()
 * const commitsMs = clock.take().map((commit) => commit.ms)
 */
export function timeCommits(): CommitClock {
  const probe = new Database(':memory:')
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as {
    run: (this: { source: string }, ...args: unknown[]) => unknown
  }
  probe.close()
  const run = statement.run
  let samples: TimedSample[] = []
  statement.run = function timedRun(this: { source: string }, ...args: unknown[]) {
    if (this.source !== 'COMMIT') return run.apply(this, args)
    const started = performance.now()
    try {
      return run.apply(this, args)
    } finally {
      samples.push({ atMs: performance.timeOrigin + started, ms: performance.now() - started })
    }
  }
  return {
    take() {
      const taken = samples
      samples = []
      return taken
    },
    stop() {
      statement.run = run
    },
  }
}
