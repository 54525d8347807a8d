import { formatPrice, type Price } from '../../domain/units.js'
import type { ExecutionRecord } from '../../store/executions.js'
import type { FieldProblem } from './errors.js'
import type { SwapRequest } from './schemas.js'

/**
 * The fields in which a swap request differs from the execution recorded under its idempotency
 * key, compared with the ledger's record (the amount type settled as the engine settles it: a
 * buy's default is `stablecoin`, a sell is always `stocktoken`). Empty: the same request.
 *
 * @example
 * differingFields({ ...request, amountIn: '2000' }, execution)
 * // [{ field: 'amountIn', problem: 'was "1000", now "2000"' }]
 */
export function differingFields(request: SwapRequest, execution: ExecutionRecord): FieldProblem[] {
  const amountType = request.side === 'buy' ? (request.amountType ?? 'stablecoin') : 'stocktoken'
  const limit = (price: Price | null | undefined) =>
    price === null || price === undefined ? 'none' : JSON.stringify(formatPrice(price))
  const pairs: [field: string, was: string, now: string][] = [
    ['chainId', String(execution.chainId), String(request.chainId)],
    ['ticker', JSON.stringify(execution.ticker), JSON.stringify(request.ticker)],
    ['exchange', String(execution.exchange), String(request.exchange)],
    ['side', JSON.stringify(execution.side), JSON.stringify(request.side)],
    ['amountIn', JSON.stringify(execution.amountIn), JSON.stringify(request.amountIn)],
    ['amountType', JSON.stringify(execution.amountType), JSON.stringify(amountType)],
    ['limitPrice', limit(execution.limitPrice), limit(request.limitPrice)],
  ]
  return pairs
    .filter(([, was, now]) => was !== now)
    .map(([field, was, now]) => ({ field, problem: `was ${was}, now ${now}` }))
}
