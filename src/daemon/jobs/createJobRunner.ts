import cron from 'node-cron'
import { messageOf } from './jobTypes.js'

/** What a run of a job is given: the runner's stop signal, and a way to say what it is doing now. */
export type JobRunContext = {
  /** Aborted by `stop()`: a run ends its reads at once instead of waiting out their timeouts. */
  signal: AbortSignal
  /** What the run is doing, for the operator while the daemon waits for it (e.g. 'reconciliation of chain 31337'). */
  doing(activity: string): void
}

/** Where the runner says what went wrong: the daemon's log (pino's signature). */
export type JobRunnerLogger = {
  warn: (fields: Record<string, unknown>, message: string) => void
  error: (fields: Record<string, unknown>, message: string) => void
}

/**
 * node-cron's own messages (a run skipped because the last one still runs, say) into the daemon's
 * log: its default logger prints them on the console with colour codes, among the daemon's lines.
 */
function cronLoggerOf(logger: JobRunnerLogger, job: string) {
  return {
    info: () => {},
    debug: () => {},
    warn: (message: string) => logger.warn({ job }, message),
    error: (message: string | Error, error?: Error) =>
      logger.error({ job, error: String(error ?? message) }, String(message)),
  }
}

/**
 * The daemon's cron jobs (node-cron, never two runs of one job at once): a failing run is logged
 * and the next one tried; `stop` unschedules them, aborts the runs in progress and waits for them,
 * so nothing touches the ledger after it is closed and nobody waits out an RPC timeout.
 *
 * @example
 * const jobs = createJobRunner(logger)
 * jobs.schedule('reconciliation', '* * * * *', async ({ signal, doing }) => { doing('reconciliation'); await work(signal) })
 * await jobs.stop()
 */
export function createJobRunner(logger: JobRunnerLogger) {
  const tasks: ReturnType<typeof cron.schedule>[] = []
  const stopping = new AbortController()
  /** Each run in progress and what it says it is doing. */
  const running = new Map<Promise<void>, { name: string; activity: string }>()
  return {
    /** `timezone`: the expression's (IANA name, e.g. 'UTC'); default the machine's. */
    schedule(
      name: string,
      expression: string,
      run: (context: JobRunContext) => Promise<void>,
      options: { timezone?: string } = {},
    ) {
      const guarded = () => {
        if (stopping.signal.aborted) return Promise.resolve()
        const entry = { name, activity: name }
        const current = run({
          signal: stopping.signal,
          doing: (activity) => {
            entry.activity = activity
          },
        }).catch((error: unknown) => {
          // A run ended by `stop()` is not a failure.
          if (!stopping.signal.aborted) logger.error({ job: name, error: messageOf(error) }, 'job failed')
        })
        running.set(current, entry)
        return current.finally(() => running.delete(current))
      }
      tasks.push(
        cron.schedule(expression, guarded, {
          name,
          noOverlap: true,
          logger: cronLoggerOf(logger, name),
          ...options,
        }),
      )
    },
    /** What the runs in progress are doing, one entry per run (empty when none runs). */
    activities(): string[] {
      return [...running.values()].map((entry) => entry.activity)
    },
    /** Unschedules every job and aborts the runs in progress; resolves once they have ended. */
    async stop(reason: unknown = new Error('the job runner is stopping')) {
      stopping.abort(reason)
      for (const task of tasks) await task.stop()
      await Promise.allSettled([...running.keys()])
    },
  }
}
