import { createPublicClient, http, type PublicClient } from 'viem'
import { sandboxChain } from './deploy.js'
import type { LocalChain } from './localChains.js'

const clients = new WeakMap<LocalChain, PublicClient>()

/** One viem public client per local chain, kept for the chain's lifetime (keep-alive HTTP). */
export function publicClientFor(chain: LocalChain): PublicClient {
  let client = clients.get(chain)
  if (!client) {
    client = createPublicClient({
      chain: sandboxChain(chain.chainId, chain.name, chain.rpcUrl),
      transport: http(chain.rpcUrl),
    })
    clients.set(chain, client)
  }
  return client
}
