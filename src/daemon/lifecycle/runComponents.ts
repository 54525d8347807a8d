import type { DaemonComponent, StopCause } from './daemonComponent.js'

/** Started components, stopped together. */
export type RunningComponents = {
  /** Interrupts every component, then stops each in reverse order of start; the first failure ends it. */
  stop(reason: string): Promise<void>
}

/**
 * Starts `components` one after the other. When one fails, `onFailure` hears why, the ones already
 * started are stopped (newest first) and the error is thrown.
 *
 * @example
 * const running = await startComponents([ledger, engine, controlApi], { onFailure: (error) => log(error) })
 * await running.stop('SIGTERM received')
 */
export async function startComponents(
  components: readonly DaemonComponent[],
  options: { onFailure: (error: unknown) => void },
): Promise<RunningComponents> {
  const started: DaemonComponent[] = []
  try {
    for (const component of components) {
      await component.start()
      started.push(component)
    }
  } catch (error) {
    options.onFailure(error)
    await stopInReverse(started, { kind: 'failedStart' })
    throw error
  }
  return {
    async stop(reason) {
      for (const component of started.toReversed()) component.interrupt?.(reason)
      await stopInReverse(started, { kind: 'stop', reason })
    },
  }
}

// One after the other, never concurrently: each may need the ones started before it (the engine
// drains on the ledger and the sandbox's chains). A failure stops the sequence and is thrown.
async function stopInReverse(started: readonly DaemonComponent[], cause: StopCause) {
  for (const component of started.toReversed()) await component.stop(cause)
}
