import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { shareTicker, type TokenKind, tokenKinds } from '@stockroute/client/domain/markets.js'
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  type Hash,
  http,
  maxUint256,
  type PublicClient,
  parseEther,
  parseUnits,
  type TestClient,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createNonceManager, jsonRpc } from 'viem/nonce'
import type { CatalogueStock } from './catalogue.js'
import type { SandboxChainSpec } from './chainSpecs.js'
import {
  assetTokenAbi,
  assetTokenBytecode,
  platformRouterAbi,
  platformRouterBytecode,
  rfqSettlementAbi,
  rfqSettlementBytecode,
  shareTokenAbi,
  shareTokenBytecode,
  stockTokenAbi,
  stockTokenBytecode,
  stockTokenManagerAbi,
  stockTokenManagerBytecode,
} from './contracts/artifacts/index.js'
import type { ChainRoleKeys, SandboxKey } from './keys.js'

export type DeployedAsset = {
  symbol: string
  name: string
  address: Address
  decimals: number
  zeroAllowanceFirst: boolean
}

export type DeployedToken = {
  ticker: string
  exchange: ExchangeCode
  kind: TokenKind
  address: Address
  decimals: number
  /** The StockToken a ShareToken is a fraction of; null for a StockToken. */
  underlying: Address | null
  stock: CatalogueStock
}

export type ChainDeployment = {
  managerAddress: Address
  settlementAddress: Address
  /** Present only on chains deployed with a platform router. */
  platformRouterAddress: Address | null
  /** The contract whose `execute` settles this chain's quotes: the router where present. */
  executorAddress: Address
  assets: DeployedAsset[]
  defaultAsset: DeployedAsset
  tokens: DeployedToken[]
}

/** Opening balances handed out by the deployer, in natural units. */
export const seedBalances = {
  nativeEther: '10000',
  payerStockShares: 10_000_000n,
  payerShareTokens: '1000000',
  payerAsset: '1000000000',
  walletStockShares: 10_000n,
  walletShareTokens: '1000',
  walletAsset: '1000000',
} as const

export type DeploySandboxChainParameters = {
  spec: SandboxChainSpec
  rpcUrl: string
  roles: ChainRoleKeys
  wallets: readonly SandboxKey[]
  catalogue: readonly CatalogueStock[]
}

/**
 * Deploys the service's contracts on a fresh chain, lists the catalogue's tokens, fills the payer's
 * inventory, funds the test wallets and lets the settlement contracts draw on the payer.
 *
 * @example
 * const deployment = await deploySandboxChain({ spec, rpcUrl, roles, wallets, catalogue })
 * deployment.executorAddress
 */
export async function deploySandboxChain(parameters: DeploySandboxChainParameters): Promise<ChainDeployment> {
  const { spec, rpcUrl, roles, wallets, catalogue } = parameters
  const chain = sandboxChain(spec.chainId, spec.name, rpcUrl)
  const transport = http(rpcUrl)
  const publicClient = createPublicClient({ chain, transport })
  await fundNativeEther(createTestClient({ chain, transport, mode: 'anvil' }), [
    roles.deployer,
    roles.operator,
    roles.payer,
    roles.feeRecipient,
    ...wallets,
  ])
  const sender: Sender = {
    deployer: walletFor(chain, transport, roles.deployer),
    payer: walletFor(chain, transport, roles.payer),
    nextNonce: await publicClient.getTransactionCount({ address: roles.deployer.address }),
    sent: [],
  }
  // Every step awaits each send in turn: the deployer's nonces, and so the addresses, follow that order.
  const executors = await deployExecutors(sender, spec, roles)
  const assets = await deployAssets(sender, spec.assets)
  const tokens = await deployTokens(sender, catalogue, executors.managerAddress)
  await mintOpeningBalances(sender, executors.managerAddress, tokens, assets, roles.payer.address, wallets)
  await approveExecutors(sender, [...tokens, ...assets], executors)
  await confirmAll(publicClient, sender.sent)
  const [defaultAsset] = assets
  if (!defaultAsset) throw new Error(`chain ${spec.chainId} has no asset`)
  return { ...executors, assets, defaultAsset, tokens }
}

/** Sends the deployment's transactions and keeps their hashes, to confirm them all at the end. */
type Sender = {
  deployer: ReturnType<typeof walletFor>
  payer: ReturnType<typeof walletFor>
  /** The deployer's next nonce: it fixes the address of the next contract deployed. */
  nextNonce: number
  sent: Hash[]
}

type Executors = Pick<
  ChainDeployment,
  'managerAddress' | 'settlementAddress' | 'platformRouterAddress' | 'executorAddress'
>

async function fundNativeEther(testClient: TestClient, keys: readonly SandboxKey[]) {
  await Promise.all(
    keys.map((key) =>
      testClient.setBalance({ address: key.address, value: parseEther(seedBalances.nativeEther) }),
    ),
  )
}

/** Deploys a contract by the deployer; its address follows from the nonce, so the receipt is not awaited. */
async function deploy(
  sender: Sender,
  abi: Abi,
  bytecode: `0x${string}`,
  args: readonly unknown[],
): Promise<Address> {
  const from = sender.deployer.account.address
  const address = getContractAddress({ from, nonce: BigInt(sender.nextNonce++) })
  sender.sent.push(await sender.deployer.deployContract({ abi, bytecode, args }))
  return address
}

/** The StockTokenManager, the RFQSettlement and, where the spec has one, the PlatformRouter. */
async function deployExecutors(
  sender: Sender,
  spec: SandboxChainSpec,
  roles: ChainRoleKeys,
): Promise<Executors> {
  const managerAddress = await deploy(sender, stockTokenManagerAbi, stockTokenManagerBytecode, [
    roles.deployer.address,
  ])
  const settlementArgs = [
    roles.operator.address,
    roles.payer.address,
    roles.feeRecipient.address,
    roles.deployer.address,
  ]
  const settlementAddress = await deploy(sender, rfqSettlementAbi, rfqSettlementBytecode, settlementArgs)
  const platformRouterAddress = spec.withPlatformRouter
    ? await deploy(sender, platformRouterAbi, platformRouterBytecode, settlementArgs)
    : null
  return {
    managerAddress,
    settlementAddress,
    platformRouterAddress,
    executorAddress: platformRouterAddress ?? settlementAddress,
  }
}

async function deployAssets(sender: Sender, specs: SandboxChainSpec['assets']): Promise<DeployedAsset[]> {
  const assets: DeployedAsset[] = []
  for (const asset of specs) {
    const address = await deploy(sender, assetTokenAbi, assetTokenBytecode, [
      asset.name,
      asset.symbol,
      asset.decimals,
      asset.zeroAllowanceFirst,
      sender.deployer.account.address,
    ])
    assets.push({ ...asset, address })
  }
  return assets
}

/** A StockToken per catalogue stock, each followed by its ShareToken where it has one. */
async function deployTokens(
  sender: Sender,
  catalogue: readonly CatalogueStock[],
  managerAddress: Address,
): Promise<DeployedToken[]> {
  const tokens: DeployedToken[] = []
  for (const stock of catalogue) {
    const stockAddress = await deploy(sender, stockTokenAbi, stockTokenBytecode, [
      stock.name,
      stock.ticker,
      managerAddress,
    ])
    tokens.push(listedToken(stock, 'stock', stockAddress, null))
    if (stock.hasShareToken) {
      const ticker = shareTicker(stock.ticker)
      const name = `${stock.name} (fractional)`
      const address = await deploy(sender, shareTokenAbi, shareTokenBytecode, [
        name,
        ticker,
        managerAddress,
        stockAddress,
      ])
      tokens.push(listedToken(stock, 'share', address, stockAddress))
    }
  }
  return tokens
}

/** The payer's inventory and the test wallets' holdings of every token and asset ({@link seedBalances}). */
async function mintOpeningBalances(
  sender: Sender,
  managerAddress: Address,
  tokens: readonly DeployedToken[],
  assets: readonly DeployedAsset[],
  payer: Address,
  wallets: readonly SandboxKey[],
) {
  const holders = [payer, ...wallets.map((wallet) => wallet.address)]
  for (const token of tokens) {
    const amounts =
      token.kind === 'stock'
        ? [seedBalances.payerStockShares, ...wallets.map(() => seedBalances.walletStockShares)]
        : [
            parseUnits(seedBalances.payerShareTokens, 18),
            ...wallets.map(() => parseUnits(seedBalances.walletShareTokens, 18)),
          ]
    sender.sent.push(
      await sender.deployer.writeContract({
        address: managerAddress,
        abi: stockTokenManagerAbi,
        functionName: 'mintBatch',
        args: [token.address, holders, amounts],
      }),
    )
  }
  for (const asset of assets) {
    const mints: [Address, string][] = [
      [payer, seedBalances.payerAsset],
      ...wallets.map((wallet): [Address, string] => [wallet.address, seedBalances.walletAsset]),
    ]
    for (const [to, amount] of mints) {
      sender.sent.push(
        await sender.deployer.writeContract({
          address: asset.address,
          abi: assetTokenAbi,
          functionName: 'mint',
          args: [to, parseUnits(amount, asset.decimals)],
        }),
      )
    }
  }
}

/** Lets the settlement contracts (and router) draw on the payer's tokens and assets. */
async function approveExecutors(
  sender: Sender,
  tokens: readonly { address: Address }[],
  { settlementAddress, platformRouterAddress }: Executors,
) {
  const executors = platformRouterAddress ? [settlementAddress, platformRouterAddress] : [settlementAddress]
  for (const token of tokens) {
    for (const spender of executors) {
      sender.sent.push(
        await sender.payer.writeContract({
          address: token.address,
          abi: assetTokenAbi,
          functionName: 'approve',
          args: [spender, maxUint256],
        }),
      )
    }
  }
}

/**
 * The deployment's code as text (its steps and the opening balances), for the state cache's key:
 * a change to what is sent, or to what the wallets get, is another chain. Read from the functions
 * themselves rather than from this module's file, which a bundled CLI does not have beside it.
 */
export function deploymentFingerprint(): string {
  const steps = [
    deploySandboxChain,
    fundNativeEther,
    deploy,
    deployExecutors,
    deployAssets,
    deployTokens,
    mintOpeningBalances,
    approveExecutors,
    listedToken,
    walletFor,
    confirmAll,
  ]
  const balances = Object.entries(seedBalances).map(([name, amount]) => `${name}=${amount}`)
  return [...steps.map(String), ...balances].join('\n')
}

/** A viem chain for a sandbox chain id and RPC URL. */
export function sandboxChain(chainId: number, name: string, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

function listedToken(stock: CatalogueStock, kind: TokenKind, address: Address, underlying: Address | null) {
  const ticker = kind === 'share' ? shareTicker(stock.ticker) : stock.ticker
  return {
    ticker,
    exchange: stock.exchange,
    kind,
    address,
    decimals: tokenKinds[kind].decimals,
    underlying,
    stock,
  }
}

/**
 * A wallet with a nonce manager of this deployment's own: viem's shared one remembers nonces per
 * (address, chain id) across deployments in one process, so a second sandbox on a fresh chain with
 * the same id would send from a nonce its chain never reached, and wait forever for a receipt.
 */
function walletFor(chain: Chain, transport: Transport, key: SandboxKey) {
  return createWalletClient({
    account: privateKeyToAccount(key.privateKey, { nonceManager: createNonceManager({ source: jsonRpc() }) }),
    chain,
    transport,
  })
}

/** Anvil mines each transaction as it arrives; fail loudly if any of them reverted. */
async function confirmAll(client: PublicClient, hashes: readonly Hash[]) {
  const receipts = await Promise.all(
    hashes.map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 50 })),
  )
  const failed = receipts.filter((receipt) => receipt.status !== 'success')
  if (failed.length > 0) {
    throw new Error(
      `sandbox deployment: ${failed.length} transaction(s) reverted: ${failed.map((r) => r.transactionHash).join(', ')}`,
    )
  }
}
