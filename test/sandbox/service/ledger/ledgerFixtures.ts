import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { type CatalogueStock, sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import { defaultChainSpecs } from '@stockroute/sandbox/chainSpecs.js'
import {
  assetTokenAbi,
  rfqSettlementAbi,
  stockTokenAbi,
  stockTokenBytecode,
  stockTokenManagerAbi,
} from '@stockroute/sandbox/contracts/artifacts/index.js'
import { type LocalChain, type LocalChains, startLocalChains } from '@stockroute/sandbox/localChains.js'
import type { IssuedQuote, Listing } from '@stockroute/sandbox/service/contextTypes.js'
import { type SandboxService, startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import {
  type Address,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  parseEther,
  type TransactionReceipt,
} from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, expect } from 'vitest'
import { clientsFor, deployerClient, newQuoteId, signForChain } from '../../../helpers/localChains.js'

// Fixtures of the ledger tests: wallets that exist on several chains, quotes signed and executed
// for real, and StockTokens of a test's own (listed only in that test's service) so that corporate
// actions and exact statistics never touch what other test files do on the shared chains.

export type Wallet = ReturnType<typeof clientsFor> & { privateKey: Hex; chain: LocalChain }

/**
 * A wallet on `chain` (a new key unless one is given, so the same maker can exist on two chains),
 * with gas, `asset` natural units of the default asset and `tokens` base units of listed tokens
 * minted for real by the deployer.
 */
export async function walletOn(
  chain: LocalChain,
  funding: { privateKey?: Hex; asset?: bigint; tokens?: Record<Address, bigint> } = {},
): Promise<Wallet> {
  const privateKey = funding.privateKey ?? generatePrivateKey()
  const clients = clientsFor(chain, privateKey)
  await clients.testClient.setBalance({ address: clients.account.address, value: parseEther('100') })
  const deployer = await deployerClient(chain)
  const hashes: Hex[] = []
  if (funding.asset) {
    hashes.push(
      await deployer.writeContract({
        address: chain.defaultAsset.address,
        abi: assetTokenAbi,
        functionName: 'mint',
        args: [clients.account.address, funding.asset],
      }),
    )
  }
  for (const [token, amount] of Object.entries(funding.tokens ?? {})) {
    hashes.push(
      await deployer.writeContract({
        address: chain.managerAddress,
        abi: stockTokenManagerAbi,
        functionName: 'mint',
        args: [token as Address, clients.account.address, amount],
      }),
    )
  }
  await confirm(chain, hashes)
  return { ...clients, privateKey, chain }
}

export async function confirm(chain: LocalChain, hashes: readonly Hex[]): Promise<TransactionReceipt[]> {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const receipts = await Promise.all(
    hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })),
  )
  for (const receipt of receipts) expect(receipt.status).toBe('success')
  return receipts
}

/** The service's listing of `ticker` on the chain (catalogue or the test's own). */
export function listingOf(service: SandboxService, chain: LocalChain, ticker: string): Listing {
  const listing = service.context.listings.get(chain.chainId)?.find((l) => l.ticker === ticker)
  if (!listing) throw new Error(`no listing ${ticker} on chain ${chain.chainId}`)
  return listing
}

export type Execution = {
  quote: SignedQuoteStruct
  signature: Hex
  receipt: TransactionReceipt
  /** Asset base units per whole share, as the order shows it. */
  price: bigint
  /** Gross asset amount: buy amountIn − fee, sell amountOut + fee. */
  gross: bigint
  blockTimestamp: number
}

/**
 * Signs a quote as the chain's operator and executes it from `wallet` through the chain's executor:
 * a buy of `quantity` token base units pays price × quantity plus a 10 bp fee; a sell receives it
 * minus the fee. With `register` (default) the quote is recorded in the service's issued quotes, as
 * if the service had issued it.
 */
export async function executeQuote(
  service: SandboxService,
  wallet: Wallet,
  order: { ticker: string; isBuy: boolean; quantity: bigint; price: bigint; register?: boolean },
): Promise<Execution> {
  const { chain } = wallet
  const listing = listingOf(service, chain, order.ticker)
  const asset = chain.defaultAsset
  const gross = (order.price * order.quantity) / 10n ** BigInt(listing.decimals)
  const fee = gross / 1000n
  const now = (await wallet.publicClient.getBlock()).timestamp
  const quote: SignedQuoteStruct = {
    quoteId: newQuoteId(),
    stockToken: listing.address,
    assetToken: asset.address,
    isBuy: order.isBuy,
    amountIn: order.isBuy ? gross + fee : order.quantity,
    amountOut: order.isBuy ? order.quantity : gross - fee,
    feeAmount: fee,
    expiresAt: now + 60n,
  }
  const signature = await signForChain(chain, quote)
  if (order.register ?? true) {
    const issued: IssuedQuote = {
      quoteId: quote.quoteId,
      chainId: chain.chainId,
      ticker: listing.ticker,
      exchange: listing.exchange,
      isBuy: order.isBuy,
      amountType: order.isBuy ? 'stablecoin_in' : 'stocktoken_in',
      stockToken: listing.address,
      assetToken: asset.address,
      amountIn: quote.amountIn,
      amountInUsed: quote.amountIn,
      amountOut: quote.amountOut,
      feeAmount: fee,
      price: order.price,
      expiresAt: Number(quote.expiresAt),
      signature,
      issuedAtMs: Date.now(),
    }
    service.context.quotes.set(quote.quoteId, issued)
  }
  await approveMax(wallet, order.isBuy ? asset.address : listing.address, chain.executorAddress)
  const hash = await wallet.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
  const [receipt] = await confirm(chain, [hash])
  if (!receipt) throw new Error('no receipt')
  const block = await wallet.publicClient.getBlock({ blockNumber: receipt.blockNumber })
  return {
    quote,
    signature,
    receipt,
    price: order.price,
    gross: order.isBuy ? quote.amountIn - fee : quote.amountOut + fee,
    blockTimestamp: Number(block.timestamp),
  }
}

const approved = new Set<string>()

/** One unlimited approval per (wallet, token, spender): executions then cost one transaction each. */
async function approveMax(wallet: Wallet, token: Address, spender: Address) {
  const key = `${wallet.chain.chainId}:${wallet.account.address}:${token}:${spender}`.toLowerCase()
  if (approved.has(key)) return
  const hash = await wallet.walletClient.writeContract({
    address: token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [spender, maxUint256],
  })
  await confirm(wallet.chain, [hash])
  approved.add(key)
}

let ownTokenCount = 0

/**
 * Deploys a StockToken of the test's own, lists it in this service only (the shared chains' other
 * users never see it), gives the payer inventory and lets the executor draw on it, so quotes on it
 * settle both ways.
 */
export async function listOwnStock(
  service: SandboxService,
  chain: LocalChain,
  options: { ticker?: string; exchange?: ExchangeCode; referencePrice?: string; totalShares?: number } = {},
): Promise<Listing> {
  ownTokenCount += 1
  const ticker = options.ticker ?? `T${process.pid % 1000}X${ownTokenCount}`
  const deployer = await deployerClient(chain)
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const deployHash = await deployer.deployContract({
    abi: stockTokenAbi,
    bytecode: stockTokenBytecode,
    args: [`${ticker} test stock`, ticker, chain.managerAddress],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 })
  const address = receipt.contractAddress
  if (!address) throw new Error('no contract address')
  const mintHash = await deployer.writeContract({
    address: chain.managerAddress,
    abi: stockTokenManagerAbi,
    functionName: 'mint',
    args: [address, chain.payerAddress, 1_000_000n],
  })
  await confirm(chain, [mintHash])
  const payer = await payerClient(chain)
  for (const spender of [chain.settlementAddress, chain.platformRouterAddress]) {
    if (!spender) continue
    const hash = await payer.writeContract({
      address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [spender, maxUint256],
    })
    await confirm(chain, [hash])
  }
  const exchange = options.exchange ?? 0
  const stock: CatalogueStock = {
    ticker,
    exchange,
    name: `${ticker} test stock`,
    stockCode: ticker,
    lotSize: 1,
    spreadTableCode: '1',
    referencePrice: options.referencePrice ?? '10',
    hasShareToken: false,
    totalShares: options.totalShares ?? 1_000_000,
  }
  const listing: Listing = {
    ticker,
    exchange,
    kind: 'stock',
    address,
    decimals: 0,
    underlying: null,
    stock,
    chainId: chain.chainId,
    isActive: true,
  }
  service.context.listings.get(chain.chainId)?.push(listing)
  return listing
}

/** A wallet client of the chain's payer, impersonated (anvil assigns its nonces on arrival). */
async function payerClient(chain: LocalChain) {
  const { testClient, publicClient } = clientsFor(chain, chain.roles.payer.privateKey)
  await testClient.impersonateAccount({ address: chain.payerAddress })
  return createWalletClient({
    account: chain.payerAddress,
    chain: publicClient.chain,
    transport: http(chain.rpcUrl),
  })
}

/** Transfers `amount` of `token` from the wallet; resolves to the simulation's outcome. */
export function simulateTransfer(wallet: Wallet, token: Address, to: Address, amount: bigint) {
  return wallet.publicClient.simulateContract({
    account: wallet.account,
    address: token,
    abi: stockTokenAbi,
    functionName: 'transfer',
    args: [to, amount],
  })
}

/**
 * Two chains of the test file's own (router + 6-decimal asset, settlement + 18-decimal asset, like
 * the shared ones) with a small catalogue, and a sandbox service on them: nothing else trades there,
 * so platform-wide numbers can be checked exactly, and the chains can be rewound. Read inside tests.
 */
export function usePrivateChains(options: {
  chainIds: readonly [number, number]
  /** Only these catalogue stocks are listed (default: the whole catalogue). */
  catalogueTickers?: readonly string[]
  clock?: { now: () => number }
}) {
  let local: LocalChains | undefined
  let started: SandboxService | undefined
  beforeAll(async () => {
    const [withRouter, withoutRouter] = defaultChainSpecs
    if (!withRouter || !withoutRouter) throw new Error('default chain specs changed')
    const tickers = options.catalogueTickers ? new Set(options.catalogueTickers) : undefined
    local = await startLocalChains({
      specs: [
        { ...withRouter, chainId: options.chainIds[0] },
        { ...withoutRouter, chainId: options.chainIds[1] },
      ],
      catalogue: tickers ? sandboxCatalogue.filter((stock) => tickers.has(stock.ticker)) : sandboxCatalogue,
      keySeed: `ledger-test/${options.chainIds.join('/')}`,
      walletCount: 0,
    })
    started = await startSandboxService({
      local,
      requestsPerSecond: 10_000,
      ...(options.clock ? { clock: options.clock } : {}),
    })
  }, 120_000)
  afterAll(async () => {
    await started?.stop()
    await local?.stop()
  })
  return () => {
    if (!local || !started) throw new Error('private chains not started yet: call inside a test')
    const [withRouter, withoutRouter] = local.chains as [LocalChain, LocalChain]
    return { service: started, chains: local.chains, withRouter, withoutRouter }
  }
}
