import { closedMarketPriceNote } from '@stockroute/client/domain/marketSessions.js'
import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import type { PositionState } from '../../store/positionAccounting.js'
import type { ReportContext } from '../types.js'
import { marketQuote } from './valuePosition.js'

/**
 * The notes of a report that values positions at market prices (`context.marketPrices`) when some
 * of those prices were read while their exchange was closed (docs/market-sessions.md): one note per
 * closure, naming the positions (held, not flat) valued at such a price. Empty without market
 * prices, or when every price came from an open market.
 *
 * @example
 * closedMarketNotes({ marketPrices }, positions)
 * // ['Valuation: price from a closed market (HKEX closed: lunch break) for 0700 (chain 31337): the last price traded before the break, not a live one.']
 */
export function closedMarketNotes(
  context: Pick<ReportContext, 'marketPrices'>,
  positions: readonly Pick<PositionState, 'exchange' | 'ticker' | 'chainId' | 'balance'>[],
): string[] {
  const byNote = new Map<string, string[]>()
  for (const position of positions) {
    if (position.balance === 0n || !isExchangeCode(position.exchange)) continue
    const quote = marketQuote(context, position.exchange, position.ticker)
    if (quote === undefined) continue
    const note = closedMarketPriceNote(position.exchange, quote.atMs)
    if (note === undefined) continue
    const names = byNote.get(note) ?? []
    names.push(`${position.ticker} (chain ${position.chainId})`)
    byNote.set(note, names)
  }
  return [...byNote].map(
    ([note, names]) =>
      `Valuation: ${note} for ${names.join(', ')}: the last price traded before the market closed, not a live one.`,
  )
}
