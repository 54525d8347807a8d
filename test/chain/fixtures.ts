import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi, type Hex, parseUnits, type TransactionReceipt } from 'viem'
import { expect } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { freshWallet, newQuoteId, tokenOf } from '../helpers/localChains.js'

// Shared by the chain-layer tests: stockroute's own clients for a local chain, a quote of the
// test's own signed like the service signs it, and a taker that approves and executes for real.

export type Wallet = Awaited<ReturnType<typeof freshWallet>>

/**
 * `freshWallet`, again with another fresh wallet when its funding lost the deployer's nonce race
 * with a parallel test file in a way the helper does not retry: anvil then answers "replacement
 * transaction underpriced" (two impersonated sends given the same nonce). An abandoned wallet's
 * funding is harmless.
 */
export async function fundedWallet(
  chain: LocalChain,
  funding: Parameters<typeof freshWallet>[1] = {},
): Promise<Wallet> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await freshWallet(chain, funding)
    } catch (error) {
      if (attempt >= 5 || !/replacement transaction underpriced/i.test(String(error))) throw error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
}

const clientsByChain = new Map<number, ReturnType<typeof createChainClients>>()

/** stockroute's public client for a local chain (one per chain and test file, as the daemon keeps one). */
export function publicClientOf(chain: LocalChain) {
  let clients = clientsByChain.get(chain.chainId)
  if (!clients) {
    clients = createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name })
    clientsByChain.set(chain.chainId, clients)
  }
  return clients.publicClient
}

/**
 * A buy of one AAPL share in the chain's default asset for 200 (fee 1 included), valid for a
 * minute unless `overrides` say otherwise; a fresh quote id each time.
 */
export function buyQuote(chain: LocalChain, overrides: Partial<SignedQuoteStruct> = {}): SignedQuoteStruct {
  const decimals = chain.defaultAsset.decimals
  return {
    quoteId: newQuoteId(),
    stockToken: tokenOf(chain, 'AAPL'),
    assetToken: chain.defaultAsset.address,
    isBuy: true,
    amountIn: parseUnits('200', decimals),
    amountOut: 1n,
    feeAmount: parseUnits('1', decimals),
    expiresAt: BigInt(Math.floor(Date.now() / 1000) + 60),
    ...overrides,
  }
}

export async function approve(wallet: Wallet, token: Address, spender: Address, amount: bigint) {
  const hash = await wallet.walletClient.writeContract({
    address: token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [spender, amount],
  })
  const receipt = await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return receipt
}

/** Sends `execute(quote, signature)` to the chain's executor from `wallet`; the receipt must succeed. */
export async function execute(
  chain: LocalChain,
  wallet: Wallet,
  quote: SignedQuoteStruct,
  signature: Hex,
): Promise<TransactionReceipt> {
  const hash = await wallet.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
  const receipt = await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return receipt
}
