import { z } from 'zod'
import type { Listing } from '../contextTypes.js'
import { assertServedChain, paginate } from '../ledger/queryHelpers.js'
import { boolParam, intParam, parseQuery, stringParam } from '../request.js'
import { ok, type Route } from '../route.js'

/** Positions page size: default 20, maximum 100 (the reference's limits); above it is a 400. */
export const positionsPageSize = { default: 20, max: 100 } as const

const positionsQuery = z
  .object({
    chain_id: intParam({ min: 0 }),
    ticker: stringParam().min(1, 'must not be empty').max(32, 'is too long'),
    ticker_like: boolParam,
    page: intParam({ min: 1 }),
    page_size: intParam({ min: 1, max: positionsPageSize.max }),
  })
  .partial()

/**
 * GET /api/v1/positions: the authenticated maker's holdings. A position exists for every listed
 * token (of the chosen chains) the maker holds on chain now or has traded; `balance` is the
 * on-chain balanceOf at the block the ledger last read (the truth, corporate actions included),
 * `locked_balance` what triggered, token-locking corporate actions hold, `avg_price` the average buy
 * price of the shares still held from the maker's fills (asset base units per whole share; sells
 * keep it, splits scale it by the inverse ratio). Sorted by chain id, then ticker.
 */
export const positionsRoute: Route = {
  method: 'GET',
  path: '/api/v1/positions',
  auth: 'maker',
  async handle(request, context, caller) {
    const query = parseQuery(request, positionsQuery)
    if (caller.kind !== 'maker') throw new Error('positions route reached without a maker caller')
    if (query.chain_id !== undefined) assertServedChain(context, query.chain_id)
    const maker = caller.makerAddress
    await context.ledger.sync()
    const traded = new Set(
      context.ledger.ordersOf(maker).map((order) => `${order.chainId}:${order.stockToken.toLowerCase()}`),
    )
    const chains = [...context.chains]
      .filter((chain) => query.chain_id === undefined || chain.chainId === query.chain_id)
      .sort((a, b) => a.chainId - b.chainId)
    const perChain = await Promise.all(
      chains.map(async (chain) => {
        const listings = (context.listings.get(chain.chainId) ?? [])
          .filter((listing) => tickerMatches(listing, query.ticker, query.ticker_like ?? false))
          .sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
        const balances = await context.ledger.balances(
          chain.chainId,
          listings.map((listing) => ({ token: listing.address, owner: maker })),
        )
        return listings.flatMap((listing, index) => {
          const balance = balances[index] ?? 0n
          if (balance === 0n && !traded.has(`${chain.chainId}:${listing.address.toLowerCase()}`)) return []
          const locked = minBigint(
            balance,
            context.ledger.corporateActions.lockedQuantity(maker, chain.chainId, listing.address),
          )
          return [
            {
              ticker: listing.ticker,
              exchange: listing.exchange,
              chain_id: chain.chainId,
              token_address: listing.address,
              balance: balance.toString(),
              locked_balance: locked.toString(),
              available_balance: (balance - locked).toString(),
              avg_price: context.ledger.averageBuyPrice(maker, chain.chainId, listing.address).toString(),
            },
          ]
        })
      }),
    )
    const { items, ...page } = paginate(
      perChain.flat(),
      query.page ?? 1,
      query.page_size ?? positionsPageSize.default,
    )
    return ok({ positions: items, ...page })
  },
}

function tickerMatches(listing: Listing, ticker: string | undefined, like: boolean): boolean {
  if (ticker === undefined) return true
  return like ? listing.ticker.toLowerCase().includes(ticker.toLowerCase()) : listing.ticker === ticker
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
