import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import type { ExecutionRecord } from '../store/executions.js'
import type { SwapIntent } from './intent.js'

/** One field in which a trade differs from the one recorded under the same intent id. */
export type DifferingField = { field: string; problem: string }

/** The trade an intent id (or an idempotency key) names: what must match for a replay. */
export type IntentTrade = Pick<
  SwapIntent,
  'chainId' | 'ticker' | 'exchange' | 'side' | 'amountIn' | 'amountType' | 'limitPrice'
>

/**
 * The fields in which a trade differs from the execution recorded under its intent id, compared
 * with the ledger's record (the amount type settled as the engine settles it: a buy's default is
 * `stablecoin`, a sell is always `stocktoken`). Empty: the same trade, so a replay. The control
 * API's `POST /v1/swaps` (409) and `stockroute swap --intent-id` both judge reuse with it.
 *
 * @example
 * differingIntentFields({ ...trade, amountIn: '2000' }, execution)
 * // [{ field: 'amountIn', problem: 'was "1000", now "2000"' }]
 */
export function differingIntentFields(trade: IntentTrade, execution: ExecutionRecord): DifferingField[] {
  const amountType = trade.side === 'buy' ? (trade.amountType ?? 'stablecoin') : 'stocktoken'
  const limit = (price: Price | null | undefined) =>
    price === null || price === undefined ? 'none' : JSON.stringify(formatPrice(price))
  const pairs: [field: string, was: string, now: string][] = [
    ['chainId', String(execution.chainId), String(trade.chainId)],
    ['ticker', JSON.stringify(execution.ticker), JSON.stringify(trade.ticker)],
    ['exchange', String(execution.exchange), String(trade.exchange)],
    ['side', JSON.stringify(execution.side), JSON.stringify(trade.side)],
    ['amountIn', JSON.stringify(execution.amountIn), JSON.stringify(trade.amountIn)],
    ['amountType', JSON.stringify(execution.amountType), JSON.stringify(amountType)],
    ['limitPrice', limit(execution.limitPrice), limit(trade.limitPrice)],
  ]
  return pairs
    .filter(([, was, now]) => was !== now)
    .map(([field, was, now]) => ({ field, problem: `was ${was}, now ${now}` }))
}
