// A TEST-ONLY switch that makes GET /api/v1/router/quote misbehave on purpose, so the engine's
// guards can be shown to refuse each kind of bad quote against the real service. It exists only when
// the service is started with `faults: true`; `npm start` and `stockroute sandbox` never do that.

/**
 * What the next router quotes get wrong (see quotes/quoteFaults.ts for each one's effect).
 * Signature faults: `wrong-signer`, `tampered-amount`, `wrong-domain`. Validly signed but not what
 * was asked for: `wrong-amount`, `wrong-token`, `wrong-spender`, `expired`, `short-validity`, `far-expiry`.
 */
export const quoteFaultNames = [
  'wrong-signer',
  'tampered-amount',
  'wrong-amount',
  'wrong-token',
  'wrong-spender',
  'expired',
  'short-validity',
  'far-expiry',
  'wrong-domain',
] as const

export type QuoteFaultName = (typeof quoteFaultNames)[number]

/**
 * The armed fault and how many more quotes it affects (`null`: every quote until cleared), and the
 * TEST-ONLY market quote statuses forced per stock symbol (POST /sandbox/v1/faults/market-status):
 * a stock listed there is quoted with that `status` instead of `normal` until cleared.
 */
export type FaultSwitch = {
  fault: QuoteFaultName | null
  remaining: number | null
  marketStatuses: Map<string, string>
}

/**
 * A switch with nothing armed.
 *
 * @example
 * const faults = createFaultSwitch() // { fault: null, remaining: null, marketStatuses: Map {} }
 */
export function createFaultSwitch(): FaultSwitch {
  return { fault: null, remaining: null, marketStatuses: new Map() }
}

/**
 * Arms `fault` for the next `count` quotes (every quote when `count` is undefined); `null` clears.
 *
 * @example
 * armFault(faults, 'expired', 1) // the next quote is already expired, then the switch clears
 * armFault(faults, null)         // clear
 */
export function armFault(faults: FaultSwitch, fault: QuoteFaultName | null, count?: number): void {
  faults.fault = fault
  faults.remaining = fault === null ? null : (count ?? null)
}

/**
 * The fault the quote being served must apply, counted as used: synchronous, so two quotes served
 * at once never both take the last remaining one. Clears the switch when its count runs out.
 *
 * @example
 * armFault(faults, 'wrong-signer', 1)
 * takeFault(faults) // 'wrong-signer'
 * takeFault(faults) // null
 */
export function takeFault(faults: FaultSwitch | null): QuoteFaultName | null {
  if (!faults?.fault) return null
  const { fault } = faults
  if (faults.remaining !== null) {
    faults.remaining -= 1
    if (faults.remaining <= 0) armFault(faults, null)
  }
  return fault
}
