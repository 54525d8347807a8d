import { getBlockNumber } from 'viem/actions'
import {
  type SimulateExecuteParameters,
  type SimulateExecuteReturnType,
  simulateExecute,
} from '../chain/simulateExecute.js'
import type { ChainRuntime, ChainWallet } from './types.js'

/** How often the head is read while waiting for our pending transactions to land, ms. */
const headPollMs = 100

/**
 * Simulates `execute`; when it fails for allowance while this wallet still has transactions in
 * flight (its own approvals, or another execution's that the allowance plan counted on), waits for
 * the next block and simulates again, as long as `canWait()` says the quote keeps enough validity.
 * A node's `pending` state does not always hold the pool (interval mining, a dropped approval being
 * sent again), so the allowance the plan counts on may only be visible a block later.
 *
 * @example
 * const result = await simulateAfterPending(chain, wallet, parameters, { canWait: () => validityLeft() > needed, signal })
 */
export async function simulateAfterPending(
  chain: ChainRuntime,
  wallet: Pick<ChainWallet, 'transactions'>,
  parameters: SimulateExecuteParameters,
  options: { canWait: () => boolean; signal?: AbortSignal | undefined },
): Promise<SimulateExecuteReturnType> {
  const { signal } = options
  for (;;) {
    const result = await simulateExecute(chain.publicClient, parameters, { signal })
    if (result.ok || result.errorName !== 'ERC20InsufficientAllowance') return result
    if (wallet.transactions.status().pending === 0 || !options.canWait()) return result
    const head = await getBlockNumber(chain.publicClient, { cacheTime: 0 })
    while ((await getBlockNumber(chain.publicClient, { cacheTime: 0 })) === head) {
      signal?.throwIfAborted()
      if (!options.canWait()) return result
      await new Promise((resolve) => setTimeout(resolve, headPollMs))
    }
  }
}
