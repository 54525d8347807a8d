import type { Listing } from '@stockroute/sandbox/service/contextTypes.js'
import { parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiCall } from '../../../helpers/sandboxService.js'
import { executeQuote, listOwnStock, usePrivateChains, walletOn } from '../ledger/ledgerFixtures.js'

// Chains of this file's own: its many executions never disturb other files' platform-wide numbers.
const privateChains = usePrivateChains({ chainIds: [41_737, 41_738] })
const service = () => privateChains().service
const chainA = () => privateChains().withRouter // 6-decimal asset
const chainB = () => privateChains().withoutRouter // 18-decimal asset

let onA: Listing
let onB: Listing

function statsOf(symbol: string, query: Record<string, string | number> = {}) {
  return apiCall(service(), `/api/v1/tickers/${encodeURIComponent(symbol)}/stats`, { query })
}

beforeAll(async () => {
  // The same ticker listed on both chains at different addresses, traded only by this file.
  onA = await listOwnStock(service(), chainA())
  onB = await listOwnStock(service(), chainB(), { ticker: onA.ticker })
  const walletA = await walletOn(chainA(), { asset: parseUnits('1000', 6) })
  const walletB = await walletOn(chainB(), { asset: parseUnits('1000', 18) })
  await executeQuote(service(), walletA, {
    ticker: onA.ticker,
    isBuy: true,
    quantity: 4n,
    price: 12_500_000n,
  })
  await executeQuote(service(), walletA, {
    ticker: onA.ticker,
    isBuy: false,
    quantity: 1n,
    price: 13_000_000n,
  })
  await executeQuote(service(), walletB, {
    ticker: onB.ticker,
    isBuy: true,
    quantity: 3n,
    price: parseUnits('10.123456789', 18),
  })
})

describe('GET /api/v1/tickers/{symbol}/stats', () => {
  it("with chain_id: that chain's orders and volume, with chain_id and the token's address", async () => {
    const reply = await statsOf(onA.ticker, { exchange: 0, chain_id: chainA().chainId })
    expect(reply.status).toBe(200)
    // 4 × 12.5 + 1 × 13 USD
    expect(reply.body).toEqual({
      code: 0,
      data: {
        ticker: onA.ticker,
        name: onA.stock.name,
        chain_id: chainA().chainId,
        address: onA.address,
        exchange: 0,
        orders: 2,
        volume: '63',
      },
    })
  })

  it('volume is exact in USD natural units whatever the asset decimals (18 here)', async () => {
    const reply = await statsOf(onB.ticker, { exchange: 0, chain_id: chainB().chainId })
    expect(reply.body.data).toMatchObject({ orders: 1, volume: '30.370370367', address: onB.address })
  })

  it('without chain_id: aggregated over every chain, without chain_id and address', async () => {
    const reply = await statsOf(onA.ticker, { exchange: 0 })
    expect(reply.body.data).toEqual({
      ticker: onA.ticker,
      name: onA.stock.name,
      exchange: 0,
      orders: 3,
      volume: '93.370370367',
    })
  })

  it('a listed ticker without executions has 0 orders and volume "0"', async () => {
    const quiet = await listOwnStock(service(), chainA())
    const reply = await statsOf(quiet.ticker, { exchange: 0 })
    expect(reply.body.data).toMatchObject({ orders: 0, volume: '0' })
  })

  it('a catalogue ticker shows its stock name', async () => {
    const reply = await statsOf('0700', { exchange: 1, chain_id: chainA().chainId })
    expect(reply.status).toBe(200)
    expect(reply.body.data).toMatchObject({ ticker: '0700', name: 'Tencent Holdings Ltd.', exchange: 1 })
    expect(reply.body.data.orders).toEqual(expect.any(Number))
  })

  it('only active tickers count: an inactive listing is left out, and a ticker active nowhere is a 404', async () => {
    onB.isActive = false
    try {
      const aggregated = await statsOf(onA.ticker, { exchange: 0 })
      expect(aggregated.body.data).toMatchObject({ orders: 2, volume: '63' })
      expect((await statsOf(onB.ticker, { exchange: 0, chain_id: chainB().chainId })).status).toBe(404)
      onA.isActive = false
      expect((await statsOf(onA.ticker, { exchange: 0 })).status).toBe(404)
    } finally {
      onA.isActive = true
      onB.isActive = true
    }
  })

  it('an unknown symbol, or one on another exchange, is a 404', async () => {
    expect((await statsOf('NOPE', { exchange: 0 })).status).toBe(404)
    const other = await statsOf('AAPL', { exchange: 1 })
    expect(other.status).toBe(404)
    expect(other.body).toMatchObject({ code: 404, message: 'Not found' })
  })

  it.each([
    ['exchange missing', {}, 'exchange'],
    ['exchange not an exchange code', { exchange: 2 }, 'exchange'],
    ['chain_id not served', { exchange: 0, chain_id: 7 }, 'chain_id'],
    ['chain_id not a number', { exchange: 0, chain_id: 'x' }, 'chain_id'],
  ])('%s is a 400 naming the parameter', async (_name, query, parameter) => {
    const reply = await statsOf('AAPL', query)
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain(parameter)
  })
})
