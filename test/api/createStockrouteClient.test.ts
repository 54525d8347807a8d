import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createStockrouteClient } from '../../src/index.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

describe('createStockrouteClient', () => {
  it('offers every endpoint of the reference as a bound method over one transport', async () => {
    const chain = chainWithRouter()
    const wallet = privateKeyToAccount(chain.roles.payer.privateKey)
    const stockroute = createStockrouteClient({
      baseUrl: service().url,
      credentials: service().credential,
      makerAddress: wallet.address,
      requestsPerSecond: 200,
    })
    const { chains } = await stockroute.getChains()
    expect(chains.map((c) => c.chainId)).toContain(chain.chainId)
    const { quote } = await stockroute.getRouterQuote({
      ticker: 'AAPL',
      exchange: 0,
      isBuy: true,
      chainId: chain.chainId,
      asset: chain.defaultAsset.address,
      amountIn: '500',
    })
    expect(quote.stockToken).toBe(chain.tokens.find((t) => t.ticker === 'AAPL')?.address)
    const token = await stockroute.getTokenAddress({ ticker: '0700', exchange: 1, chainId: chain.chainId })
    expect(token.lotSize).toBe(100n)
    const tables = await stockroute.getSpreadTables({ market: 'krex' })
    expect(tables.length).toBeGreaterThan(0)
    let tokens = 0
    for await (const _ of stockroute.iterateChainTokens({ chainId: chain.chainId, pageSize: 4 })) tokens += 1
    expect(tokens).toBe(chain.tokens.length)
    const methods = Object.keys(stockroute).filter((key) => key !== 'transport')
    expect(methods).toHaveLength(19)
  })
})
