import type { SandboxKey } from '@stockroute/sandbox/keys.js'
import { type LocalChain, startLocalChains } from '@stockroute/sandbox/localChains.js'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    localChains: { chains: LocalChain[]; wallets: SandboxKey[] }
  }
}

/** Starts the two default sandbox chains once for the whole run; tests read them with inject(). */
export default async function setup(project: TestProject) {
  const local = await startLocalChains()
  project.provide('localChains', { chains: local.chains, wallets: local.wallets })
  return async () => {
    await local.stop()
  }
}
