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
    schedule(name: string, expression: string, run: () => Promise<void>) {
      const guarded = () => {
        const current = run().catch((error: unknown) =>
          logger.error({ job: name, error: messageOf(error) }, 'job failed'),
        )
        running.add(current)
        return current.finally(() => running.delete(current))
      }
      tasks.push(cron.schedule(expression, guarded, { name, noOverlap: true }))
    },
    async stop() {
      for (const task of tasks) await task.stop()
      await Promise.allSettled([...running])
    },
  }
}
