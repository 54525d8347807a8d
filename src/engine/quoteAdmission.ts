/** A place among the executions let in; leaving twice is leaving once. */
export type AdmissionTicket = { leave(): void }

/**
 * How many executions of the engine are, at once, between asking for their router quote and
 * handing their execute to the node. All chains and wallets share the process' one JS thread: when
 * a burst asks for many quotes together, they arrive together, and each then waits behind the
 * others' guard, simulation and signing, ageing in the process. Letting in only a few at a time
 * keeps each quote's own path short; the others wait before asking, not while holding a quote.
 */
export type QuoteAdmission = {
  /** Waits for a place (in order of arrival); rejects with the signal's reason if it aborts first. */
  enter(signal?: AbortSignal): Promise<AdmissionTicket>
  /** Executions let in now, and waiting. */
  status(): { inside: number; waiting: number; limit: number | undefined }
}

/**
 * A {@link QuoteAdmission} of `limit` places; `undefined` lets everyone in at once.
 *
 * @example
 * const admission = createQuoteAdmission(4)
 * const ticket = await admission.enter(signal)
 * try { await quoteAndSend() } finally { ticket.leave() }
 */
export function createQuoteAdmission(limit: number | undefined): QuoteAdmission {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new RangeError(`maxQuotesInFlight ${limit} must be a whole number >= 1, or unset for no limit`)
  let inside = 0
  const waiting: { admit: () => void }[] = []

  const ticket = (): AdmissionTicket => {
    inside += 1
    let left = false
    return {
      leave() {
        if (left) return
        left = true
        inside -= 1
        waiting.shift()?.admit()
      },
    }
  }

  return {
    enter(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (limit === undefined || (inside < limit && waiting.length === 0)) return Promise.resolve(ticket())
      return new Promise((resolve, reject) => {
        const entry = {
          admit: () => {
            signal?.removeEventListener('abort', onAbort)
            resolve(ticket())
          },
        }
        const onAbort = () => {
          const at = waiting.indexOf(entry)
          if (at >= 0) waiting.splice(at, 1)
          reject(signal?.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        waiting.push(entry)
      })
    },
    status: () => ({ inside, waiting: waiting.length, limit }),
  }
}
