import { performance } from 'node:perf_hooks'
import type { AdmissionTicket, QuoteAdmission } from './types.js'

export type QuoteAdmissionOptions = {
  /** The most places; undefined: no bound (everyone is let in at once). */
  ceiling: number | undefined
  /** The fewest places, where a busy process stays. Default 4 (or the ceiling, if lower). */
  floor?: number | undefined
  /**
   * The share of time the JS thread was busy since the last call (0 to 1). Default: the event loop's
   * utilization (`performance.eventLoopUtilization`).
   */
  busyShare?: (() => number) | undefined
  /** How often the places are adjusted, at most, ms. Default 100. */
  adjustEveryMs?: number | undefined
  now?: (() => number) | undefined
}

/** Above this share of busy time, a place is taken away. */
const busyAbove = 0.85
/** Below it, with executions waiting, a place is added. */
const idleBelow = 0.6

/**
 * A {@link QuoteAdmission} whose places follow how busy the process is, between `floor` and
 * `ceiling`: it starts at the floor; every `adjustEveryMs`, a thread busy more than 85% of the time
 * gives a place back (quotes would wait for the CPU), one idle more than 40% of it with executions
 * waiting gets one more (their quotes spend their time in the air: a slow service or RPC). A burst
 * on a fast link thus runs a few at a time, and a slow link still fills its wallets.
 *
 * @example
 * const admission = createQuoteAdmission({ ceiling: 16 })
 * const ticket = await admission.enter(signal)
 * try { await quoteAndSend() } finally { ticket.leave() }
 */
export function createQuoteAdmission(options: QuoteAdmissionOptions): QuoteAdmission {
  const { ceiling } = options
  if (ceiling !== undefined && (!Number.isInteger(ceiling) || ceiling < 1))
    throw new RangeError(`maxQuotesInFlight ${ceiling} must be a whole number >= 1, or unset for no limit`)
  const floor = Math.min(options.floor ?? 4, ceiling ?? Number.POSITIVE_INFINITY)
  const busyShare = options.busyShare ?? eventLoopBusyShare()
  const adjustEveryMs = options.adjustEveryMs ?? 100
  const now = options.now ?? (() => performance.now())
  let limit = floor
  let adjustedAt = now()
  let timer: ReturnType<typeof setTimeout> | undefined
  let inside = 0
  /** Executions inside, per wallet that said which it is. */
  const insideOf = new Map<string, number>()
  const waiting: { admit: () => void; wallet: string | undefined }[] = []

  const ticket = (wallet: string | undefined): AdmissionTicket => {
    inside += 1
    if (wallet !== undefined) insideOf.set(wallet, (insideOf.get(wallet) ?? 0) + 1)
    let left = false
    return {
      leave() {
        if (left) return
        left = true
        inside -= 1
        if (wallet !== undefined) {
          const remaining = (insideOf.get(wallet) ?? 1) - 1
          if (remaining > 0) insideOf.set(wallet, remaining)
          else insideOf.delete(wallet)
        }
        adjust()
        admitWaiting()
      },
    }
  }
  /** The first waiter whose wallet has nobody inside, else the first one. */
  const nextWaiter = () => {
    const idle = waiting.findIndex((entry) => entry.wallet === undefined || !insideOf.has(entry.wallet))
    return waiting.splice(Math.max(idle, 0), 1)[0]
  }
  const admitWaiting = () => {
    while (waiting.length > 0 && inside < limit) nextWaiter()?.admit()
  }
  const adjust = () => {
    if (ceiling === undefined || floor === ceiling) return
    const at = now()
    if (at - adjustedAt < adjustEveryMs) return
    adjustedAt = at
    const share = busyShare()
    if (share > busyAbove) limit = Math.max(floor, limit - 1)
    else if (share < idleBelow && waiting.length > 0) limit = Math.min(ceiling, limit + 1)
  }

  return {
    enter(signal, wallet) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (ceiling === undefined) return Promise.resolve(ticket(wallet))
      adjust()
      admitWaiting()
      if (inside < limit && waiting.length === 0) return Promise.resolve(ticket(wallet))
      return new Promise((resolve, reject) => {
        const entry = {
          wallet,
          admit: () => {
            signal?.removeEventListener('abort', onAbort)
            resolve(ticket(wallet))
          },
        }
        const onAbort = () => {
          const at = waiting.indexOf(entry)
          if (at >= 0) waiting.splice(at, 1)
          reject(signal?.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        waiting.push(entry)
        // Waiting is a sign of load or of a slow link: look again soon even if nobody leaves.
        scheduleAdjust()
      })
    },
    status: () => ({ inside, waiting: waiting.length, limit, floor, ceiling }),
  }

  /** While executions wait, the places are looked at every `adjustEveryMs` (nobody may leave for long on a slow link). */
  function scheduleAdjust(): void {
    if (timer !== undefined || ceiling === undefined || floor === ceiling) return
    timer = setTimeout(() => {
      timer = undefined
      adjust()
      admitWaiting()
      if (waiting.length > 0) scheduleAdjust()
    }, adjustEveryMs)
    timer.unref?.()
  }
}

/** The share of time the event loop was busy since the last call. */
function eventLoopBusyShare(): () => number {
  let last = performance.eventLoopUtilization()
  return () => {
    const current = performance.eventLoopUtilization()
    const share = performance.eventLoopUtilization(current, last).utilization
    last = current
    return share
  }
}
