import { getChains } from '@stockroute/client/api/actions/getChains.js'
import type { CallOptions, ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { assetDecimalsOf } from '@stockroute/client/domain/units.js'
import PQueue from 'p-queue'
import { type Address, isAddressEqual, type LocalAccount } from 'viem'
import { createAllowanceLayouts } from '../chain/allowanceSlot.js'
import { createChainClients } from '../chain/clients.js'
import { readDecimals } from '../chain/erc20.js'
import { createInclusionTimes, minimumValidityMs } from '../chain/inclusionTime.js'
import { isTransportFailure } from '../chain/isTransportFailure.js'
import { type ExecutorDomain, readExecutorDomain } from '../chain/readExecutorDomain.js'
import { createResetFirstTokens } from '../chain/resetFirstTokens.js'
import { createChainBlocks } from '../transactions/chainBlocks.js'
import { defaultTransactionManagerSettings, type TransactionManagerSettings } from '../transactions/types.js'
import type { EngineContext } from './context.js'
import { EngineError } from './errors.js'
import type { ChainRuntime, ChainWallet } from './types.js'

/** One chain as configured: where to reach it and what is pinned for it. */
export type EngineChainConfig = {
  chainId: number
  rpcUrl: string
  /** The contract quotes are executed through (router, else settlement). Quotes for any other are refused. */
  executorAddress: Address
  /** The only key whose quote signatures are accepted. */
  operatorAddress: Address
  /** Inclusion time assumed before any is measured, ms. Default 4 000. */
  defaultInclusionMs?: number | undefined
  /** The transaction manager's settings for this chain (confirmations, fee cap, stuck time…). */
  transactions?: Partial<TransactionManagerSettings> | undefined
  /**
   * The wallets that trade on this chain, each with its own nonces and transaction manager, for
   * throughput beyond one nonce sequence. Default: the engine's one account.
   */
  accounts?: readonly LocalAccount[] | undefined
  /** Most JSON-RPC calls in one batch request (calls made together share one). Default 20; 1 turns batching off. */
  rpcBatchSize?: number | undefined
}

/**
 * Checks each configured chain against the service's chain list and the chain itself, then builds
 * its runtime: the service must name the pinned executor (router where present, else settlement)
 * and operator, the RPC must serve the configured chain id (the executor's EIP-712 domain says so),
 * and the default asset's decimals are read from the chain. Throws {@link EngineError}
 * `ENGINE_SETUP_FAILED` naming the field to fix.
 *
 * @example
 * const runtimes = await createChainRuntimes({ service, account, chains: config.chains })
 * runtimes.get(31337)?.asset.decimals // 6
 */
export async function createChainRuntimes(
  parameters: {
    service: ServiceClient
    account: LocalAccount
    chains: readonly EngineChainConfig[]
    /** Builds a wallet's transaction manager once the chain's clients and pins are checked. */
    createManager: (
      runtime: Omit<ChainRuntime, 'wallets'>,
      wallet: Pick<ChainWallet, 'account' | 'walletClient'>,
    ) => ChainWallet['transactions']
    /** Executions in stages one and two at once per wallet (default 2). */
    pipelineDepth?: number | undefined
    /** Told each time a chain's RPC did not answer during setup and is tried again. */
    onRetry?: ((chainId: number, message: string) => void) | undefined
  },
  options: CallOptions = {},
): Promise<Map<number, ChainRuntime>> {
  const { service, account, chains, createManager } = parameters
  const served = await getChains(service, {}, options)
  const runtimes = await Promise.all(
    chains.map((config) =>
      // A chain whose RPC does not answer (a blip, a restart) is tried again for a while, with its
      // reason printed, instead of failing the whole start; a wrong pin fails at once.
      retryTransportFailures(() => setUp(config), {
        untilMs: Date.now() + setupRetryWindowMs,
        signal: options.signal,
        onRetry: (message) => parameters.onRetry?.(config.chainId, message),
      }),
    ),
  )
  // Each chain knows the others' executors, so a quote signed for another chain is named as such.
  for (const runtime of runtimes)
    runtime.knownExecutors = runtimes
      .filter((other) => other !== runtime)
      .map((other) => ({ domain: domainOf(other.executorDomain), operatorAddress: other.operatorAddress }))
  return new Map(runtimes.map((runtime) => [runtime.chainId, runtime]))

  async function setUp(config: EngineChainConfig): Promise<ChainRuntime> {
    const fail = (problem: string) =>
      new EngineError({
        code: 'ENGINE_SETUP_FAILED',
        shortMessage: `Chain ${config.chainId}: ${problem}`,
        details: { chainId: config.chainId },
      })
    const info = served.chains.find((chain) => chain.chainId === config.chainId)
    if (!info)
      throw fail(
        `the service does not serve it (it serves ${served.chains.map((c) => c.chainId).join(', ')}): remove it from the configuration or fix its chainId.`,
      )
    if (!isAddressEqual(info.executorAddress, config.executorAddress))
      throw fail(
        `the service executes quotes through ${info.executorAddress}, but the configuration pins executor ${config.executorAddress}: check which is right before trading, then fix executorAddress.`,
      )
    if (!isAddressEqual(info.operatorAddress, config.operatorAddress))
      throw fail(
        `the service's operator is ${info.operatorAddress}, but the configuration pins ${config.operatorAddress}: check which is right before trading, then fix operatorAddress.`,
      )
    const assetAddress = info.defaultAssetAddress
    if (!assetAddress)
      throw fail(`the service names default asset ${info.defaultAsset} but lists no address for it.`)
    const clients = createChainClients({
      chainId: config.chainId,
      rpcUrl: config.rpcUrl,
      account,
      rpcBatchSize: config.rpcBatchSize,
    })
    const [executorDomain, decimals] = await Promise.all([
      readExecutorDomain(clients.publicClient, config.executorAddress, options),
      readDecimals(clients.publicClient, assetAddress, options),
    ])
    if (executorDomain.chainId !== config.chainId)
      throw fail(
        `the executor at ${config.rpcUrl} reports chain id ${executorDomain.chainId}: the RPC URL serves another chain.`,
      )
    const transactionSettings = { ...defaultTransactionManagerSettings, ...config.transactions }
    const allowanceLayouts = createAllowanceLayouts(clients.publicClient)
    const runtime: Omit<ChainRuntime, 'wallets'> = {
      chainId: config.chainId,
      rpcUrl: config.rpcUrl,
      executorAddress: config.executorAddress,
      operatorAddress: config.operatorAddress,
      executorDomain,
      knownExecutors: [],
      asset: { address: assetAddress, decimals: assetDecimalsOf(decimals), symbol: info.defaultAsset },
      publicClient: clients.publicClient,
      sendQueuedReads: clients.sendQueuedReads,
      inclusion: createInclusionTimes({
        defaultMs: config.defaultInclusionMs ?? 4_000,
        maxAgeMs: 10 * 60_000,
      }),
      broadcastTimes: new Map(),
      allowanceLayouts,
      resetFirstTokens: createResetFirstTokens(clients.publicClient, allowanceLayouts),
      blocks: createChainBlocks({
        client: clients.publicClient,
        pollMs: transactionSettings.blockPollMs,
        window: transactionSettings.reorgWindow,
      }),
      transactionSettings,
    }
    const accounts = config.accounts && config.accounts.length > 0 ? config.accounts : [account]
    const wallets = accounts.map((walletAccount, index) => {
      const walletClient =
        index === 0 && walletAccount === account
          ? clients.walletClient
          : clients.walletClientFor(walletAccount)
      return {
        account: walletAccount,
        walletClient,
        transactions: createManager(runtime, { account: walletAccount, walletClient }),
        pipeline: new PQueue({ concurrency: parameters.pipelineDepth ?? 2 }),
      }
    })
    return { ...runtime, wallets }
  }
}

/** How long a chain's setup keeps trying an RPC that does not answer, ms. */
const setupRetryWindowMs = 60_000

async function retryTransportFailures<T>(
  work: () => Promise<T>,
  options: { untilMs: number; signal?: AbortSignal | undefined; onRetry: (message: string) => void },
): Promise<T> {
  for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 8_000)) {
    try {
      return await work()
    } catch (error) {
      if (!isTransportFailure(error) || Date.now() + waitMs > options.untilMs) throw error
      options.signal?.throwIfAborted()
      const reason = error instanceof StockrouteError ? error.shortMessage : String(error)
      options.onRetry(
        `setup: the RPC did not answer (${reason.split('. ')[0]}); trying again in ${waitMs} ms`,
      )
      await new Promise((resolve) => setTimeout(resolve, waitMs))
    }
  }
}

function domainOf(domain: ExecutorDomain) {
  return {
    name: domain.name,
    version: domain.version,
    chainId: domain.chainId,
    verifyingContract: domain.verifyingContract,
  }
}

/** The validity a quote must keep to be sent now: the chain's measured inclusion time plus the margin. */
export function minimumValidity(context: EngineContext, chain: ChainRuntime, nowMs: number): number {
  return minimumValidityMs(chain.inclusion, nowMs, context.settings.validityMarginMs)
}
