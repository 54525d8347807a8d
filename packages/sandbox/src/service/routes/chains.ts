import type { Address } from 'viem'
import type { LocalChain } from '../../localChains.js'
import { ok, type Route } from '../route.js'

/**
 * The sandbox runs no block explorer. `explorer_url` is the empty string: the field is always
 * present and always a string, as the reference types it; an empty value means "no explorer", so a
 * client builds explorer links only when it is non-empty.
 */
export const sandboxExplorerUrl = ''

/** The reference's Chain record. `platform_router_address` is present only on chains with a router. */
export type ChainRecord = {
  chain_id: number
  chain_name: string
  rpc_url: string
  explorer_url: string
  settlement_address: Address
  manager_address: Address
  payer_address: Address
  operator_address: Address
  assets: Record<string, Address>
  default_asset: string
  platform_router_address?: Address
}

/** One running local chain as a Chain record: the addresses actually deployed on it. */
export function chainRecord(chain: LocalChain): ChainRecord {
  return {
    chain_id: chain.chainId,
    chain_name: chain.name,
    rpc_url: chain.rpcUrl,
    explorer_url: sandboxExplorerUrl,
    settlement_address: chain.settlementAddress,
    manager_address: chain.managerAddress,
    payer_address: chain.payerAddress,
    operator_address: chain.operatorAddress,
    assets: Object.fromEntries(chain.assets.map((asset) => [asset.symbol, asset.address])),
    default_asset: chain.defaultAsset.symbol,
    ...(chain.platformRouterAddress === null ? {} : { platform_router_address: chain.platformRouterAddress }),
  }
}

/** GET /api/v1/chains: every served chain with its contracts and assets, and the default chain. */
export const chainsRoute: Route = {
  method: 'GET',
  path: '/api/v1/chains',
  auth: 'public',
  handle: (_request, context) =>
    ok({ chains: context.chains.map(chainRecord), default_chain_id: context.defaultChainId }),
}
