import { erc20Abi, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { setLastPrices } from '../../../helpers/pinnedPrices.js'
import { apiCall } from '../../../helpers/sandboxService.js'
import { confirm, executeQuote, listingOf, usePrivateChains, walletOn } from '../ledger/ledgerFixtures.js'

// Platform-wide numbers can only be checked exactly where nobody else trades: this file runs its
// own two chains and service. The last prices are set, so the market value is worked out by hand.
const privateChains = usePrivateChains({
  chainIds: [41_337, 41_338],
  catalogueTickers: ['AAPL', '0700', '005930'],
})

const makerX = generatePrivateKey()
const makerY = generatePrivateKey()

function statsOf(query: Record<string, string> = {}) {
  return apiCall(privateChains().service, '/api/v1/stats', { query })
}

beforeAll(async () => {
  const { service, withRouter, withoutRouter } = privateChains()
  // 418.65 rather than the reference 418.60: a market value with a fraction of a cent.
  setLastPrices(service.context.prices, { AAPL: '227.48', '0700': '418.65', '005930': '56300' })
  const x = await walletOn(withRouter, { privateKey: makerX, asset: parseUnits('10000', 6) })
  const y1 = await walletOn(withRouter, { privateKey: makerY, asset: parseUnits('10000', 6) })
  const y2 = await walletOn(withoutRouter, { privateKey: makerY, asset: parseUnits('100000', 18) })
  await executeQuote(service, x, { ticker: 'AAPL', isBuy: true, quantity: 3n, price: 227_480_000n })
  await executeQuote(service, x, { ticker: 'AAPL', isBuy: false, quantity: 1n, price: 227_000_000n })
  await executeQuote(service, y1, { ticker: '005930', isBuy: true, quantity: 5n, price: 40_536_000n })
  await executeQuote(service, y2, {
    ticker: '0700',
    isBuy: true,
    quantity: 200n,
    price: parseUnits('53.79', 18),
  })
})

describe('GET /api/v1/stats', () => {
  it('over every chain: users, orders, instruments, balances, minted tokens and market value of what happened', async () => {
    const reply = await statsOf()
    expect(reply.status).toBe(200)
    // In USD at the router quote's rates: 2 AAPL × 227.48 = 454.96; 5 005930 × 56,300 KRW × 0.00072
    // = 202.68; 200 0700 × 418.65 HKD × 0.1285 = 83,730 × 0.1285 = 10,759.305. Sum 11,416.945,
    // rounded down to the cent.
    expect(reply.body).toEqual({
      code: 0,
      data: {
        total_user_addresses: 2,
        total_orders: 4,
        // AAPL, AAPLs, 0700 and 005930 on each of the two chains
        total_instruments: 8,
        // maker X holds 2 AAPL, maker Y 5 005930 and 200 0700
        total_balance: '207',
        total_minted_tokens: '208',
        total_market_value: '11416.94',
      },
    })
  })

  it('chain_ids: only the chosen chains count; a maker on both chains is one user', async () => {
    const { withRouter, withoutRouter } = privateChains()
    const only = await statsOf({ chain_ids: String(withoutRouter.chainId) })
    expect(only.body.data).toEqual({
      total_user_addresses: 1,
      total_orders: 1,
      total_instruments: 4,
      total_balance: '200',
      total_minted_tokens: '200',
      // 0700 alone: 10,759.305 → 10,759.30.
      total_market_value: '10759.30',
    })
    const both = await statsOf({ chain_ids: `${withRouter.chainId},${withoutRouter.chainId}` })
    expect(both.body.data).toEqual((await statsOf()).body.data)
    expect(both.body.data.total_user_addresses).toBe(2)
  })

  it('total_instruments counts active listings only', async () => {
    const { service, withRouter } = privateChains()
    const listing = listingOf(service, withRouter, 'AAPLs')
    listing.isActive = false
    try {
      expect((await statsOf({ chain_ids: String(withRouter.chainId) })).body.data.total_instruments).toBe(3)
    } finally {
      listing.isActive = true
    }
  })

  it('total_balance follows the chain: a transfer out of a user lowers it', async () => {
    const { service, withRouter } = privateChains()
    const before = (await statsOf()).body.data
    const x = await walletOn(withRouter, { privateKey: makerX })
    const hash = await x.walletClient.writeContract({
      address: listingOf(service, withRouter, 'AAPL').address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [privateKeyToAddress(generatePrivateKey()), 1n],
    })
    await confirm(withRouter, [hash])
    const after = (await statsOf()).body.data
    expect(BigInt(after.total_balance)).toBe(BigInt(before.total_balance) - 1n)
    expect(after.total_minted_tokens).toBe(before.total_minted_tokens)
    expect(after.total_orders).toBe(before.total_orders)
  })

  it.each([
    ['not a number', 'x'],
    ['a chain that is not served', '1'],
    ['an empty item', '41337,'],
  ])('chain_ids with %s is a 400 naming the parameter', async (_name, chainIds) => {
    const reply = await statsOf({ chain_ids: chainIds })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('chain_ids')
  })
})
