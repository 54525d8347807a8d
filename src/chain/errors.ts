import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { BaseError } from 'viem'

/** Stable codes of the chain layer's errors. */
export type ChainErrorCode = 'CHAIN_RPC_FAILED' | 'CHAIN_BAD_INPUT'

/**
 * A JSON-RPC call failed: the node was unreachable, timed out, or answered with an error that is
 * not a contract revert. Nothing about the quote or transaction is known from it; the call may be
 * retried. `details` names the chain and the action. The RPC URL is deliberately left out of the
 * message (it often carries a provider key); the viem error is the `cause`.
 *
 * @example
 * try {
 *   await readAllowance(client, { token, owner, spender })
 * } catch (error) {
 *   if (error instanceof ChainRpcError) console.log(error.shortMessage)
 * }
 */
export class ChainRpcError extends StockrouteError {
  override name = 'ChainRpcError'
  constructor(parameters: { chainId: number | undefined; action: string; cause: unknown }) {
    const { chainId, action, cause } = parameters
    const reason =
      cause instanceof BaseError ? cause.shortMessage : cause instanceof Error ? cause.message : String(cause)
    const where = chainId === undefined ? 'the chain' : `chain ${chainId}`
    super({
      code: 'CHAIN_RPC_FAILED' satisfies ChainErrorCode,
      shortMessage: `${action} on ${where} failed: ${reason} Check that the chain's RPC endpoint is up and is the configured chain; the read can be retried.`,
      details: { chainId: chainId ?? null, action },
      cause,
    })
  }
}

/**
 * A chain-layer function was called with input it cannot use (a block range that runs backwards,
 * a non-positive range size, …). `details.parameter` names the field.
 *
 * @example
 * new ChainInputError('fromBlock', 10n, 'is after toBlock 5: give an ascending range')
 */
export class ChainInputError extends StockrouteError {
  override name = 'ChainInputError'
  constructor(parameter: string, value: unknown, problem: string) {
    super({
      code: 'CHAIN_BAD_INPUT' satisfies ChainErrorCode,
      shortMessage: `${parameter} ${String(value)} ${problem}`,
      details: { parameter, value: String(value) },
    })
  }
}
