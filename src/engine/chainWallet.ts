import type PQueue from 'p-queue'
import { type Chain, type HttpTransport, isAddressEqual, type LocalAccount, type WalletClient } from 'viem'
import type { TransactionManager } from '../transactions/types.js'
import type { ChainRuntime } from './chainRuntime.js'
import { EngineError } from './errors.js'

/** One wallet trading on one chain: its signer, its transaction manager and its pipeline. */
export type ChainWallet = {
  account: LocalAccount
  /** Never retries: a failed send surfaces at once with the signed transaction still in hand. */
  walletClient: WalletClient<HttpTransport, Chain, LocalAccount>
  /** The only signer of this wallet on this chain. */
  transactions: TransactionManager
  /**
   * Executions in stage one or two at once (quote, guard, simulation, then the wallet's critical
   * section): `pipelineDepth` of them; the wait for a receipt is outside.
   */
  pipeline: PQueue
}

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
