import {
  type GetTokenAddressReturnType,
  getTokenAddress,
} from '@stockroute/client/api/actions/getTokenAddress.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { toStockQuantity } from '@stockroute/client/domain/units.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter, tokenOf } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()
const maker = privateKeyToAccount(generatePrivateKey())

/** Maker by API key + signature with X-Maker-Addr. */
const keyClient = () =>
  createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    makerAddress: maker.address,
  })
/** Maker by wallet login: `Authorization: Bearer <JWT>`. */
const walletClient = () =>
  createServiceClient({
    baseUrl: service().url,
    wallet: { account: maker, chainId: chainWithRouter().chainId },
  })

/** What the raw reply's `data` should become, field by field. */
function expected(data: Record<string, unknown>): GetTokenAddressReturnType {
  return {
    ticker: data.ticker as string,
    stockCode: data.stock_code as string,
    name: data.name as string,
    exchangeId: data.exchange_id as number,
    chainId: data.chain_id as number,
    tokenAddress: data.token_address as `0x${string}`,
    tokenType: data.token_type as 'stock' | 'share',
    underlyingToken: data.underlying_token as `0x${string}` | null,
    decimals: data.decimals as number,
    isActive: data.is_active as boolean,
    lotSize: toStockQuantity(BigInt(data.lot_size as string)),
    spreadTableCode: data.spread_table_code as string,
  }
}

async function raw(query: Record<string, string | number>) {
  const reply = await apiCall(service(), '/api/v1/instruments/token-address', {
    credential: service().credential,
    makerAddress: maker.address,
    query,
  })
  expect(reply.status).toBe(200)
  return reply.body.data as Record<string, unknown>
}

describe.each([
  ['with platform router', chainWithRouter],
  ['without router', chainWithoutRouter],
])('getTokenAddress on the chain %s', (_label, chainOf) => {
  const chain = chainOf()

  it('a StockToken: the reply as typed fields, at the address deployed on this chain', async () => {
    const token = await getTokenAddress(keyClient(), { ticker: 'AAPL', exchange: 0, chainId: chain.chainId })
    expect(token).toEqual(expected(await raw({ ticker: 'AAPL', exchange: 0, chain_id: chain.chainId })))
    expect(token).toMatchObject({
      ticker: 'AAPL',
      chainId: chain.chainId,
      tokenAddress: tokenOf(chain, 'AAPL'),
      tokenType: 'stock',
      decimals: 0,
      underlyingToken: null,
      isActive: true,
      lotSize: 1n,
    })
  })

  it('a ShareToken names its underlying StockToken and has 18 decimals', async () => {
    const token = await getTokenAddress(walletClient(), {
      ticker: 'AAPLs',
      exchange: 0,
      chainId: chain.chainId,
    })
    expect(token).toEqual(expected(await raw({ ticker: 'AAPLs', exchange: 0, chain_id: chain.chainId })))
    expect(token).toMatchObject({
      tokenAddress: tokenOf(chain, 'AAPLs'),
      tokenType: 'share',
      decimals: 18,
      underlyingToken: tokenOf(chain, 'AAPL'),
    })
  })

  it('a Hong Kong stock carries its board lot in whole shares', async () => {
    const token = await getTokenAddress(keyClient(), { ticker: '0005', exchange: 1, chainId: chain.chainId })
    expect(token).toMatchObject({
      exchangeId: 1,
      lotSize: 400n,
      stockCode: '00005',
      tokenAddress: tokenOf(chain, '0005'),
    })
  })
})

describe('getTokenAddress', () => {
  it('by API key and by wallet JWT: the same record; without chainId, the default chain', async () => {
    const byKey = await getTokenAddress(keyClient(), { ticker: 'TSLA', exchange: 0 })
    const client = walletClient()
    const byWallet = await getTokenAddress(client, { ticker: 'TSLA', exchange: 0 })
    expect(byWallet).toEqual(byKey)
    expect(byKey.chainId).toBe(service().context.defaultChainId)
    expect(client.session?.loginCount()).toBe(1)
  })

  it('an unknown ticker is a ServiceNotFoundError carrying the {error} body', async () => {
    const chain = chainWithRouter()
    const error = await getTokenAddress(keyClient(), {
      ticker: 'NOPE',
      exchange: 0,
      chainId: chain.chainId,
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ServiceNotFoundError)
    expect((error as ServiceNotFoundError).body).toEqual({
      shape: 'error',
      error: `Not found: not found or not available: ticker=NOPE, exchange=0, chain_id=${chain.chainId}`,
    })
  })

  it('an API key without a maker address is refused: maker endpoints need X-Maker-Addr', async () => {
    const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
    const error = await getTokenAddress(client, { ticker: 'AAPL', exchange: 0 }).catch(
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ServiceAuthError)
    expect((error as ServiceAuthError).body).toMatchObject({ message: 'Missing maker address' })
  })
})
