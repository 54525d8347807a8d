import { marketSessionAt } from '@stockroute/client/domain/marketSessions.js'
import { exchangeNames, exchangeOfMarket } from '@stockroute/client/domain/markets.js'
import type { Strategy } from '../strategy/index.js'

/**
 * Why an `open-only` strategy ({@link Strategy.marketHours}) is not evaluated at `atMs`: the
 * exchanges of the symbols it reads that are closed then, each with the session's reason, e.g.
 * `marketHours open-only: HKEX closed (Hong Kong lunch break until 13:00 HKT)`. Undefined when it
 * may run: `any` (the default), or every one of its exchanges open.
 *
 * @example
 * closedMarketsReason(strategy, Date.parse('2026-03-07T15:00:00Z')) // 'marketHours open-only: USEX closed (closed: weekend)'
 */
export function closedMarketsReason(
  strategy: Pick<Strategy, 'marketHours' | 'symbols'>,
  atMs: number,
): string | undefined {
  if (strategy.marketHours !== 'open-only') return undefined
  const exchanges = [...new Set(strategy.symbols().map((symbol) => exchangeOfMarket(symbol.market)))]
  const closed = exchanges.flatMap((exchange) => {
    const session = marketSessionAt(exchange, atMs)
    return session.open ? [] : [`${exchangeNames[exchange]} closed (${session.reason})`]
  })
  return closed.length === 0 ? undefined : `marketHours open-only: ${closed.join('; ')}`
}
