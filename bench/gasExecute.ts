// Prints the gas `execute` uses for a buy and a sell on each sandbox chain (router and settlement
// paths), so contract changes can be compared. Run: npm run gas

import { routerQuoteDomain, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import { type LocalChain, startLocalChains } from '@stockroute/sandbox/localChains.js'
import { signRouterQuote } from '@stockroute/sandbox/signQuote.js'
import { createPublicClient, createWalletClient, erc20Abi, http, keccak256, parseUnits, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const local = await startLocalChains({ walletCount: 1 })
try {
  const wallet = local.wallets[0]
  if (!wallet) throw new Error('no test wallet')
  const rows: string[][] = []
  for (const chain of local.chains) {
    const path = chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'
    const buyGas = await executeOnce(chain, wallet.privateKey, true)
    const sellGas = await executeOnce(chain, wallet.privateKey, false)
    rows.push([
      String(chain.chainId),
      path,
      `${chain.defaultAsset.decimals}`,
      String(buyGas),
      String(sellGas),
    ])
  }
  const header = ['chain', 'executor', 'asset decimals', 'buy gas', 'sell gas']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)))
  for (const row of [header, ...rows])
    console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '))
} finally {
  await local.stop()
}

/** Executes one AAPL quote (1 share, 0.1% fee) and returns the receipt's gasUsed. */
async function executeOnce(chain: LocalChain, privateKey: `0x${string}`, isBuy: boolean): Promise<bigint> {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const transport = http(chain.rpcUrl)
  const publicClient = createPublicClient({ chain: viemChain, transport })
  const walletClient = createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: viemChain,
    transport,
  })
  const asset = chain.defaultAsset
  const stock = chain.tokens.find((t) => t.ticker === 'AAPL')
  if (!stock) throw new Error('AAPL missing')
  const gross = parseUnits('227.48', asset.decimals)
  const fee = gross / 1000n
  const quote: SignedQuoteStruct = {
    quoteId: keccak256(toHex(`gas/${chain.chainId}/${isBuy}`)),
    stockToken: stock.address,
    assetToken: asset.address,
    isBuy,
    amountIn: isBuy ? gross + fee : 1n,
    amountOut: isBuy ? 1n : gross - fee,
    feeAmount: fee,
    expiresAt: (await publicClient.getBlock()).timestamp + 10n,
  }
  const approveHash = await walletClient.writeContract({
    address: isBuy ? asset.address : stock.address,
    abi: erc20Abi,
    functionName: 'approve',
    args: [chain.executorAddress, quote.amountIn],
  })
  await publicClient.waitForTransactionReceipt({ hash: approveHash, pollingInterval: 50 })
  const signature = await signRouterQuote({
    domain: routerQuoteDomain(chain),
    quote,
    operatorKey: chain.roles.operator.privateKey,
  })
  const hash = await walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`execute reverted on chain ${chain.chainId}`)
  return receipt.gasUsed
}
