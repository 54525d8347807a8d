/**
 * The difference between the service's clock and ours, learnt from replies' `Date` headers, so
 * API timestamps stay inside the service's window even when this machine's clock drifts.
 */
export type ClockSkew = {
  /** Our clock corrected by the last measured offset, in Unix milliseconds. */
  now: () => number
  /** Feeds a reply's Date header, with the times the request was sent and the reply received. */
  observe: (dateHeader: string | null, sentAtMs: number, receivedAtMs: number) => void
  offsetMs: () => number
}

/** Offsets below this are noise: the Date header has a resolution of one second. */
const noiseMs = 1_000

export function createClockSkew(localNow: () => number = Date.now): ClockSkew {
  let offset = 0
  return {
    now: () => localNow() + offset,
    offsetMs: () => offset,
    observe(dateHeader, sentAtMs, receivedAtMs) {
      if (!dateHeader) return
      const serverMs = Date.parse(dateHeader)
      if (Number.isNaN(serverMs)) return
      // The header is truncated to the second: its true instant is up to 999 ms later.
      const measured = serverMs + 500 - (sentAtMs + receivedAtMs) / 2
      offset = Math.abs(measured) < noiseMs ? 0 : Math.round(measured)
    },
  }
}
