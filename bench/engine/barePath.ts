// The bare path an integrator writes by hand with viem, the baseline of bench:engine: fetch the
// router quote, verify its signature (the executor's domain read once), approve what required_approvals says (waiting for the
// receipt), writeContract(execute), wait for the receipt. No ledger, no guard beyond the signature,
// no simulation. Also fresh funded wallets, for both paths.

import { getRouterQuote } from '@stockroute/client/api/actions/getRouterQuote.js'
import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import { fundWallet } from '@stockroute/sandbox/fundWallet.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  type LocalAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { readExecutorDomain } from '../../src/chain/readExecutorDomain.js'
import { verifyRouterQuote } from '../../src/chain/verifyRouterQuote.js'

/** Both paths poll receipts this often, ms. */
export const receiptPollMs = 50

export type Taker = {
  account: LocalAccount
  publicClient: PublicClient<Transport, Chain>
  walletClient: WalletClient<Transport, Chain, LocalAccount>
  service: ServiceClient
  /** The executor's EIP-712 domain, read once (an integrator pins it, as the engine does). */
  executorDomain?: Awaited<ReturnType<typeof readExecutorDomain>>
}

/** One bare buy of `amountIn` of the chain's default asset into AAPL. */
export async function bareBuy(taker: Taker, chain: LocalChain, amountIn: string): Promise<void> {
  const reply = await getRouterQuote(taker.service, {
    ticker: 'AAPL',
    exchange: 0,
    isBuy: true,
    chainId: chain.chainId,
    asset: chain.defaultAsset.address,
    amountIn,
  })
  const quote = toSignedQuoteStruct(reply.quote)
  taker.executorDomain ??= await readExecutorDomain(taker.publicClient, chain.executorAddress)
  const verdict = await verifyRouterQuote({
    quote,
    signature: reply.signature,
    executorDomain: taker.executorDomain,
    pinned: {
      chainId: chain.chainId,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
    },
    minValidityMs: 0,
    now: Date.now,
  })
  if (!verdict.ok) throw new Error(`bare path: quote refused: ${verdict.message}`)
  for (const approval of reply.requiredApprovals) {
    const hash = await taker.walletClient.writeContract({
      address: approval.tokenAddress,
      abi: erc20Abi,
      functionName: 'approve',
      args: [approval.spender, approval.amount],
    })
    await mined(taker.publicClient, hash, 'approve')
  }
  const hash = await taker.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, reply.signature],
  })
  await mined(taker.publicClient, hash, 'execute')
}

export async function mined(publicClient: PublicClient<Transport, Chain>, hash: Hex, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: receiptPollMs })
  if (receipt.status !== 'success') throw new Error(`${what} ${hash} reverted`)
  return receipt
}

function clientsFor(chain: LocalChain, account: LocalAccount) {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const transport = http(chain.rpcUrl)
  return {
    account,
    publicClient: createPublicClient({ chain: viemChain, transport }),
    walletClient: createWalletClient({ account, chain: viemChain, transport }),
  }
}

/** Where the sandbox service answers, and the API key the bench uses (the child's, see sandboxProcess.ts). */
export type ServiceEndpoint = { url: string; credential: { apiKey: string; apiSecret: string } }

/** A funded wallet: its key, and the bare path's clients on a chain. */
export type FundedWallet = {
  privateKey: Hex
  account: LocalAccount
  takerOn(chain: LocalChain): Taker
}

/**
 * New wallets, funded by the sandbox's deployer (gas money, and the default asset for `buys` buys
 * plus a margin), so that no two parts of the bench share a nonce sequence.
 *
 * @example
 * const wallet = await freshWallet(sandbox, [chain], 40, '300')
 */
export async function freshWallet(
  sandbox: ServiceEndpoint,
  chains: readonly LocalChain[],
  buys: number,
  amountIn: string,
): Promise<FundedWallet> {
  const privateKey = generatePrivateKey()
  const taker = privateKeyToAccount(privateKey)
  // Whole units of the asset, as a decimal string: bigints, never a JS number, for money.
  const asset = (BigInt(amountIn) * BigInt(buys + 2)).toString()
  for (const chain of chains) await fundWallet(chain, taker.address, { asset })
  return {
    privateKey,
    account: taker,
    takerOn(chain: LocalChain) {
      const service = createServiceClient({
        baseUrl: sandbox.url,
        credentials: sandbox.credential,
        makerAddress: taker.address,
        requestsPerSecond: 1_000,
      })
      return { ...clientsFor(chain, taker), service }
    },
  }
}
