import type { Address, Client, Hex } from 'viem'
import { estimateContractGas, simulateContract } from 'viem/actions'
import type { SignedQuoteStruct } from '../domain/routerQuote.js'
import { executeRevertsAbi } from './abis.js'
import { type DecodedRevert, decodeRevert } from './decodeRevert.js'
import { ChainRpcError } from './errors.js'
import { abortable, type ChainCallOptions } from './rpcCall.js'

export type SimulateExecuteParameters = {
  /** The executor the quote is for (the pinned router or settlement contract). */
  executor: Address
  quote: SignedQuoteStruct
  signature: Hex
  /** The account that will send `execute`: its allowances and balances are the ones used. */
  taker: Address
  /**
   * The state to simulate against. `pending` includes transactions still in the node's pool, such
   * as approvals broadcast just before (default `latest`).
   */
  blockTag?: 'latest' | 'pending' | undefined
}

export type SimulateExecuteReturnType =
  | {
      ok: true
      /** `eth_estimateGas` of the call, before any buffer. */
      gas: bigint
    }
  | ({ ok: false } & DecodedRevert)

/**
 * Simulates `execute(quote, signature)` from the taker against the latest (or pending) block (`eth_call`, then
 * `eth_estimateGas`; nothing is sent). A revert comes back decoded by name, with its arguments:
 * the executor's own errors (`QuoteExpired`, `QuoteAlreadyUsed`, `InvalidSigner`, `InvalidAmount`,
 * `FeeExceedsAmount`) and the tokens' (`ERC20InsufficientAllowance`, `ERC20InsufficientBalance`,
 * `TokenPaused`, …). Throws {@link ChainRpcError} only when the chain cannot be asked.
 *
 * @example
 * const result = await simulateExecute(publicClient, { executor, quote: struct, signature, taker })
 * if (!result.ok) console.log(result.errorName, result.message) // 'QuoteExpired', 'reverted with QuoteExpired(0x…, 1700000000, 1700000012)'
 */
export async function simulateExecute(
  client: Client,
  parameters: SimulateExecuteParameters,
  options: ChainCallOptions = {},
): Promise<SimulateExecuteReturnType> {
  const { executor, quote, signature, taker, blockTag = 'latest' } = parameters
  const { signal } = options
  const request = {
    blockTag,
    account: taker,
    address: executor,
    abi: executeRevertsAbi,
    functionName: 'execute',
    args: [quote, signature],
  } as const
  let step = 'simulation'
  signal?.throwIfAborted()
  try {
    await abortable(simulateContract(client, request), signal)
    step = 'gas estimate'
    const gas = await abortable(estimateContractGas(client, request), signal)
    return { ok: true, gas }
  } catch (error) {
    if (signal?.aborted && error === signal.reason) throw error
    const revert = decodeRevert(error)
    if (revert) return { ok: false, ...revert }
    throw new ChainRpcError({
      chainId: client.chain?.id,
      action: `${step} of execute(quote ${quote.quoteId}) on executor ${executor} from ${taker}`,
      cause: error,
    })
  }
}
