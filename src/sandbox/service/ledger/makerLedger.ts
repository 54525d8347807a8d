// PLACEHOLDER (scaffolding, to be replaced by the real ledger before commit)
import type { LocalChain } from '../../localChains.js'
import type { SandboxContext } from '../context.js'

export type MakerLedger = {
  /** Gives the ledger the context it reads issued quotes and listings from. */
  attach: (context: SandboxContext) => void
  /** Reads new settlement events of every chain up to its latest block. */
  sync: (signal?: AbortSignal) => Promise<void>
  close: () => Promise<void>
}

export function createMakerLedger(_parameters: { chains: readonly LocalChain[] }): MakerLedger {
  return { attach: () => {}, sync: async () => {}, close: async () => {} }
}
