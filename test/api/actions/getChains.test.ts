import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter, localChains } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

describe('getChains', () => {
  it('returns every chain of the reply, camelCased, with the executor each chain settles quotes with', async () => {
    const raw = (await apiCall(service(), '/api/v1/chains')).body.data
    const result = await getChains(client())
    expect(result.defaultChainId).toBe(raw.default_chain_id)
    expect(result.chains.map((chain) => chain.chainId)).toEqual(
      raw.chains.map((chain: { chain_id: number }) => chain.chain_id),
    )
    for (const [index, chain] of result.chains.entries()) {
      const record = raw.chains[index]
      expect(chain).toEqual({
        chainId: record.chain_id,
        chainName: record.chain_name,
        rpcUrl: record.rpc_url,
        explorerUrl: record.explorer_url,
        settlementAddress: record.settlement_address,
        managerAddress: record.manager_address,
        payerAddress: record.payer_address,
        operatorAddress: record.operator_address,
        assets: record.assets,
        defaultAsset: record.default_asset,
        defaultAssetAddress: record.assets[record.default_asset],
        platformRouterAddress: record.platform_router_address ?? null,
        executorAddress: record.platform_router_address ?? record.settlement_address,
      })
    }
  })

  it('matches the deployed chains: router where there is one, settlement contract where not', async () => {
    const { chains } = await getChains(client())
    expect(chains).toHaveLength(localChains().length)
    const withRouter = chains.find((chain) => chain.chainId === chainWithRouter().chainId)
    const withoutRouter = chains.find((chain) => chain.chainId === chainWithoutRouter().chainId)
    expect(withRouter?.platformRouterAddress).toBe(chainWithRouter().platformRouterAddress)
    expect(withRouter?.executorAddress).toBe(chainWithRouter().platformRouterAddress)
    expect(withRouter?.defaultAssetAddress).toBe(chainWithRouter().defaultAsset.address)
    expect(withoutRouter?.platformRouterAddress).toBeNull()
    expect(withoutRouter?.executorAddress).toBe(chainWithoutRouter().settlementAddress)
    expect(withoutRouter?.operatorAddress).toBe(chainWithoutRouter().operatorAddress)
  })

  it('an aborted signal stops the call with its reason', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(getChains(client(), {}, { signal: controller.signal })).rejects.toThrow('stop')
  })
})
