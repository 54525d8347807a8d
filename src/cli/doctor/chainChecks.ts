import type { ChainInfo } from '@stockroute/client/api/actions/getChains.js'
import {
  connectionFailureFix,
  describeConnectionFailure,
  permanentConnectionFailureOf,
} from '@stockroute/client/api/connectionFailure.js'
import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { type Address, formatEther, formatUnits, isAddressEqual, maxUint256, parseEther } from 'viem'
import { type ChainClients, createChainClients } from '../../chain/clients.js'
import { readAllowance, readBalance, readDecimals } from '../../chain/erc20.js'
import { type ExecutorDomain, readExecutorDomain } from '../../chain/readExecutorDomain.js'
import type { ExecutionConfig, StockrouteConfig } from '../../config/config.js'
import { type DoctorCheck, reasonOf, redactUrl, withTimeout } from './types.js'

/** Below this much native gas money the wallet is warned about: 0.01 (ETH or the chain's native coin). */
export const defaultMinGasWei = parseEther('0.01')

/** An allowance this large is treated as unlimited (2^256-1 and tokens that decrement it). */
const unlimitedAllowance = maxUint256 / 2n

/** The part of GET /api/v1/chains the chain checks use. */
export type ServedChains = { chains: readonly ChainInfo[] }

export type ChainCheckParameters = {
  chain: StockrouteConfig['chains'][number]
  /** Index of the chain in the config's `chains`, for messages naming the field. */
  index: number
  /** The service's chain list (or its promise: the RPC checks start without it); undefined when it could not be read. */
  served: ServedChains | undefined | Promise<ServedChains | undefined>
  /**
   * The chain's wallets: the main one first (absent when its private key is unusable), then the
   * chain's extra wallets. Each gets its gas, asset and allowance checks; none: balances not read.
   */
  wallets: readonly Address[]
  execution: Pick<ExecutionConfig, 'approvalPolicy'>
}

export type ChainCheckOptions = {
  /** Per RPC call, ms. */
  timeoutMs: number
  /** Gas money below which the wallet is warned about, wei. */
  minGasWei?: bigint | undefined
  signal?: AbortSignal | undefined
}

/**
 * The checks of one configured chain: the service serves it and names the pinned executor and
 * operator; the RPC answers with the configured chain id; the executor has code and an EIP-712
 * domain naming this chain; each wallet's gas money, default asset balance and allowance to the
 * executor (one `gas`, `asset` and `allowance` check per wallet). Never throws for what it finds: every problem is a check with status `fail` or `warn`.
 */
export async function checkChain(
  parameters: ChainCheckParameters,
  options: ChainCheckOptions,
): Promise<DoctorCheck[]> {
  const context = chainContextOf(parameters, options)
  const { wallets } = parameters
  // The service's view (pins) and the chain's (RPC, executor, gas) at once; the asset needs both.
  const [served, chainSide] = await Promise.all([parameters.served, checkChainSide(context, wallets)])
  const info = served?.chains.find((candidate) => candidate.chainId === context.chainId)
  const walletAssets =
    chainSide.reachable && info
      ? await Promise.all(wallets.map((wallet) => checkAssetAndAllowance(context, wallet, info)))
      : []
  const checks = [
    checkChainServed(context, served, info),
    ...(info ? [checkExecutorPin(context, info), checkOperatorPin(context, info)] : []),
    ...chainSide.checks,
    ...walletAssets.flat(),
  ]
  return checks.map((check) => ({ ...check, chainId: context.chainId }))
}

/** A check of one chain before `checkChain` adds the chain id. */
type ChainCheck = Omit<DoctorCheck, 'chainId'>

/** What every check of one chain works with. */
type ChainContext = {
  chain: StockrouteConfig['chains'][number]
  chainId: number
  /** The chain's place in the config, for messages naming a field: `chains[1]`. */
  field: string
  /** The RPC URL as safe to print. */
  rpc: string
  publicClient: ChainClients['publicClient']
  /** One RPC call, bounded by the per-call timeout (and the signal), naming `what` when it times out. */
  call: <T>(promise: Promise<T>, what: string) => Promise<T>
  signal: AbortSignal | undefined
  minGasWei: bigint
  approvalPolicy: ExecutionConfig['approvalPolicy']
}

function chainContextOf(parameters: ChainCheckParameters, options: ChainCheckOptions): ChainContext {
  const { chain } = parameters
  const { publicClient } = createChainClients({
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    timeoutMs: options.timeoutMs,
    readRetryCount: 0,
  })
  return {
    chain,
    chainId: chain.chainId,
    field: `chains[${parameters.index}]`,
    rpc: redactUrl(chain.rpcUrl),
    publicClient,
    call: (promise, what) => withTimeout(promise, options.timeoutMs + 500, what, options.signal),
    signal: options.signal,
    minGasWei: options.minGasWei ?? defaultMinGasWei,
    approvalPolicy: parameters.execution.approvalPolicy,
  }
}

/** An aborted run stops: a call's failure is a finding only while the signal has not aborted. */
function rethrowIfAborted(context: ChainContext, error: unknown): void {
  if (context.signal?.aborted) throw error
}

/** `chain-served`: the service's chain list names this chain (undefined `served`: the list could not be read). */
function checkChainServed(
  { chainId, field }: ChainContext,
  served: ServedChains | undefined,
  info: ChainInfo | undefined,
): ChainCheck {
  if (!served)
    return {
      name: 'chain-served',
      status: 'warn',
      message:
        "not checked: the service's chain list could not be read (see the service check); the pinned executor and operator, the default asset and the allowance are checked once it answers",
      details: {},
    }
  if (!info)
    return {
      name: 'chain-served',
      status: 'fail',
      message: `the service does not serve chain ${chainId} (it serves ${served.chains.map((c) => c.chainId).join(', ')}): fix ${field}.chainId or remove the chain`,
      details: { servedChainIds: served.chains.map((c) => c.chainId) },
    }
  return {
    name: 'chain-served',
    status: 'ok',
    message: `the service serves chain ${chainId} (${info.chainName}), default asset ${info.defaultAsset}`,
    details: { chainName: info.chainName, defaultAsset: info.defaultAsset },
  }
}

/** `executor-pin`: the pinned executor is the contract the service executes quotes through. */
function checkExecutorPin({ chain, field }: ChainContext, info: ChainInfo): ChainCheck {
  const kind = info.platformRouterAddress ? 'platform router' : 'settlement contract'
  const details = { pinned: chain.executorAddress, service: info.executorAddress, kind }
  if (isAddressEqual(info.executorAddress, chain.executorAddress))
    return {
      name: 'executor-pin',
      status: 'ok',
      message: `pinned executor ${chain.executorAddress} is the service's ${kind}`,
      details,
    }
  return {
    name: 'executor-pin',
    status: 'fail',
    message: `the service executes quotes through its ${kind} ${info.executorAddress}, but ${field}.executorAddress pins ${chain.executorAddress}: find out which is right (out of band, not from the service alone) before trading, then fix executorAddress`,
    details,
  }
}

/** `operator-pin`: the pinned operator is the service's quote signer. */
function checkOperatorPin({ chain, field }: ChainContext, info: ChainInfo): ChainCheck {
  const details = { pinned: chain.operatorAddress, service: info.operatorAddress }
  if (isAddressEqual(info.operatorAddress, chain.operatorAddress))
    return {
      name: 'operator-pin',
      status: 'ok',
      message: `pinned operator ${chain.operatorAddress} is the service's quote signer`,
      details,
    }
  return {
    name: 'operator-pin',
    status: 'fail',
    message: `the service's operator (quote signer) is ${info.operatorAddress}, but ${field}.operatorAddress pins ${chain.operatorAddress}: every quote would be refused; find out which is right before trading, then fix operatorAddress`,
    details,
  }
}

/** The RPC check; once the RPC answers with this chain's id, the executor and each wallet's gas at once. */
async function checkChainSide(
  context: ChainContext,
  wallets: readonly Address[],
): Promise<{ reachable: boolean; checks: ChainCheck[] }> {
  const rpcCheck = await checkRpc(context)
  if (rpcCheck.status !== 'ok') return { reachable: false, checks: [rpcCheck] }
  const [executorCheck, ...gasChecks] = await Promise.all([
    checkExecutor(context),
    ...wallets.map((wallet) => checkGas(context, wallet)),
  ])
  return { reachable: true, checks: [rpcCheck, executorCheck, ...gasChecks] }
}

/** `rpc`: the RPC answers, in how many ms, and serves the configured chain id. */
async function checkRpc(context: ChainContext): Promise<ChainCheck> {
  const { chainId, field, rpc, publicClient } = context
  const started = performance.now()
  let rpcChainId: number
  let blockNumber: bigint
  try {
    ;[rpcChainId, blockNumber] = await context.call(
      Promise.all([publicClient.getChainId(), publicClient.getBlockNumber({ cacheTime: 0 })]),
      'eth_chainId',
    )
  } catch (error) {
    rethrowIfAborted(context, error)
    return rpcUnreachable(context, error, started)
  }
  const latencyMs = Math.round(performance.now() - started)
  if (rpcChainId !== chainId)
    return {
      name: 'rpc',
      status: 'fail',
      message: `RPC ${rpc} serves chain ${rpcChainId}, not ${chainId}: fix ${field}.rpcUrl (or chainId) so that they name the same chain`,
      details: { rpc, rpcChainId, latencyMs },
    }
  return {
    name: 'rpc',
    status: 'ok',
    message: `RPC ${rpc} answers eth_chainId ${rpcChainId} in ${latencyMs} ms (block ${blockNumber})`,
    details: { rpc, rpcChainId, latencyMs, blockNumber: blockNumber.toString() },
  }
}

/** The failed `rpc` check of an RPC that did not answer (asked at `started`, performance.now()). */
function rpcUnreachable({ chainId, field, rpc }: ChainContext, error: unknown, started: number): ChainCheck {
  const notChecked = '(the executor, balances and allowance are not checked until it answers)'
  const failure = permanentConnectionFailureOf(error)
  if (failure)
    return {
      name: 'rpc',
      status: 'fail',
      message: `${describeConnectionFailure(rpc, failure)}, the RPC of chain ${chainId}: ${connectionFailureFix(failure, `${field}.rpcUrl`, 'the node')} ${notChecked}`,
      details: { rpc, error: reasonOf(error), connection: failure.kind },
    }
  return {
    name: 'rpc',
    status: 'fail',
    message: `RPC ${rpc} unreachable after ${Math.round(performance.now() - started)} ms: ${reasonOf(error)}; check ${field}.rpcUrl and that the node is up ${notChecked}`,
    details: { rpc, error: reasonOf(error) },
  }
}

/** `executor`: the pinned executor has code, and an EIP-712 domain naming this chain and itself. */
async function checkExecutor(context: ChainContext): Promise<ChainCheck> {
  const { chainId, field } = context
  const executor = context.chain.executorAddress
  let code: string | undefined
  try {
    code = await context.call(context.publicClient.getCode({ address: executor }), 'eth_getCode')
  } catch (error) {
    rethrowIfAborted(context, error)
    return {
      name: 'executor',
      status: 'fail',
      message: `eth_getCode(${executor}) failed: ${reasonOf(error)}`,
      details: { executor, error: reasonOf(error) },
    }
  }
  const codeBytes = code && code !== '0x' ? (code.length - 2) / 2 : 0
  if (codeBytes === 0)
    return {
      name: 'executor',
      status: 'fail',
      message: `no contract at ${executor} on chain ${chainId}: ${field}.executorAddress is wrong, or the RPC serves another network`,
      details: { executor, codeBytes },
    }
  try {
    const domain = await context.call(readExecutorDomain(context.publicClient, executor), 'eip712Domain()')
    return checkExecutorDomain(context, codeBytes, domain)
  } catch (error) {
    rethrowIfAborted(context, error)
    return {
      name: 'executor',
      status: 'fail',
      message: `${executor} has code but eip712Domain() failed (${reasonOf(error).split(': ')[0]}): it is not a stockroute executor (router or settlement); check ${field}.executorAddress`,
      details: { executor, codeBytes, error: reasonOf(error) },
    }
  }
}

/** The `executor` check of the executor's EIP-712 domain: it names this chain and the executor itself. */
function checkExecutorDomain(
  { chainId, field, chain }: ChainContext,
  codeBytes: number,
  domain: ExecutorDomain,
): ChainCheck {
  const executor = chain.executorAddress
  const details = { executor, codeBytes, domain: { ...domain, extensions: domain.extensions.map(String) } }
  if (domain.chainId !== chainId)
    return {
      name: 'executor',
      status: 'fail',
      message: `the executor's EIP-712 domain names chain ${domain.chainId}, not ${chainId}: quotes signed for this chain would not verify; check ${field}.executorAddress and rpcUrl`,
      details,
    }
  if (!isAddressEqual(domain.verifyingContract, executor))
    return {
      name: 'executor',
      status: 'fail',
      message: `the executor's EIP-712 domain names verifying contract ${domain.verifyingContract}, not ${executor} itself: it is not the contract quotes are executed through`,
      details,
    }
  return {
    name: 'executor',
    status: 'ok',
    message: `${domain.name} v${domain.version} at ${executor}: ${codeBytes} bytes of code, EIP-712 domain names chain ${domain.chainId}`,
    details,
  }
}

/** `gas`: the wallet holds native gas money, at least `minGasWei`. */
async function checkGas(context: ChainContext, address: Address): Promise<ChainCheck> {
  const minimum = context.minGasWei
  try {
    const balance = await context.call(context.publicClient.getBalance({ address }), 'eth_getBalance')
    const details = { wallet: address, balanceWei: balance.toString(), minimumWei: minimum.toString() }
    const found = `wallet ${address} holds ${formatTokenAmount(balance, 18)} native gas money`
    if (balance === 0n)
      return {
        name: 'gas',
        status: 'fail',
        message: `${found}: it cannot pay for any approval or execute transaction; send it at least ${formatEther(minimum)}`,
        details,
      }
    if (balance < minimum)
      return {
        name: 'gas',
        status: 'warn',
        message: `${found}, below ${formatEther(minimum)}: transactions may soon fail for gas; top it up`,
        details,
      }
    return { name: 'gas', status: 'ok', message: found, details }
  } catch (error) {
    rethrowIfAborted(context, error)
    return {
      name: 'gas',
      status: 'fail',
      message: `eth_getBalance(${address}) failed: ${reasonOf(error)}`,
      details: { wallet: address, error: reasonOf(error) },
    }
  }
}

/** The service's default asset of the chain: its symbol and token address. */
type DefaultAsset = { symbol: string; token: Address }

/**
 * The wallet's `asset` check, then its `allowance` check: the allowance is read after the balance,
 * and not at all when the service lists no address for the asset or the token could not be read.
 */
async function checkAssetAndAllowance(
  context: ChainContext,
  wallet: Address,
  service: ChainInfo,
): Promise<ChainCheck[]> {
  const symbol = service.defaultAsset
  const token = service.defaultAssetAddress
  if (!token) return [assetWithoutAddress(symbol)]
  const asset = { symbol, token }
  const { check, decimals } = await checkAsset(context, wallet, asset)
  if (decimals === undefined) return [check]
  return [check, await checkAllowance(context, wallet, { ...asset, decimals })]
}

/** The failed `asset` check of a default asset the service lists no address for. */
function assetWithoutAddress(symbol: string): ChainCheck {
  return {
    name: 'asset',
    status: 'fail',
    message: `the service names default asset ${symbol} but lists no address for it: the engine cannot trade on this chain; report it to the service`,
    details: { symbol },
  }
}

/** `asset`: the default asset reads as a token (its decimals), and the wallet holds some of it. */
async function checkAsset(
  context: ChainContext,
  wallet: Address,
  { symbol, token }: DefaultAsset,
): Promise<{ check: ChainCheck; decimals: number | undefined }> {
  const { publicClient, signal } = context
  let decimals: number
  let balance: bigint
  try {
    ;[decimals, balance] = await context.call(
      Promise.all([
        readDecimals(publicClient, token, { signal }),
        readBalance(publicClient, { token, owner: wallet }, { signal }),
      ]),
      `${symbol} decimals and balance`,
    )
  } catch (error) {
    rethrowIfAborted(context, error)
    return {
      decimals: undefined,
      check: {
        name: 'asset',
        status: 'fail',
        message: `reading ${symbol} at ${token} failed: ${reasonOf(error)}; the service's asset address may not be a token on this chain`,
        details: { symbol, token, error: reasonOf(error) },
      },
    }
  }
  const formatted = formatUnits(balance, decimals)
  const details = { symbol, token, decimals, wallet, balance: balance.toString(), formatted }
  const found = `${symbol} ${token} (${decimals} decimals): wallet ${wallet} holds ${formatTokenAmount(balance, decimals)} ${symbol}`
  if (balance === 0n)
    return {
      decimals,
      check: {
        name: 'asset',
        status: 'warn',
        message: `${found}: buys paid in ${symbol} will fail; fund the wallet with ${symbol} on chain ${context.chainId}`,
        details,
      },
    }
  return { decimals, check: { name: 'asset', status: 'ok', message: found, details } }
}

/**
 * `allowance`: what the wallet allows the executor to take of the default asset; an unlimited
 * allowance is warned about unless approvalPolicy is "unlimited".
 */
async function checkAllowance(
  context: ChainContext,
  owner: Address,
  { symbol, token, decimals }: DefaultAsset & { decimals: number },
): Promise<ChainCheck> {
  const spender = context.chain.executorAddress
  let allowance: bigint
  try {
    allowance = await context.call(
      readAllowance(context.publicClient, { token, owner, spender }, { signal: context.signal }),
      `${symbol} allowance`,
    )
  } catch (error) {
    rethrowIfAborted(context, error)
    return {
      name: 'allowance',
      status: 'fail',
      message: `allowance(${owner}, ${spender}) of ${symbol} failed: ${reasonOf(error)}`,
      details: { symbol, token, spender, error: reasonOf(error) },
    }
  }
  const unlimited = allowance >= unlimitedAllowance
  const policy = context.approvalPolicy
  const details = {
    symbol,
    token,
    owner,
    spender,
    allowance: allowance.toString(),
    unlimited,
    approvalPolicy: policy,
  }
  const amount = unlimited ? 'an unlimited allowance' : `${formatTokenAmount(allowance, decimals)} ${symbol}`
  const found = `wallet ${owner} allows executor ${spender} ${amount}`
  if (unlimited && policy !== 'unlimited')
    return {
      name: 'allowance',
      status: 'warn',
      message: `${found}, but approvalPolicy is "${policy}" (the engine approves what each quote needs): the executor can take every ${symbol} the wallet holds; revoke it with approve(${spender}, 0), or set execution.approvalPolicy to "unlimited" if that is intended`,
      details,
    }
  return {
    name: 'allowance',
    status: 'ok',
    message: `${found} (approvalPolicy "${policy}": ${policy === 'unlimited' ? 'the engine approves 2^256-1 once' : 'the engine approves what each quote needs'})`,
    details,
  }
}
