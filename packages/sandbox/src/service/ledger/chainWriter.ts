import {
  type Address,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { sandboxChain } from '../../deploy.js'
import type { LocalChain } from '../../localChains.js'

/** Sends the service's own transactions on one chain, signed by the chain's deployer key. */
export type ChainWriter = {
  /** Sends `data` to `to`, waits for the receipt and throws if it reverted. */
  send: (to: Address, data: Hex) => Promise<TransactionReceipt>
}

/** Errors that mean another sender took the nonce first (parallel users of the deployer key). */
const nonceRace =
  /nonce too low|nonce has already been used|replacement transaction underpriced|already known/i
const maxAttempts = 8

/**
 * The deployer holds the StockTokenManager's roles and owns the asset tokens, so corporate actions
 * are applied with its key, the way the service's back office would. Transactions of one chain are
 * sent one at a time (no nonce race inside the service); a race with another process using the same
 * key (tests do) is retried with a fresh nonce.
 */
export function createChainWriter(parameters: {
  chain: LocalChain
  client: PublicClient
  signal: AbortSignal
}): ChainWriter {
  const { chain, client, signal } = parameters
  const wallet = createWalletClient({
    account: privateKeyToAccount(chain.roles.deployer.privateKey),
    chain: sandboxChain(chain.chainId, chain.name, chain.rpcUrl),
    transport: http(chain.rpcUrl, { fetchOptions: { signal } }),
  })
  let queue: Promise<unknown> = Promise.resolve()

  async function sendOnce(to: Address, data: Hex): Promise<TransactionReceipt> {
    for (let attempt = 1; ; attempt++) {
      try {
        const hash = await wallet.sendTransaction({ to, data })
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.status !== 'success') {
          throw new Error(`transaction ${hash} on chain ${chain.chainId} reverted`)
        }
        return receipt
      } catch (error) {
        if (attempt >= maxAttempts || !nonceRace.test(String(error))) throw error
        await new Promise((resolve) => setTimeout(resolve, 10 * attempt))
      }
    }
  }

  return {
    send(to, data) {
      const result = queue.then(() => sendOnce(to, data))
      queue = result.catch(() => undefined)
      return result
    },
  }
}
