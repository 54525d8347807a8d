import type { InclusionWait, QuoteWindows } from './types.js'

/**
 * A {@link QuoteWindows} whose waiters never wait longer than `maxWaitMs` (0: they never wait).
 * `onWaited` hears of every wait that was not let through at once.
 *
 * @example
 * const windows = createQuoteWindows({ maxWaitMs: 150 })
 * const window = windows.create()
 * window.open() // the quote arrived
 * void windows.passed().then(recordInclusions) // runs once the window closes, or 150 ms later
 * window.close() // the execute is handed to the node
 */
export function createQuoteWindows(options: {
  maxWaitMs: number
  onWaited?: ((wait: InclusionWait) => void) | undefined
  now?: (() => number) | undefined
}): QuoteWindows {
  const { maxWaitMs, onWaited } = options
  const now = options.now ?? (() => performance.now())
  if (!Number.isInteger(maxWaitMs) || maxWaitMs < 0)
    throw new RangeError(
      `maxInclusionDelayMs ${maxWaitMs} must be a whole number of ms >= 0 (0: inclusions never wait)`,
    )
  let open = 0
  let waiters: (() => void)[] = []

  const release = () => {
    const released = waiters
    waiters = []
    for (const resolve of released) resolve()
  }

  return {
    create() {
      let state: 'closed' | 'open' | 'done' = 'closed'
      return {
        open() {
          if (state !== 'closed') return
          state = 'open'
          open += 1
        },
        close() {
          const wasOpen = state === 'open'
          state = 'done'
          if (!wasOpen) return
          open -= 1
          if (open === 0) release()
        },
      }
    },
    passed() {
      if (open === 0 || maxWaitMs === 0) return Promise.resolve()
      const startedAt = now()
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== done)
          onWaited?.({ waitedMs: now() - startedAt, ranOut: true })
          resolve()
        }, maxWaitMs)
        const done = () => {
          clearTimeout(timer)
          onWaited?.({ waitedMs: now() - startedAt, ranOut: false })
          resolve()
        }
        waiters.push(done)
      })
    },
    status: () => ({ open, waiting: waiters.length, maxWaitMs }),
  }
}
