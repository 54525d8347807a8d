import cron from 'node-cron'
import { messageOf } from './jobTypes.js'

/**
 * The daemon's cron jobs (node-cron, never two runs of one job at once): a failing run is logged
 * and the next one tried; `stop` unschedules them and waits for runs in progress, so nothing
 * touches the ledger after it is closed.
 */
export function createJobRunner(logger: {
  error: (fields: Record<string, unknown>, message: string) => void
}) {
  const tasks: ReturnType<typeof cron.schedule>[] = []
  const running = new Set<Promise<void>>()
  return {
    /** `timezone`: the expression's (IANA name, e.g. 'UTC'); default the machine's. */
    schedule(
      name: string,
      expression: string,
      run: () => Promise<void>,
      options: { timezone?: string } = {},
    ) {
      const guarded = () => {
        const current = run().catch((error: unknown) =>
          logger.error({ job: name, error: messageOf(error) }, 'job failed'),
        )
        running.add(current)
        return current.finally(() => running.delete(current))
      }
      tasks.push(cron.schedule(expression, guarded, { name, noOverlap: true, ...options }))
    },
    async stop() {
      for (const task of tasks) await task.stop()
      await Promise.allSettled([...running])
    },
  }
}
