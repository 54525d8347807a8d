import { type Address, formatEther, formatUnits, isAddressEqual, maxUint256, parseEther } from 'viem'
import type { ChainInfo } from '../../api/actions/getChains.js'
import {
  connectionFailureFix,
  describeConnectionFailure,
  permanentConnectionFailureOf,
} from '../../api/connectionFailure.js'
import { createChainClients } from '../../chain/clients.js'
import { readAllowance, readBalance, readDecimals } from '../../chain/erc20.js'
import { readExecutorDomain } from '../../chain/readExecutorDomain.js'
import type { ExecutionConfig, StockrouteConfig } from '../config.js'
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
  const { chain, index, wallets, execution } = parameters
  const { chainId } = chain
  const field = `chains[${index}]`
  const rpc = redactUrl(chain.rpcUrl)
  const { publicClient } = createChainClients({
    chainId,
    rpcUrl: chain.rpcUrl,
    timeoutMs: options.timeoutMs,
    readRetryCount: 0,
  })
  const call = <T>(promise: Promise<T>, what: string) =>
    withTimeout(promise, options.timeoutMs + 500, what, options.signal)

  // The service's view (pins) and the chain's (RPC, executor, gas) at once; the asset needs both.
  const [served, chainSide] = await Promise.all([parameters.served, checkChainSide()])
  const info = served?.chains.find((candidate) => candidate.chainId === chainId)
  const checks = [...servicePinChecks(served, info), ...chainSide.checks]
  if (chainSide.reachable && info)
    for (const assetChecks of await Promise.all(wallets.map((wallet) => checkAsset(wallet, info))))
      checks.push(...assetChecks)
  return checks.map((check) => ({ ...check, chainId }))

  /** The service serves the chain, and names the pinned executor and operator. */
  function servicePinChecks(
    served: ServedChains | undefined,
    info: ChainInfo | undefined,
  ): Omit<DoctorCheck, 'chainId'>[] {
    if (!served)
      return [
        {
          name: 'chain-served',
          status: 'warn',
          message:
            "not checked: the service's chain list could not be read (see the service check); the pinned executor and operator, the default asset and the allowance are checked once it answers",
          details: {},
        },
      ]
    if (!info)
      return [
        {
          name: 'chain-served',
          status: 'fail',
          message: `the service does not serve chain ${chainId} (it serves ${served.chains.map((c) => c.chainId).join(', ')}): fix ${field}.chainId or remove the chain`,
          details: { servedChainIds: served.chains.map((c) => c.chainId) },
        },
      ]
    const executorKind = info.platformRouterAddress ? 'platform router' : 'settlement contract'
    return [
      {
        name: 'chain-served',
        status: 'ok',
        message: `the service serves chain ${chainId} (${info.chainName}), default asset ${info.defaultAsset}`,
        details: { chainName: info.chainName, defaultAsset: info.defaultAsset },
      },
      isAddressEqual(info.executorAddress, chain.executorAddress)
        ? {
            name: 'executor-pin',
            status: 'ok',
            message: `pinned executor ${chain.executorAddress} is the service's ${executorKind}`,
            details: { pinned: chain.executorAddress, service: info.executorAddress, kind: executorKind },
          }
        : {
            name: 'executor-pin',
            status: 'fail',
            message: `the service executes quotes through its ${executorKind} ${info.executorAddress}, but ${field}.executorAddress pins ${chain.executorAddress}: find out which is right (out of band, not from the service alone) before trading, then fix executorAddress`,
            details: { pinned: chain.executorAddress, service: info.executorAddress, kind: executorKind },
          },
      isAddressEqual(info.operatorAddress, chain.operatorAddress)
        ? {
            name: 'operator-pin',
            status: 'ok',
            message: `pinned operator ${chain.operatorAddress} is the service's quote signer`,
            details: { pinned: chain.operatorAddress, service: info.operatorAddress },
          }
        : {
            name: 'operator-pin',
            status: 'fail',
            message: `the service's operator (quote signer) is ${info.operatorAddress}, but ${field}.operatorAddress pins ${chain.operatorAddress}: every quote would be refused; find out which is right before trading, then fix operatorAddress`,
            details: { pinned: chain.operatorAddress, service: info.operatorAddress },
          },
    ]
  }

  /** The RPC answers with the configured chain id; then the executor and the wallet's gas. */
  async function checkChainSide(): Promise<{ reachable: boolean; checks: Omit<DoctorCheck, 'chainId'>[] }> {
    const started = performance.now()
    let rpcChainId: number
    let blockNumber: bigint
    try {
      ;[rpcChainId, blockNumber] = await call(
        Promise.all([publicClient.getChainId(), publicClient.getBlockNumber({ cacheTime: 0 })]),
        'eth_chainId',
      )
    } catch (error) {
      if (options.signal?.aborted) throw error
      const failure = permanentConnectionFailureOf(error)
      if (failure)
        return {
          reachable: false,
          checks: [
            {
              name: 'rpc',
              status: 'fail',
              message: `${describeConnectionFailure(rpc, failure)}, the RPC of chain ${chainId}: ${connectionFailureFix(failure, `${field}.rpcUrl`, 'the node')} (the executor, balances and allowance are not checked until it answers)`,
              details: { rpc, error: reasonOf(error), connection: failure.kind },
            },
          ],
        }
      return {
        reachable: false,
        checks: [
          {
            name: 'rpc',
            status: 'fail',
            message: `RPC ${rpc} unreachable after ${Math.round(performance.now() - started)} ms: ${reasonOf(error)}; check ${field}.rpcUrl and that the node is up (the executor, balances and allowance are not checked until it answers)`,
            details: { rpc, error: reasonOf(error) },
          },
        ],
      }
    }
    const latencyMs = Math.round(performance.now() - started)
    if (rpcChainId !== chainId)
      return {
        reachable: false,
        checks: [
          {
            name: 'rpc',
            status: 'fail',
            message: `RPC ${rpc} serves chain ${rpcChainId}, not ${chainId}: fix ${field}.rpcUrl (or chainId) so that they name the same chain`,
            details: { rpc, rpcChainId, latencyMs },
          },
        ],
      }
    const rpcCheck: Omit<DoctorCheck, 'chainId'> = {
      name: 'rpc',
      status: 'ok',
      message: `RPC ${rpc} answers eth_chainId ${rpcChainId} in ${latencyMs} ms (block ${blockNumber})`,
      details: { rpc, rpcChainId, latencyMs, blockNumber: blockNumber.toString() },
    }
    const [executorCheck, ...gasChecks] = await Promise.all([
      checkExecutor(),
      ...wallets.map((wallet) => checkGas(wallet)),
    ])
    return { reachable: true, checks: [rpcCheck, executorCheck, ...gasChecks] }
  }

  async function checkExecutor(): Promise<Omit<DoctorCheck, 'chainId'>> {
    const executor = chain.executorAddress
    let code: string | undefined
    try {
      code = await call(publicClient.getCode({ address: executor }), 'eth_getCode')
    } catch (error) {
      if (options.signal?.aborted) throw error
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
      const domain = await call(readExecutorDomain(publicClient, executor), 'eip712Domain()')
      const details = {
        executor,
        codeBytes,
        domain: { ...domain, extensions: domain.extensions.map(String) },
      }
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
    } catch (error) {
      if (options.signal?.aborted) throw error
      return {
        name: 'executor',
        status: 'fail',
        message: `${executor} has code but eip712Domain() failed (${reasonOf(error).split(': ')[0]}): it is not a stockroute executor (router or settlement); check ${field}.executorAddress`,
        details: { executor, codeBytes, error: reasonOf(error) },
      }
    }
  }

  async function checkGas(address: Address): Promise<Omit<DoctorCheck, 'chainId'>> {
    const minimum = options.minGasWei ?? defaultMinGasWei
    try {
      const balance = await call(publicClient.getBalance({ address }), 'eth_getBalance')
      const details = { wallet: address, balanceWei: balance.toString(), minimumWei: minimum.toString() }
      const found = `wallet ${address} holds ${formatEther(balance)} native gas money`
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
      if (options.signal?.aborted) throw error
      return {
        name: 'gas',
        status: 'fail',
        message: `eth_getBalance(${address}) failed: ${reasonOf(error)}`,
        details: { wallet: address, error: reasonOf(error) },
      }
    }
  }

  async function checkAsset(address: Address, service: ChainInfo): Promise<Omit<DoctorCheck, 'chainId'>[]> {
    const symbol = service.defaultAsset
    const token = service.defaultAssetAddress
    if (!token)
      return [
        {
          name: 'asset',
          status: 'fail',
          message: `the service names default asset ${symbol} but lists no address for it: the engine cannot trade on this chain; report it to the service`,
          details: { symbol },
        },
      ]
    let decimals: number
    let balance: bigint
    try {
      ;[decimals, balance] = await call(
        Promise.all([
          readDecimals(publicClient, token, { signal: options.signal }),
          readBalance(publicClient, { token, owner: address }, { signal: options.signal }),
        ]),
        `${symbol} decimals and balance`,
      )
    } catch (error) {
      if (options.signal?.aborted) throw error
      return [
        {
          name: 'asset',
          status: 'fail',
          message: `reading ${symbol} at ${token} failed: ${reasonOf(error)}; the service's asset address may not be a token on this chain`,
          details: { symbol, token, error: reasonOf(error) },
        },
      ]
    }
    const assetDetails = {
      symbol,
      token,
      decimals,
      wallet: address,
      balance: balance.toString(),
      formatted: formatUnits(balance, decimals),
    }
    const found = `${symbol} ${token} (${decimals} decimals): wallet ${address} holds ${formatUnits(balance, decimals)} ${symbol}`
    const assetCheck: Omit<DoctorCheck, 'chainId'> =
      balance === 0n
        ? {
            name: 'asset',
            status: 'warn',
            message: `${found}: buys paid in ${symbol} will fail; fund the wallet with ${symbol} on chain ${chainId}`,
            details: assetDetails,
          }
        : { name: 'asset', status: 'ok', message: found, details: assetDetails }

    const spender = chain.executorAddress
    let allowance: bigint
    try {
      allowance = await call(
        readAllowance(publicClient, { token, owner: address, spender }, { signal: options.signal }),
        `${symbol} allowance`,
      )
    } catch (error) {
      if (options.signal?.aborted) throw error
      return [
        assetCheck,
        {
          name: 'allowance',
          status: 'fail',
          message: `allowance(${address}, ${spender}) of ${symbol} failed: ${reasonOf(error)}`,
          details: { symbol, token, spender, error: reasonOf(error) },
        },
      ]
    }
    const unlimited = allowance >= unlimitedAllowance
    const policy = execution.approvalPolicy
    const allowanceDetails = {
      symbol,
      token,
      owner: address,
      spender,
      allowance: allowance.toString(),
      unlimited,
      approvalPolicy: policy,
    }
    const amount = unlimited ? 'an unlimited allowance' : `${formatUnits(allowance, decimals)} ${symbol}`
    const found2 = `wallet ${address} allows executor ${spender} ${amount}`
    const allowanceCheck: Omit<DoctorCheck, 'chainId'> =
      unlimited && policy !== 'unlimited'
        ? {
            name: 'allowance',
            status: 'warn',
            message: `${found2}, but approvalPolicy is "${policy}" (the engine approves what each quote needs): the executor can take every ${symbol} the wallet holds; revoke it with approve(${spender}, 0), or set execution.approvalPolicy to "unlimited" if that is intended`,
            details: allowanceDetails,
          }
        : {
            name: 'allowance',
            status: 'ok',
            message: `${found2} (approvalPolicy "${policy}": ${policy === 'unlimited' ? 'the engine approves 2^256-1 once' : 'the engine approves what each quote needs'})`,
            details: allowanceDetails,
          }
    return [assetCheck, allowanceCheck]
  }
}
