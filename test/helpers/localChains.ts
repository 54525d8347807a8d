import { routerQuoteDomain, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import { fundWallet, impersonatedDeployer } from '@stockroute/sandbox/fundWallet.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { signRouterQuote } from '@stockroute/sandbox/signQuote.js'
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { inject } from 'vitest'

/** The chains started by test/setup/localChains.ts, shared by every test file. */
export function localChains(): LocalChain[] {
  return inject('localChains').chains
}

/** The chain with a platform router and a 6-decimal asset, and the one without, with 18. */
export function chainWithRouter(): LocalChain {
  return pick((chain) => chain.platformRouterAddress !== null)
}
export function chainWithoutRouter(): LocalChain {
  return pick((chain) => chain.platformRouterAddress === null)
}

function pick(predicate: (chain: LocalChain) => boolean): LocalChain {
  const chain = localChains().find(predicate)
  if (!chain) throw new Error('test chains do not include the expected chain')
  return chain
}

export function clientsFor(chain: LocalChain, privateKey: Hex) {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const transport = http(chain.rpcUrl)
  const account = privateKeyToAccount(privateKey)
  return {
    account,
    publicClient: createPublicClient({ chain: viemChain, transport }),
    walletClient: createWalletClient({ account, chain: viemChain, transport }),
    testClient: createTestClient({ chain: viemChain, transport, mode: 'anvil' }),
  }
}

/** A new wallet of the test's own, so parallel test files never share nonces or balances, funded by {@link fundAddress}. */
export async function freshWallet(
  chain: LocalChain,
  funding: { asset?: string; tokens?: Record<string, bigint> } = {},
) {
  const privateKey = generatePrivateKey()
  const clients = clientsFor(chain, privateKey)
  await fundAddress(chain, clients.account.address, funding)
  return { privateKey, ...clients }
}

/** Funds `address` on `chain` (see {@link fundWallet}): 100 ETH, `asset` of the default asset, `tokens` by ticker. */
export function fundAddress(
  chain: LocalChain,
  address: Address,
  funding: { asset?: string; tokens?: Record<string, bigint> } = {},
) {
  return fundWallet(chain, address, funding)
}

/** The chain's deployer, impersonated (see {@link impersonatedDeployer}). */
export const deployerClient = impersonatedDeployer

export function tokenOf(chain: LocalChain, ticker: string): Address {
  const token = chain.tokens.find((t) => t.ticker === ticker)
  if (!token) throw new Error(`no token ${ticker} on chain ${chain.chainId}`)
  return token.address
}

let quoteCounter = 0
/** A fresh bytes32 quote id. */
export function newQuoteId(): Hex {
  quoteCounter += 1
  return keccak256(toHex(`test-quote/${process.pid}/${Date.now()}/${quoteCounter}/${Math.random()}`))
}

/** Signs a quote for the chain's executor with the chain's operator key (or another key). */
export function signForChain(
  chain: LocalChain,
  quote: SignedQuoteStruct,
  operatorKey: Hex = chain.roles.operator.privateKey,
) {
  return signRouterQuote({ domain: routerQuoteDomain(chain), quote, operatorKey })
}

/** `owner`'s balance now, or at `blockNumber` (anvil mines one transaction per block). */
export async function balanceOf(
  chain: LocalChain,
  token: Address,
  owner: Address,
  blockNumber?: bigint,
): Promise<bigint> {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  return publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  })
}
