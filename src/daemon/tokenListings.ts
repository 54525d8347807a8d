import type { ListingView } from '../strategy/index.js'
import type { TokenListEntry } from './jobs/index.js'

/**
 * The chains' token lists as the strategies see them (`StrategyInput.listings`): every token of a
 * known exchange, with its kind and board lot. Undefined while no chain's list has been read, so
 * that a strategy can tell "not listed" from "not known yet".
 *
 * @example
 * listingsOf(new Map([[31337, tokens]]))
 * // [{ chainId: 31337, ticker: '0700', exchange: 1, tokenKind: 'stock', lotSize: 100n }, …]
 */
export function listingsOf(
  tokenLists: ReadonlyMap<number, readonly TokenListEntry[]>,
): ListingView[] | undefined {
  if (tokenLists.size === 0) return undefined
  return [...tokenLists].flatMap(([chainId, tokens]) =>
    tokens.flatMap((token) =>
      token.exchangeCode === null
        ? []
        : [
            {
              chainId,
              ticker: token.ticker,
              exchange: token.exchangeCode,
              tokenKind: token.kind,
              lotSize: token.lotSize,
            },
          ],
    ),
  )
}
