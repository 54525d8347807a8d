import { type Address, isAddressEqual } from 'viem'
import { z } from 'zod'
import { assertServedChain } from '../ledger/queryHelpers.js'
import { formatScaledRounded, lastPriceOf, marketValueUsdScaled } from '../ledger/valuation.js'
import { intParam, listParam, parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

const platformStatsQuery = z.object({ chain_ids: listParam(intParam({ min: 0 }), 50).optional() })

/**
 * GET /api/v1/stats over the chosen chains (all when chain_ids is absent):
 * - total_user_addresses: distinct addresses that executed at least one quote;
 * - total_orders: executed quotes;
 * - total_instruments: active listings, summed over the chains;
 * - total_balance: Σ on-chain balances (base units, as the reference's "wei") of every user in every
 *   token the user traded on that chain, at the block the ledger last read;
 * - total_minted_tokens: Σ quantities (base units) of executed buys;
 * - total_market_value: those holdings at the price simulator's last price, converted to USD at the
 *   router quote's fixed rates (HKD, KRW), decimal string rounded down to cents.
 */
export const platformStatsRoute: Route = {
  method: 'GET',
  path: '/api/v1/stats',
  auth: 'public',
  async handle(request, context) {
    const query = parseQuery(request, platformStatsQuery)
    for (const chainId of query.chain_ids ?? []) assertServedChain(context, chainId, 'chain_ids')
    const chainIds = [...new Set(query.chain_ids ?? context.chains.map((chain) => chain.chainId))]
    await context.ledger.sync()
    const orders = context.ledger.orders(chainIds)
    const nowMs = context.clock.now()

    const users = new Set(orders.map((order) => order.maker.toLowerCase()))
    const totalMinted = orders.reduce((sum, order) => (order.isBuy ? sum + order.quantity : sum), 0n)
    const instruments = chainIds.reduce(
      (sum, chainId) =>
        sum + (context.listings.get(chainId) ?? []).filter((listing) => listing.isActive).length,
      0,
    )

    let totalBalance = 0n
    let marketValue = 0n
    await Promise.all(
      chainIds.map(async (chainId) => {
        const pairs = new Map<string, { token: Address; owner: Address }>()
        for (const order of orders) {
          if (order.chainId !== chainId) continue
          pairs.set(`${order.stockToken.toLowerCase()}:${order.maker.toLowerCase()}`, {
            token: order.stockToken,
            owner: order.maker,
          })
        }
        const list = [...pairs.values()]
        const balances = await context.ledger.balances(chainId, list)
        const listings = context.listings.get(chainId) ?? []
        list.forEach((pair, index) => {
          const balance = balances[index] ?? 0n
          totalBalance += balance
          const listing = listings.find((candidate) => isAddressEqual(candidate.address, pair.token))
          if (!listing || balance === 0n) return
          marketValue += marketValueUsdScaled({
            balance,
            tokenDecimals: listing.decimals,
            price: lastPriceOf(context, listing.stock, nowMs),
            exchange: listing.exchange,
          })
        })
      }),
    )

    return ok({
      total_user_addresses: users.size,
      total_orders: orders.length,
      total_instruments: instruments,
      total_balance: totalBalance.toString(),
      total_minted_tokens: totalMinted.toString(),
      total_market_value: formatScaledRounded(marketValue, 2),
    })
  },
}
