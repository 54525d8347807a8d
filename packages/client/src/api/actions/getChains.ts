import { z } from 'zod'
import { addressSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

const chainRecordSchema = z.object({
  chain_id: z.number().int(),
  chain_name: z.string(),
  rpc_url: z.string(),
  explorer_url: z.string(),
  settlement_address: addressSchema,
  manager_address: addressSchema,
  payer_address: addressSchema,
  operator_address: addressSchema,
  assets: z.record(z.string(), addressSchema),
  default_asset: z.string(),
  platform_router_address: addressSchema.optional(),
})

const getChainsSchema = z
  .object({ chains: z.array(chainRecordSchema), default_chain_id: z.number().int() })
  .transform(({ chains, default_chain_id }) => ({
    defaultChainId: default_chain_id,
    chains: chains.map((chain) => ({
      chainId: chain.chain_id,
      chainName: chain.chain_name,
      rpcUrl: chain.rpc_url,
      explorerUrl: chain.explorer_url,
      settlementAddress: chain.settlement_address,
      managerAddress: chain.manager_address,
      payerAddress: chain.payer_address,
      operatorAddress: chain.operator_address,
      assets: chain.assets,
      defaultAsset: chain.default_asset,
      defaultAssetAddress: chain.assets[chain.default_asset],
      platformRouterAddress: chain.platform_router_address ?? null,
      /** Where quotes are executed: the router where present, else the settlement contract. */
      executorAddress: chain.platform_router_address ?? chain.settlement_address,
    })),
  }))

/** The endpoint takes no parameters. */
export type GetChainsParameters = Record<string, never>

export type GetChainsReturnType = z.output<typeof getChainsSchema>
export type ChainInfo = GetChainsReturnType['chains'][number]

/**
 * Lists the chains the service runs on, with their contracts and assets (GET /api/v1/chains, public).
 *
 * @example
 * const { chains, defaultChainId } = await getChains(client, {})
 * chains[0].executorAddress
 */
export function getChains(
  client: ServiceClient,
  _parameters: GetChainsParameters = {},
  options?: CallOptions,
): Promise<GetChainsReturnType> {
  return client.request(
    { method: 'GET', path: '/api/v1/chains', auth: 'public', schema: getChainsSchema },
    options,
  )
}
