import { abortable } from '@stockroute/client/domain/abortable.js'
import type { Client } from 'viem'
import { ChainRpcError } from './errors.js'

/** Options every network call of the chain layer takes. */
export type ChainCallOptions = {
  /**
   * Stops waiting for the call. viem's actions do not take a signal, so an aborted call's request
   * may still complete at the node; for the reads and simulations here that is harmless.
   */
  signal?: AbortSignal | undefined
}

/**
 * Runs one RPC-backed step: honours `signal` (rejects with its reason) and wraps any failure in
 * {@link ChainRpcError}. Callers that expect reverts catch and decode them inside `run` first.
 */
export async function rpcCall<T>(
  client: Pick<Client, 'chain'>,
  action: string,
  run: () => Promise<T>,
  options: ChainCallOptions = {},
): Promise<T> {
  const { signal } = options
  signal?.throwIfAborted()
  try {
    return await abortable(run(), signal)
  } catch (error) {
    if (signal?.aborted && error === signal.reason) throw error
    throw new ChainRpcError({ chainId: client.chain?.id, action, cause: error })
  }
}

export { abortable } from '@stockroute/client/domain/abortable.js'
