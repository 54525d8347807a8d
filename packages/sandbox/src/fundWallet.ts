import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  parseEther,
  parseUnits,
} from 'viem'
import { assetTokenAbi, stockTokenManagerAbi } from './contracts/artifacts/index.js'
import { sandboxChain } from './deploy.js'
import type { LocalChain } from './localChains.js'

/** What to give a wallet on a sandbox chain, in natural units. */
export type WalletFunding = {
  /** Native gas money, ether. Default 100. */
  ether?: string | undefined
  /** The chain's default asset. */
  asset?: string | undefined
  /** Whole base units of each listed token, by ticker. */
  tokens?: Readonly<Record<string, bigint>> | undefined
}

/**
 * Funds `address` on a sandbox chain for real: gas money with anvil's `setBalance`, the default
 * asset and listed tokens minted by the chain's deployer (impersonated, so anvil assigns its nonce
 * on arrival and concurrent callers do not collide). Resolves once every mint is mined.
 *
 * @example
 * await fundWallet(chain, account.address, { asset: '100000', tokens: { AAPL: 10n } })
 */
export async function fundWallet(
  chain: LocalChain,
  address: Address,
  funding: WalletFunding = {},
): Promise<void> {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl) })
  const testClient = createTestClient({ chain: viemChain, transport: http(chain.rpcUrl), mode: 'anvil' })
  await testClient.setBalance({ address, value: parseEther(funding.ether ?? '100') })
  const deployer = await impersonatedDeployer(chain)
  const hashes: Hex[] = []
  if (funding.asset)
    hashes.push(
      await deployer.writeContract({
        address: chain.defaultAsset.address,
        abi: assetTokenAbi,
        functionName: 'mint',
        args: [address, parseUnits(funding.asset, chain.defaultAsset.decimals)],
      }),
    )
  for (const [ticker, amount] of Object.entries(funding.tokens ?? {})) {
    const token = chain.tokens.find((candidate) => candidate.ticker === ticker)
    if (!token)
      throw new Error(
        `no token ${ticker} on chain ${chain.chainId}: fund one of ${chain.tokens.map((t) => t.ticker).join(', ')}`,
      )
    hashes.push(
      await deployer.writeContract({
        address: chain.managerAddress,
        abi: stockTokenManagerAbi,
        functionName: 'mint',
        args: [token.address, address, amount],
      }),
    )
  }
  for (const hash of hashes) await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

/**
 * The chain's deployer (admin of the manager and minter), impersonated: anvil assigns its nonces
 * on arrival. Concurrent senders still race inside anvil for the next nonce; the loser sends again.
 *
 * @example
 * const deployer = await impersonatedDeployer(chain)
 * await deployer.writeContract({ address: chain.managerAddress, abi: stockTokenManagerAbi, functionName: 'mint', args })
 */
export async function impersonatedDeployer(chain: LocalChain) {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const testClient = createTestClient({ chain: viemChain, transport: http(chain.rpcUrl), mode: 'anvil' })
  const deployer = chain.roles.deployer.address
  await testClient.impersonateAccount({ address: deployer })
  const client = createWalletClient({
    account: deployer,
    chain: viemChain,
    // No transport retries: a retried eth_sendTransaction would be a second transaction, since
    // anvil assigns an impersonated sender's nonce itself.
    transport: http(chain.rpcUrl, { retryCount: 0 }),
  })
  return client.extend((base) => ({
    writeContract: ((parameters) =>
      retryOnNonceRace(() => base.writeContract(parameters))) as typeof base.writeContract,
    deployContract: ((parameters) =>
      retryOnNonceRace(() => base.deployContract(parameters))) as typeof base.deployContract,
  }))
}

async function retryOnNonceRace<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (
        attempt >= 8 ||
        !/nonce too low|nonce has already been used|replacement transaction underpriced/i.test(String(error))
      )
        throw error
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt))
    }
  }
}
