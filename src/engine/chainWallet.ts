import { isAddressEqual } from 'viem'
import { EngineError } from './errors.js'
import type { ChainRuntime, ChainWallet } from './types.js'

/**
 * The wallet a new execution of `chain` goes to: the one with the fewest executions in its
 * pipeline (the first on a tie), so that several wallets share a burst.
 *
 * @example
 * const wallet = pickWallet(chain)
 */
export function pickWallet(chain: Pick<ChainRuntime, 'wallets'>): ChainWallet {
  let best: ChainWallet | undefined
  for (const wallet of chain.wallets) if (!best || load(wallet) < load(best)) best = wallet
  if (!best) throw new Error('a chain runtime without a wallet')
  return best
}

function load(wallet: ChainWallet): number {
  return wallet.pipeline.size + wallet.pipeline.pending
}

/**
 * The chain's wallet at `address`. Throws {@link EngineError} `UNKNOWN_WALLET` when the
 * configuration no longer lists it (an execution or allowance of a wallet since removed).
 *
 * @example
 * const wallet = walletOf(chain, tx.from)
 */
export function walletOf(chain: Pick<ChainRuntime, 'chainId' | 'wallets'>, address: string): ChainWallet {
  const wallet = findWallet(chain, address)
  if (!wallet)
    throw new EngineError({
      code: 'UNKNOWN_WALLET',
      shortMessage: `Chain ${chain.chainId}: wallet ${address} is not configured (configured: ${chain.wallets.map((w) => w.account.address).join(', ')}); add it back to follow what it left.`,
      details: { chainId: chain.chainId, address },
    })
  return wallet
}

/** The chain's wallet at `address`, if configured. */
export function findWallet(chain: Pick<ChainRuntime, 'wallets'>, address: string): ChainWallet | undefined {
  return chain.wallets.find((wallet) => isAddressEqual(wallet.account.address, address as `0x${string}`))
}
