// The soak's wallet and daemon configuration. The wallet is a new one funded with gas and the default
// asset only: every stock it ever holds then comes from one of its fills, so the ledger's positions
// must equal the chain's balances exactly (the sandbox's test wallets start with shares the ledger
// never saw).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { assetTokenAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import type { SandboxDescription } from '@stockroute/sandbox/describe.js'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  parseEther,
  parseUnits,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { ConfigFileInput } from '../../src/config/config.js'
import { rpc } from './rpc.js'

export type SandboxChainInfo = SandboxDescription['chains'][number]

/** What one strategy of the soak trades, to know which tokens the audit must look at. */
export type SoakStrategy = NonNullable<ConfigFileInput['strategies']>[number] & {
  kind: 'schedule'
  chainId: number
  ticker: string
}

/**
 * Strategies that trade every few seconds on both chains: buys paid in the asset (each needs an
 * exact approval first) and sells of what the buys brought (each needs an approval of the stock).
 * `alpha` is the chain with a router and a 6-decimal asset, `beta` the one without, with 18. A buy
 * pays with its chain's default asset (the only one the service quotes in, see
 * {@link paymentAssetOf}): on `beta` that is USDT, reset-first (an allowance must go to 0 before it
 * changes), so the AAPLs and MSFT buys there exercise the reset before an approval.
 */
export function soakStrategies(alpha: number, beta: number): SoakStrategy[] {
  const schedule = (
    id: string,
    chainId: number,
    ticker: string,
    exchange: 0 | 1 | 3,
    side: 'buy' | 'sell',
    amountIn: string,
    cron: string,
    amountType?: 'stocktoken',
  ): SoakStrategy => ({
    kind: 'schedule',
    id,
    chainId,
    ticker,
    exchange,
    side,
    amountIn,
    cron,
    ...(amountType ? { amountType } : {}),
  })
  return [
    schedule('soak-buy-aapl-alpha', alpha, 'AAPL', 0, 'buy', '300', '*/4 * * * * *'),
    schedule('soak-sell-aapl-alpha', alpha, 'AAPL', 0, 'sell', '1', '2,14,26,38,50 * * * * *', 'stocktoken'),
    schedule('soak-buy-005930-alpha', alpha, '005930', 3, 'buy', '2', '*/9 * * * * *', 'stocktoken'),
    schedule('soak-buy-aapls-beta', beta, 'AAPLs', 0, 'buy', '40', '*/5 * * * * *'),
    schedule('soak-sell-aapls-beta', beta, 'AAPLs', 0, 'sell', '0.05', '3,18,33,48 * * * * *', 'stocktoken'),
    schedule('soak-buy-msft-beta', beta, 'MSFT', 0, 'buy', '450', '*/7 * * * * *'),
    schedule('soak-sell-msft-beta', beta, 'MSFT', 0, 'sell', '1', '5,35 * * * * *', 'stocktoken'),
  ]
}

/**
 * The asset a chain's buys pay with: its default asset (router quotes are in it and nothing else).
 *
 * @example
 * paymentAssetOf(beta) // { symbol: 'USDT', decimals: 18, zeroAllowanceFirst: true, … }
 */
export function paymentAssetOf(chain: SandboxChainInfo): SandboxChainInfo['assets'][number] {
  const asset = chain.assets.find((candidate) => candidate.symbol === chain.defaultAsset)
  if (!asset)
    throw new Error(`chain ${chain.chainId}: default asset ${chain.defaultAsset} not among its assets`)
  return asset
}

/**
 * A new wallet: 100 ETH (anvil_setBalance) and 1,000,000 of the default asset (minted by the
 * chain's deployer) on every chain, mined (and buried under three blocks) before this returns.
 * Direct RPC, never the proxies.
 *
 * @example
 * const wallet = await fundFreshWallet(sandbox.description.chains)
 */
export async function fundFreshWallet(
  chains: readonly SandboxChainInfo[],
): Promise<{ address: Address; privateKey: Hex }> {
  const privateKey = generatePrivateKey()
  const { address } = privateKeyToAccount(privateKey)
  for (const chain of chains) {
    const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
    const transport = http(chain.rpcUrl, { timeout: 10_000 })
    const asset = paymentAssetOf(chain)
    await rpc(chain.rpcUrl, 'anvil_setBalance', [address, `0x${parseEther('100').toString(16)}`])
    const deployer = createWalletClient({
      account: privateKeyToAccount(chain.roles.deployer.privateKey),
      chain: viemChain,
      transport,
    })
    const hash = await deployer.writeContract({
      address: asset.address,
      abi: assetTokenAbi,
      functionName: 'mint',
      args: [address, parseUnits('1000000', asset.decimals)],
    })
    const receipt = await createPublicClient({ chain: viemChain, transport }).waitForTransactionReceipt({
      hash,
      pollingInterval: 100,
      timeout: 30_000,
    })
    if (receipt.status !== 'success') throw new Error(`chain ${chain.chainId}: minting the asset reverted`)
    // anvil_setBalance is no transaction: a reorg of the blocks after it (the chaos reorgs up to 2
    // deep from the first second) takes the chain back to a state without it, and the wallet has
    // no gas for the rest of the run. Three empty blocks put the funding below any reorg.
    await rpc(chain.rpcUrl, 'anvil_mine', ['0x3'])
  }
  return { address, privateKey }
}

export type SoakConfigPaths = { trading: string; drain: string }

/**
 * Rewrites `DIR/stockroute.json` (written by the sandbox) for the soak: each chain's RPC URL is its
 * fault proxy, the soak's strategies, the control API on a free loopback port, the ledger in
 * `DIR/data`; and `DIR/stockroute.drain.json`, the same without strategies, run at the end to let
 * every unfinished execution settle. The `.env` beside them gets the soak wallet's key.
 *
 * @example
 * const paths = writeSoakConfig({ dir, proxyUrls, strategies, privateKey })
 */
export function writeSoakConfig(parameters: {
  dir: string
  proxyUrls: ReadonlyMap<number, string>
  strategies: readonly SoakStrategy[]
  privateKey: Hex
}): SoakConfigPaths {
  const { dir, proxyUrls, strategies, privateKey } = parameters
  const written = JSON.parse(readFileSync(join(dir, 'stockroute.json'), 'utf8')) as ConfigFileInput
  const chains = written.chains.map((chain) => {
    const proxyUrl = proxyUrls.get(chain.chainId)
    if (!proxyUrl) throw new Error(`no fault proxy for chain ${chain.chainId}`)
    return { ...chain, rpcUrl: proxyUrl }
  })
  const config: ConfigFileInput = {
    ...written,
    chains,
    dataDir: 'data',
    execution: { approvalPolicy: 'exact' },
    strategies: [...strategies],
    marketData: { intervalMs: 1_000, staleAfterMs: 10_000 },
    api: { enabled: true, port: 0 },
    jobs: { reconciliation: '*/15 * * * * *' },
    summaryIntervalSeconds: 30,
    logLevel: 'info',
  }
  const trading = join(dir, 'stockroute.json')
  const drain = join(dir, 'stockroute.drain.json')
  writeFileSync(trading, `${JSON.stringify(config, null, 2)}\n`)
  writeFileSync(drain, `${JSON.stringify({ ...config, strategies: [] }, null, 2)}\n`)
  const envPath = join(dir, '.env')
  const env = readFileSync(envPath, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('STOCKROUTE_PRIVATE_KEY='))
  env.splice(env.length - 1, 0, `STOCKROUTE_PRIVATE_KEY=${privateKey}`)
  writeFileSync(envPath, env.join('\n'), { mode: 0o600 })
  return { trading, drain }
}
