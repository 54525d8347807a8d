/** One execution's hold on a router quote: from its arrival to the execute's hand-over to the node. */
export type QuoteWindow = {
  /** The quote arrived: work that can wait now waits for this execution. */
  open(): void
  /** The execute was handed to the node, or the quote dropped: closing twice is closing once. */
  close(): void
}

/**
 * The executions now holding a router quote, and a way for work that can wait (recording the
 * inclusions of transactions already sent) to let them pass. Every execution shares the process'
 * one JS thread: a receipt's fills and positions written while a quote is held are written on
 * that quote's time, and its 10 s of validity is what the trade runs on. Inclusions wait instead,
 * never longer than `maxWaitMs` at a time, and those released together share one commit.
 */
export type QuoteWindows = {
  /** A window for one attempt of one execution, closed until `open()`. */
  create(): QuoteWindow
  /** Resolves at once when no quote is held, else when none is (or after `maxWaitMs`, whichever comes first). */
  passed(): Promise<void>
  /** Quotes held now, and callers waiting for them to pass. */
  status(): { open: number; waiting: number; maxWaitMs: number }
}

/** One wait that {@link QuoteWindows.passed} made: how long, and whether the bound ended it. */
export type InclusionWait = { waitedMs: number; ranOut: boolean }

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
