import { getTickerStats } from '@stockroute/client/api/actions/getTickerStats.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiCall } from '../../helpers/sandboxService.js'
import {
  executeQuote,
  listingOf,
  usePrivateChains,
  walletOn,
} from '../../sandbox/service/ledger/ledgerFixtures.js'

// Chains of this file's own: nobody else trades AAPL there, so the numbers are exact.
const privateChains = usePrivateChains({ chainIds: [42_137, 42_138], catalogueTickers: ['AAPL'] })
const service = () => privateChains().service
const client = () => createServiceClient({ baseUrl: service().url })

beforeAll(async () => {
  const { withRouter, withoutRouter } = privateChains()
  const onA = await walletOn(withRouter, { asset: parseUnits('1000', 6) })
  const onB = await walletOn(withoutRouter, { asset: parseUnits('1000', 18) })
  // 4 × 12.5 USD on the 6-decimal chain; 3 × 10.123456789 USD on the 18-decimal one.
  await executeQuote(service(), onA, { ticker: 'AAPL', isBuy: true, quantity: 4n, price: 12_500_000n })
  await executeQuote(service(), onB, {
    ticker: 'AAPL',
    isBuy: true,
    quantity: 3n,
    price: parseUnits('10.123456789', 18),
  })
}, 60_000)

describe('getTickerStats', () => {
  it("on one chain: that chain's orders and exact volume, with the chain and the token's address", async () => {
    const { withRouter, withoutRouter } = privateChains()
    const raw = await apiCall(service(), '/api/v1/tickers/AAPL/stats', {
      query: { exchange: 0, chain_id: withRouter.chainId },
    })
    const stats = await getTickerStats(client(), { symbol: 'AAPL', exchange: 0, chainId: withRouter.chainId })
    expect(stats).toEqual({
      ticker: raw.body.data.ticker,
      name: raw.body.data.name,
      chainId: raw.body.data.chain_id,
      address: raw.body.data.address,
      exchange: raw.body.data.exchange,
      orders: raw.body.data.orders,
      volume: raw.body.data.volume,
    })
    expect(stats).toEqual({
      ticker: 'AAPL',
      name: 'Apple Inc.',
      chainId: withRouter.chainId,
      address: listingOf(service(), withRouter, 'AAPL').address,
      exchange: 0,
      orders: 1,
      volume: '50',
    })
    const onB = await getTickerStats(client(), {
      symbol: 'AAPL',
      exchange: 0,
      chainId: withoutRouter.chainId,
    })
    expect(onB).toMatchObject({
      orders: 1,
      volume: '30.370370367',
      address: listingOf(service(), withoutRouter, 'AAPL').address,
    })
  })

  it('without a chain: aggregated over every chain, chainId and address null', async () => {
    const stats = await getTickerStats(client(), { symbol: 'AAPL', exchange: 0 })
    expect(stats).toEqual({
      ticker: 'AAPL',
      name: 'Apple Inc.',
      chainId: null,
      address: null,
      exchange: 0,
      orders: 2,
      volume: '80.370370367',
    })
  })

  it('a ticker without executions has 0 orders; unknown tickers and chains are refused', async () => {
    expect(await getTickerStats(client(), { symbol: 'AAPLs', exchange: 0 })).toMatchObject({
      orders: 0,
      volume: '0',
    })
    await expect(getTickerStats(client(), { symbol: 'AAPL', exchange: 1 })).rejects.toBeInstanceOf(
      ServiceNotFoundError,
    )
    await expect(
      getTickerStats(client(), { symbol: 'AAPL', exchange: 0, chainId: 7 }),
    ).rejects.toBeInstanceOf(ServiceBadRequestError)
  })
})
