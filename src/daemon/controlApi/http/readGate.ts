import { setImmediate as nextTurn } from 'node:timers/promises'
import PQueue from 'p-queue'
import { ControlApiError } from '../errors.js'

/** The turn-taking of the heavy reads of a server (see {@link createReadGate}). */
export type ReadGate = {
  /**
   * Runs `read` in its turn: after the reads before it, each in a turn of the event loop of its
   * own. Rejects with 429 `TOO_MANY_REQUESTS` at once when `maxQueued` reads are already waiting
   * or running, and with a client error when `signal` aborts (the client left) before its turn.
   */
  run<T>(read: () => T | Promise<T>, signal: AbortSignal): Promise<T>
  /** Reads waiting or running now. */
  readonly queued: number
}

/** What a client is told to wait before it retries a refused read, s. */
const retryAfterSeconds = 1

/**
 * The gate of the heavy list routes (`GET /v1/executions`, reports, series, discrepancies): each
 * reads many ledger rows and serializes them synchronously, a few milliseconds of the daemon's only
 * thread. Unpaced, a burst of 500 of them ran back to back in one turn of the event loop, and
 * `/health`, the swap API and the engine's own callbacks waited seconds behind them. Here they run
 * one at a time, each in a later turn of the loop (`setImmediate`), so that whatever else arrived
 * (a `/health` probe, a swap, a receipt) is handled between two reads; the burst's own total time
 * stays about the same. At most `maxQueued` wait or run: the next one is refused with 429 and
 * `Retry-After`, so a flood cannot grow memory without bound either.
 *
 * @example
 * const gate = createReadGate({ maxQueued: 1000 })
 * const handle = (request) => gate.run(() => listExecutionsPage(request), request.signal)
 */
export function createReadGate(options: { maxQueued: number }): ReadGate {
  const queue = new PQueue({ concurrency: 1 })
  return {
    get queued() {
      return queue.size + queue.pending
    },
    async run(read, signal) {
      if (queue.size + queue.pending >= options.maxQueued)
        throw new ControlApiError({
          status: 429,
          code: 'TOO_MANY_REQUESTS',
          message: `${options.maxQueued} heavy reads (executions, reports, series) are already waiting their turn on this daemon (api.maxQueuedReads): retry after ${retryAfterSeconds} s, or read smaller pages less often.`,
          headers: { 'retry-after': String(retryAfterSeconds) },
        })
      try {
        return await queue.add(
          async () => {
            await nextTurn()
            signal.throwIfAborted()
            return read()
          },
          { signal },
        )
      } catch (error) {
        if (!signal.aborted) throw error
        throw new ControlApiError({
          status: 400,
          code: 'BAD_REQUEST',
          message: 'The client closed the connection while its read waited its turn: nothing was read.',
          clientError: 'aborted',
          cause: error,
        })
      }
    },
  }
}
