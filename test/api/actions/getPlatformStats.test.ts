import { getPlatformStats } from '@stockroute/client/api/actions/getPlatformStats.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError } from '@stockroute/client/api/errors.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { parseUnits } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiCall } from '../../helpers/sandboxService.js'
import { executeQuote, usePrivateChains, walletOn } from '../../sandbox/service/ledger/ledgerFixtures.js'

// Chains of this file's own, and a clock standing still: the numbers are exact and the market
// value is the same in the raw reply and the action's.
const fixedNowMs = Date.now()
const privateChains = usePrivateChains({
  chainIds: [42_237, 42_238],
  catalogueTickers: ['AAPL', '0700'],
  clock: { now: () => fixedNowMs },
})
const service = () => privateChains().service
const client = () => createServiceClient({ baseUrl: service().url })
const maker = generatePrivateKey()
const oneAndAHalfShares = 1_500_000_000_000_000_000n

beforeAll(async () => {
  const { withRouter, withoutRouter } = privateChains()
  const onA = await walletOn(withRouter, { privateKey: maker, asset: parseUnits('1000', 6) })
  const onB = await walletOn(withoutRouter, { privateKey: maker, asset: parseUnits('1000', 18) })
  await executeQuote(service(), onA, { ticker: 'AAPL', isBuy: true, quantity: 3n, price: 227_480_000n })
  // 1.5 ShareTokens: 18-decimal base units, far beyond what a JS number holds exactly.
  await executeQuote(service(), onB, {
    ticker: 'AAPLs',
    isBuy: true,
    quantity: oneAndAHalfShares,
    price: parseUnits('227.48', 18),
  })
}, 60_000)

describe('getPlatformStats', () => {
  it('over every chain: the raw reply, with wei-unit totals as exact bigints', async () => {
    const raw = (await apiCall(service(), '/api/v1/stats')).body.data
    const stats = await getPlatformStats(client())
    expect(stats).toEqual({
      totalUserAddresses: raw.total_user_addresses,
      totalOrders: raw.total_orders,
      totalInstruments: raw.total_instruments,
      totalBalance: BigInt(raw.total_balance),
      totalMintedTokens: BigInt(raw.total_minted_tokens),
      totalMarketValue: raw.total_market_value,
    })
    expect(stats).toMatchObject({
      totalUserAddresses: 1,
      totalOrders: 2,
      // AAPL, AAPLs and 0700 on each chain
      totalInstruments: 6,
      totalBalance: oneAndAHalfShares + 3n,
      totalMintedTokens: oneAndAHalfShares + 3n,
    })
    expect(stats.totalMarketValue).toMatch(/^\d+\.\d{2}$/)
  })

  it('chainIds: only those chains count', async () => {
    const { withRouter, withoutRouter } = privateChains()
    const onA = await getPlatformStats(client(), { chainIds: [withRouter.chainId] })
    expect(onA).toMatchObject({
      totalOrders: 1,
      totalInstruments: 3,
      totalMintedTokens: 3n,
      totalBalance: 3n,
    })
    const both = await getPlatformStats(client(), { chainIds: [withRouter.chainId, withoutRouter.chainId] })
    expect(both).toEqual(await getPlatformStats(client()))
  })

  it('refuses an empty chain list before asking, and a chain the service does not run', async () => {
    await expect(getPlatformStats(client(), { chainIds: [] })).rejects.toThrow(StockrouteError)
    await expect(getPlatformStats(client(), { chainIds: [7] })).rejects.toBeInstanceOf(ServiceBadRequestError)
  })
})
