import type { LocalChains } from './localChains.js'
import type { SandboxService } from './service/startSandboxService.js'

/**
 * A JSON-safe description of running local chains: everything a client or a test needs to talk to
 * them (RPC URLs, every contract address, asset decimals, role and wallet keys).
 */
export function describeLocalChains(local: Pick<LocalChains, 'chains' | 'wallets'>) {
  return {
    chains: local.chains.map((chain) => ({
      chainId: chain.chainId,
      name: chain.name,
      rpcUrl: chain.rpcUrl,
      managerAddress: chain.managerAddress,
      settlementAddress: chain.settlementAddress,
      platformRouterAddress: chain.platformRouterAddress,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
      payerAddress: chain.payerAddress,
      defaultAsset: chain.defaultAsset.symbol,
      assets: chain.assets,
      tokens: chain.tokens.map(({ ticker, exchange, kind, address, decimals, underlying }) => ({
        ticker,
        exchange,
        kind,
        address,
        decimals,
        underlying,
      })),
      roles: chain.roles,
    })),
    wallets: local.wallets,
  }
}

export type LocalChainsDescription = ReturnType<typeof describeLocalChains>

/** The running sandbox as one JSON object: the service's base URL and credentials, and its chains. */
export function describeSandbox(
  local: Pick<LocalChains, 'chains' | 'wallets'>,
  service: Pick<SandboxService, 'url' | 'credential'>,
) {
  return {
    baseUrl: service.url,
    apiKey: service.credential.apiKey,
    apiSecret: service.credential.apiSecret,
    ...describeLocalChains(local),
  }
}

export type SandboxDescription = ReturnType<typeof describeSandbox>
