import type { Address } from 'viem'
import { type AnvilInstance, startAnvil } from './anvil.js'
import { type CatalogueStock, sandboxCatalogue } from './catalogue.js'
import { defaultChainSpecs, type SandboxChainSpec } from './chainSpecs.js'
import { type ChainDeployment, deploySandboxChain } from './deploy.js'
import { type ChainRoleKeys, chainRoleKeys, defaultKeySeed, type SandboxKey, testWalletKeys } from './keys.js'

/** One running, fully deployed local chain. */
export type LocalChain = ChainDeployment & {
  chainId: number
  name: string
  rpcUrl: string
  roles: ChainRoleKeys
  /** The chain's operator_address: the only key whose quotes its executor accepts. */
  operatorAddress: Address
  payerAddress: Address
}

export type LocalChains = {
  chains: LocalChain[]
  /** Funded test wallets, the same on every chain. */
  wallets: SandboxKey[]
  /** Stops every anvil process. Idempotent. */
  stop: () => Promise<void>
}

export type StartLocalChainsParameters = {
  specs?: readonly SandboxChainSpec[]
  catalogue?: readonly CatalogueStock[]
  /** Seed of every sandbox key; the default gives the same keys on every run. */
  keySeed?: string
  walletCount?: number
  /** Called as each chain is up and deployed, for progress output. */
  onChainReady?: (chain: LocalChain) => void
  signal?: AbortSignal
}

/**
 * Starts one anvil per chain spec on free loopback ports, deploys the service's contracts, lists the
 * catalogue and funds the payer and the test wallets. On any failure everything already started is
 * stopped before the error is rethrown.
 *
 * @example
 * const local = await startLocalChains()
 * local.chains[0].executorAddress
 * await local.stop()
 */
export async function startLocalChains(parameters: StartLocalChainsParameters = {}): Promise<LocalChains> {
  const {
    specs = defaultChainSpecs,
    catalogue = sandboxCatalogue,
    keySeed = defaultKeySeed,
    walletCount = 4,
    onChainReady,
    signal,
  } = parameters
  assertDistinctChainIds(specs)
  const wallets = testWalletKeys(keySeed, walletCount)
  const instances: AnvilInstance[] = []
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
  }

  try {
    const chains = await Promise.all(
      specs.map(async (spec): Promise<LocalChain> => {
        const anvil = await startAnvil({ chainId: spec.chainId, ...(signal ? { signal } : {}) })
        instances.push(anvil)
        const roles = chainRoleKeys(keySeed, spec.chainId)
        const deployment = await deploySandboxChain({ spec, rpcUrl: anvil.rpcUrl, roles, wallets, catalogue })
        const chain: LocalChain = {
          ...deployment,
          chainId: spec.chainId,
          name: spec.name,
          rpcUrl: anvil.rpcUrl,
          roles,
          operatorAddress: roles.operator.address,
          payerAddress: roles.payer.address,
        }
        onChainReady?.(chain)
        return chain
      }),
    )
    return { chains, wallets, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

function assertDistinctChainIds(specs: readonly SandboxChainSpec[]) {
  const seen = new Set<number>()
  for (const spec of specs) {
    if (seen.has(spec.chainId))
      throw new Error(`sandbox chain id ${spec.chainId} is listed twice; chain ids must differ`)
    seen.add(spec.chainId)
  }
  if (specs.length === 0) throw new Error('no sandbox chain to start: give at least one chain spec')
}
