import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import { formatPrice, formatTokenShares } from '@stockroute/client/domain/unitStrings.js'
import { toPrice } from '@stockroute/client/domain/units.js'
import { type ExecutionState, endedWithoutTrade } from '../store/executionStates.js'
import type { Ledger } from '../store/openLedger.js'
import { exitAttemptOf, instrumentOf, type ProtectStrategy } from '../strategy/index.js'

/**
 * Where a tripped exit's sale stands: `asked` (no execution yet: the next tick submits it),
 * `selling` (its execution runs), `sold` (confirmed), `unsold` (ended without a trade: asked for
 * again under the next attempt at `retryAtMs`).
 */
export type ProtectiveExitState = 'asked' | 'selling' | 'sold' | 'unsold'

/** One exit a `protect` strategy tripped in its position's current epoch (times epoch ms). */
export type ProtectiveExitStatus = {
  chainId: number
  ticker: string
  trigger: 'stop-loss' | 'take-profit' | 'trailing-stop'
  /** The market price that tripped it, in `currency`. */
  price: string
  currency: string
  /** Shares its current attempt sells (fixed when it was asked for). */
  quantity: string
  attempt: number
  /** When the current attempt was asked for: the trip, or the retry. */
  askedAtMs: number
  intentId: string
  execution: { id: number; state: ExecutionState } | null
  state: ProtectiveExitState
  /** When the next attempt may be asked for; null unless `unsold`. */
  retryAtMs: number | null
}

/**
 * The exits `strategy` tripped in the current epoch of the position it watches, read from the
 * ledger (its remembered exits, `protective_exits`, and their executions): which attempt each is at,
 * how its sale stands and when a sale that ended without a trade is asked for again
 * (./../strategy/protect.ts). Empty while nothing tripped, and once the position is closed (its
 * memory is then forgotten; the history stays in the ledger).
 *
 * @example
 * protectiveStatusOf(strategy, ledger)
 * // [{ ticker: 'AAPL', trigger: 'stop-loss', price: '183.5', currency: 'USD', quantity: '10', attempt: 2, state: 'unsold', retryAtMs: 1765080030000, … }]
 */
export function protectiveStatusOf(
  strategy: ProtectStrategy,
  ledger: Pick<Ledger, 'protectiveState' | 'executions'>,
): ProtectiveExitStatus[] {
  return ledger.protectiveState.list(strategy.id).flatMap((record) => {
    const exchange = strategy.watches.find(
      (watch) => watch.chainId === record.chainId && watch.ticker === record.ticker,
    )?.exchange
    if (exchange === undefined) return []
    const { market, tokenKind } = instrumentOf({ ticker: record.ticker, exchange })
    return record.exits.flatMap((exit) => {
      const attempt = exitAttemptOf(strategy.id, record.epoch, exit)
      if (attempt === undefined) return []
      const found = ledger.executions.getExecutionByIntent(exit.intentId)
      const state: ProtectiveExitState =
        found === undefined
          ? 'asked'
          : found.state === 'confirmed'
            ? 'sold'
            : endedWithoutTrade(found.state)
              ? 'unsold'
              : 'selling'
      return [
        {
          chainId: record.chainId,
          ticker: record.ticker,
          trigger: exit.trigger,
          price: formatPrice(toPrice(exit.price)),
          currency: marketCurrencies[market],
          quantity: formatTokenShares(tokenKind, exit.quantity),
          attempt: attempt.attempt,
          askedAtMs: exit.atMs,
          intentId: exit.intentId,
          execution: found === undefined ? null : { id: found.id, state: found.state },
          state,
          retryAtMs: state === 'unsold' ? attempt.retryAtMs : null,
        },
      ]
    })
  })
}
