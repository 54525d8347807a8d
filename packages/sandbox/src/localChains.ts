import { gunzipSync, gzipSync } from 'node:zlib'
import { type Address, bytesToHex, createTestClient, type Hex, hexToBytes, http, publicActions } from 'viem'
import { type AnvilInstance, anvilIdentity, startAnvil } from './anvil.js'
import { type CatalogueStock, sandboxCatalogue } from './catalogue.js'
import { defaultChainSpecs, type SandboxChainSpec } from './chainSpecs.js'
import {
  chainStateKey,
  defaultChainStateCacheDir,
  forgetCachedChain,
  readCachedChain,
  writeCachedChain,
} from './chainStateCache.js'
import { type ChainDeployment, deploySandboxChain, sandboxChain } from './deploy.js'
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
  /**
   * Where deployed chains are kept and loaded from (chainStateCache.ts); null deploys every time.
   * Default: {@link defaultChainStateCacheDir}.
   */
  stateCacheDir?: string | null
  signal?: AbortSignal
}

/**
 * Starts one anvil per chain spec on free loopback ports with the service's contracts deployed, the
 * catalogue listed, and the payer and the test wallets funded. A chain deployed before from the same
 * inputs is loaded from the state cache instead of deployed again. On any failure everything already
 * started is stopped before the error is rethrown.
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
    stateCacheDir = defaultChainStateCacheDir(),
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
        const roles = chainRoleKeys(keySeed, spec.chainId)
        const started = await startDeployedChain({
          spec,
          catalogue,
          roles,
          wallets,
          stateCacheDir,
          signal,
          // Each anvil is stopped with the others if any chain fails, even while it is still deploying.
          onAnvil: (anvil) => instances.push(anvil),
        })
        const chain: LocalChain = {
          ...started.deployment,
          chainId: spec.chainId,
          name: spec.name,
          rpcUrl: started.anvil.rpcUrl,
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

type StartDeployedChainParameters = {
  spec: SandboxChainSpec
  catalogue: readonly CatalogueStock[]
  roles: ChainRoleKeys
  wallets: readonly SandboxKey[]
  stateCacheDir: string | null
  signal: AbortSignal | undefined
  onAnvil: (anvil: AnvilInstance) => void
}

/**
 * One anvil with the sandbox deployed: loaded from the state cache when a chain of the same key is
 * kept there, else deployed and then kept. A kept chain that does not load is removed, and the
 * chain is deployed on a fresh anvil instead.
 */
async function startDeployedChain(
  parameters: StartDeployedChainParameters,
): Promise<{ anvil: AnvilInstance; deployment: ChainDeployment }> {
  const { spec, catalogue, roles, wallets, stateCacheDir, signal, onAnvil } = parameters
  const start = async () => {
    const anvil = await startAnvil({ chainId: spec.chainId, ...(signal ? { signal } : {}) })
    onAnvil(anvil)
    return anvil
  }
  const kept = stateCacheDir
    ? {
        dir: stateCacheDir,
        key: chainStateKey({ spec, catalogue, roles, wallets, anvilIdentity: anvilIdentity() }),
      }
    : null
  const cached = kept ? readCachedChain(kept.dir, spec.chainId, kept.key) : null
  if (kept && cached) {
    const anvil = await start()
    try {
      await loadChainState(anvil.rpcUrl, spec, cached.state, cached.deployment)
      return { anvil, deployment: cached.deployment }
    } catch {
      await anvil.stop()
      forgetCachedChain(kept.dir, spec.chainId, kept.key)
    }
  }
  const anvil = await start()
  try {
    const deployment = await deploySandboxChain({ spec, rpcUrl: anvil.rpcUrl, roles, wallets, catalogue })
    if (kept) await keepChain(kept.dir, anvil.rpcUrl, spec, { key: kept.key, deployment })
    return { anvil, deployment }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/** Keeps a deployed chain; a cache that cannot be written (a read-only home, a full disk) only costs the next start its speed. */
async function keepChain(
  stateCacheDir: string,
  rpcUrl: string,
  spec: SandboxChainSpec,
  kept: { key: string; deployment: ChainDeployment },
) {
  try {
    const state = asGenesis(await testClientOf(rpcUrl, spec).dumpState())
    writeCachedChain(stateCacheDir, spec.chainId, { ...kept, state })
  } catch {
    // not kept: the chain itself is deployed and running
  }
}

/**
 * anvil's dump without its blocks: loaded, the accounts become the state of block 0. With the
 * deployment's blocks kept, a loaded chain answers nothing at them (anvil dumps no historical
 * state), and a search over past blocks (who used a nonce, and when) fails where it works on a
 * chain deployed afresh; this way every block of the loaded chain has its state.
 */
function asGenesis(dump: Hex): Hex {
  const state = JSON.parse(gunzipSync(hexToBytes(dump)).toString('utf8')) as {
    block?: Record<string, unknown>
  }
  const genesis = {
    ...state,
    block: { ...state.block, number: '0x0' },
    best_block_number: 0,
    blocks: [],
    transactions: [],
    historical_states: null,
  }
  return bytesToHex(gzipSync(JSON.stringify(genesis)))
}

/**
 * Loads a kept state into a fresh anvil (its block 0 then holds the deployment) and mines one
 * block, so that the chain's latest block carries the time of this start.
 */
async function loadChainState(
  rpcUrl: string,
  spec: SandboxChainSpec,
  state: `0x${string}`,
  deployment: ChainDeployment,
) {
  const testClient = testClientOf(rpcUrl, spec)
  await testClient.loadState({ state })
  const code = await testClient.getCode({ address: deployment.executorAddress })
  if (!code || code === '0x')
    throw new Error(`the kept state of chain ${spec.chainId} has no executor contract`)
  await testClient.mine({ blocks: 1 })
}

function testClientOf(rpcUrl: string, spec: SandboxChainSpec) {
  return createTestClient({
    chain: sandboxChain(spec.chainId, spec.name, rpcUrl),
    transport: http(rpcUrl),
    mode: 'anvil',
  }).extend(publicActions)
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
