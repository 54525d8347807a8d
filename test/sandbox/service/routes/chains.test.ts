import { rfqSettlementAbi, stockTokenAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { ChainRecord } from '@stockroute/sandbox/service/routes/chains.js'
import { type Address, erc20Abi, getAddress, isAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { clientsFor, localChains } from '../../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const service = useSandboxService()

type ChainsReply = { code: number; data: { chains: ChainRecord[]; default_chain_id: number } }

async function getChains() {
  const reply = await apiCall<ChainsReply>(service(), '/api/v1/chains')
  expect(reply.status).toBe(200)
  return reply
}

function recordOf(records: ChainRecord[], chain: LocalChain): ChainRecord {
  const record = records.find((candidate) => candidate.chain_id === chain.chainId)
  if (!record) throw new Error(`chain ${chain.chainId} missing from GET /api/v1/chains`)
  return record
}

function publicClientOf(chain: LocalChain) {
  return clientsFor(chain, chain.roles.deployer.privateKey).publicClient
}

describe('GET /api/v1/chains', () => {
  it('is public and answers {code: 0, data: {chains, default_chain_id}}', async () => {
    const reply = await getChains()
    expect(reply.headers.get('content-type')).toBe('application/json')
    expect(reply.body.code).toBe(0)
    expect(Object.keys(reply.body.data).sort()).toEqual(['chains', 'default_chain_id'])
    expect(reply.body.data.chains.map((chain) => chain.chain_id)).toEqual(localChains().map((c) => c.chainId))
    expect(reply.body.data.default_chain_id).toBe(service().context.defaultChainId)
    expect(reply.body.data.chains.map((chain) => chain.chain_id)).toContain(reply.body.data.default_chain_id)
  })

  it('each chain record carries the addresses actually deployed on that chain, with the types of the reference', async () => {
    const { body } = await getChains()
    for (const chain of localChains()) {
      const record = recordOf(body.data.chains, chain)
      const expected: ChainRecord = {
        chain_id: chain.chainId,
        chain_name: chain.name,
        rpc_url: chain.rpcUrl,
        explorer_url: '',
        settlement_address: chain.settlementAddress,
        manager_address: chain.managerAddress,
        payer_address: chain.payerAddress,
        operator_address: chain.operatorAddress,
        assets: Object.fromEntries(chain.assets.map((asset) => [asset.symbol, asset.address])),
        default_asset: chain.defaultAsset.symbol,
        ...(chain.platformRouterAddress ? { platform_router_address: chain.platformRouterAddress } : {}),
      }
      expect(record).toStrictEqual(expected)
      expect(Number.isInteger(record.chain_id)).toBe(true)
      expect(typeof record.explorer_url).toBe('string')
      expect(record.assets[record.default_asset]).toBe(chain.defaultAsset.address)
      for (const address of [
        record.settlement_address,
        record.manager_address,
        record.payer_address,
        record.operator_address,
        ...Object.values(record.assets),
      ]) {
        expect(isAddress(address, { strict: true }) && address === getAddress(address), address).toBe(true)
      }
    }
  })

  it('platform_router_address is present only on chains with a platform router, never as null', async () => {
    const { body } = await getChains()
    const withRouter = body.data.chains.filter((record) => 'platform_router_address' in record)
    const without = body.data.chains.filter((record) => !('platform_router_address' in record))
    expect(withRouter.length).toBeGreaterThan(0)
    expect(without.length).toBeGreaterThan(0)
    for (const chain of localChains()) {
      const record = recordOf(body.data.chains, chain)
      expect(record.platform_router_address ?? null).toBe(chain.platformRouterAddress)
    }
  })

  it('rpc_url reaches the chain itself: eth_chainId equals chain_id', async () => {
    const { body } = await getChains()
    for (const record of body.data.chains) {
      const response = await fetch(record.rpc_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      const { result } = (await response.json()) as { result: string }
      expect(Number(result)).toBe(record.chain_id)
    }
  })

  it('every contract address holds code on its chain and is the contract the record names', async () => {
    const { body } = await getChains()
    for (const chain of localChains()) {
      const record = recordOf(body.data.chains, chain)
      const client = publicClientOf(chain)
      const contracts: Address[] = [
        record.settlement_address,
        record.manager_address,
        ...Object.values(record.assets),
        ...(record.platform_router_address ? [record.platform_router_address] : []),
      ]
      for (const address of contracts) {
        const code = await client.getCode({ address })
        expect(code && code.length > 2, `code at ${address} on chain ${chain.chainId}`).toBe(true)
      }
      // payer and operator are wallets (no code), and they are the ones the settlement contracts use
      for (const address of [record.payer_address, record.operator_address]) {
        expect(await client.getCode({ address })).toBeUndefined()
      }
      const executors = [record.settlement_address, record.platform_router_address].filter(
        (address): address is Address => address !== undefined,
      )
      for (const executor of executors) {
        const [operator, payer] = await Promise.all([
          client.readContract({ address: executor, abi: rfqSettlementAbi, functionName: 'operator' }),
          client.readContract({ address: executor, abi: rfqSettlementAbi, functionName: 'payer' }),
        ])
        expect(operator).toBe(record.operator_address)
        expect(payer).toBe(record.payer_address)
      }
      // each asset key is that contract's symbol
      for (const [symbol, address] of Object.entries(record.assets)) {
        expect(await client.readContract({ address, abi: erc20Abi, functionName: 'symbol' })).toBe(symbol)
      }
      // the manager is the one the chain's tokens obey
      const [token] = chain.tokens
      if (!token) throw new Error('no token listed')
      expect(
        await client.readContract({ address: token.address, abi: stockTokenAbi, functionName: 'manager' }),
      ).toBe(record.manager_address)
    }
  })

  it('answers the same without credentials and with any extra query (no parameters)', async () => {
    const plain = await getChains()
    const withQuery = await apiCall<ChainsReply>(service(), '/api/v1/chains', { query: { chain_id: 1 } })
    expect(withQuery.status).toBe(200)
    expect(withQuery.body).toStrictEqual(plain.body)
  })
})
