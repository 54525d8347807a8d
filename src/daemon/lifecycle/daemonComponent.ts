/** Why components stop: the daemon's stop (and its reason), or a start that failed part way. */
export type StopCause = { kind: 'stop'; reason: string } | { kind: 'failedStart' }

/**
 * One part of the daemon with a lifecycle of its own (the ledger, the engine, the control API…):
 * the daemon starts its components in order and stops them in reverse order (`startComponents`).
 */
export type DaemonComponent = {
  /** Names it in a failure, e.g. 'control API'. */
  name: string
  start(): Promise<void>
  /**
   * Undoes `start`. After a failed start only the components already started are stopped, with
   * `{ kind: 'failedStart' }`: what only ends a run (draining, the run's summary) is left out.
   */
  stop(cause: StopCause): Promise<void>
  /**
   * Called on every started component the moment a stop begins, newest first, before any `stop`:
   * work that need not be waited for in turn (the cron jobs' reads) is cut short at once.
   */
  interrupt?(reason: string): void
}
