import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import {
  type Address,
  BaseError,
  type Client,
  type Hex,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  toHex,
} from 'viem'
import { estimateContractGas, simulateBlocks } from 'viem/actions'
import { type DecodedRevert, decodeRevert } from './decodeRevert.js'
import { ChainInputError, ChainRpcError } from './errors.js'
import { executeRevertsAbi } from './executeRevertsAbi.js'
import { abortable, type ChainCallOptions } from './rpcCall.js'

/**
 * The allowance the taker will have once its approval (not yet sent) is mined, given to the
 * simulation by a state override of the token's allowance slot (see `allowanceSlotOf`).
 */
export type SimulatedAllowance = {
  /** The token the executor pulls from the taker: the asset for a buy, the stock token for a sell. */
  token: Address
  /** The storage slot of the taker's allowance to the executor in `token`. */
  slot: Hex
  /** The allowance to simulate with, in `token`'s base units (uint256). */
  amount: bigint
}

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
  /**
   * Simulate as if the taker's allowance to the executor in `token` were `amount` (a state override
   * of `slot`), so that `execute` can be simulated before the approval it needs is sent.
   */
  allowance?: SimulatedAllowance | undefined
}

export type SimulateExecuteReturnType =
  | {
      ok: true
      /**
       * The gas limit the call needs, before any buffer: from eth_simulateV1 (one execution of the
       * call) where the node has it, else eth_estimateGas (a search over many executions).
       */
      gas: bigint
    }
  | ({ ok: false } & DecodedRevert)

/**
 * Simulates `execute(quote, signature)` from the taker against the latest (or pending) block with
 * one request (nothing is sent): `eth_simulateV1`, or `eth_estimateGas` where the node lacks it, optionally with the allowance an approval not yet sent
 * will give. A revert comes back decoded by name, with its arguments: the executor's own errors
 * (`QuoteExpired`, `QuoteAlreadyUsed`, `InvalidSigner`, `InvalidAmount`, `FeeExceedsAmount`) and the
 * tokens' (`ERC20InsufficientAllowance`, `ERC20InsufficientBalance`, `TokenPaused`, …). Throws
 * {@link ChainRpcError} only when the chain cannot be asked, {@link ChainInputError} for an
 * allowance amount outside uint256.
 *
 * @example
 * const slot = allowanceSlotOf(layout, taker, executor)
 * const result = await simulateExecute(publicClient, {
 *   executor, quote: struct, signature, taker,
 *   allowance: { token: struct.assetToken, slot, amount: struct.amountIn },
 * })
 * if (!result.ok) console.log(result.errorName, result.message) // 'QuoteExpired', 'reverted with QuoteExpired(0x…, 1700000000, 1700000012)'
 */
export async function simulateExecute(
  client: Client,
  parameters: SimulateExecuteParameters,
  options: ChainCallOptions = {},
): Promise<SimulateExecuteReturnType> {
  const { executor, quote, signature, taker, blockTag = 'latest', allowance } = parameters
  const { signal } = options
  if (allowance && (allowance.amount < 0n || allowance.amount >= 2n ** 256n))
    throw new ChainInputError(
      'allowance.amount',
      allowance.amount,
      'is outside uint256: give base units from 0 to 2^256 - 1',
    )
  const stateOverride = allowance
    ? [
        {
          address: allowance.token,
          stateDiff: [{ slot: allowance.slot, value: toHex(allowance.amount, { size: 32 }) }],
        },
      ]
    : undefined
  signal?.throwIfAborted()
  if (!simulateV1Refused.has(client)) {
    try {
      const [block] = await abortable(
        simulateBlocks(client, {
          blockTag,
          blocks: [
            {
              calls: [
                {
                  from: taker,
                  to: executor,
                  abi: executeRevertsAbi,
                  functionName: 'execute',
                  args: [quote, signature],
                },
              ],
              ...(stateOverride ? { stateOverrides: stateOverride } : {}),
            },
          ],
        }),
        signal,
      )
      const call = block?.calls[0]
      if (call?.status === 'success') return { ok: true, gas: neededGasOf(call) }
      const revert = call ? decodeRevert(call.error) : undefined
      if (revert) return { ok: false, ...revert }
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error
      // A node without eth_simulateV1 gets eth_estimateGas, now and from then on.
      if (!isUnsupportedMethod(error)) throw simulationError(client, parameters, error)
      simulateV1Refused.add(client)
    }
  }
  try {
    const gas = await abortable(
      estimateContractGas(client, {
        blockTag,
        account: taker,
        address: executor,
        abi: executeRevertsAbi,
        functionName: 'execute',
        args: [quote, signature],
        // Nothing to fill in (no nonce, no fees): the estimate is the one request.
        prepare: false,
        ...(stateOverride ? { stateOverride } : {}),
      }),
      signal,
    )
    return { ok: true, gas }
  } catch (error) {
    if (signal?.aborted && error === signal.reason) throw error
    const revert = decodeRevert(error)
    if (revert) return { ok: false, ...revert }
    throw simulationError(client, parameters, error)
  }
}

/** Clients whose node answered eth_simulateV1 with "no such method". */
const simulateV1Refused = new WeakSet<Client>()

/**
 * The gas limit the call needs, before any buffer, from eth_simulateV1's answer: its peak use when
 * the node reports it (`maxUsedGas`), else its gas used plus the refund it may have had, at most a
 * fifth of the gas spent before refunds (EIP-3529): a transaction must be given the gas it spends
 * before its refund.
 */
function neededGasOf(call: { gasUsed: bigint; maxUsedGas?: bigint | undefined }): bigint {
  return call.maxUsedGas ?? (call.gasUsed * 5n + 3n) / 4n
}

function isUnsupportedMethod(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  const unsupported = error.walk(
    (cause) =>
      cause instanceof MethodNotFoundRpcError ||
      cause instanceof MethodNotSupportedRpcError ||
      (cause instanceof BaseError &&
        /method .*(not (found|supported|available)|does not exist)/i.test(cause.message)),
  )
  return unsupported !== null
}

function simulationError(client: Client, parameters: SimulateExecuteParameters, error: unknown) {
  const { executor, quote, taker, allowance } = parameters
  const overridden = allowance ? ` with allowance ${allowance.amount} of token ${allowance.token}` : ''
  return new ChainRpcError({
    chainId: client.chain?.id,
    action: `simulation of execute(quote ${quote.quoteId}) on executor ${executor} from ${taker}${overridden}`,
    cause: error,
  })
}
