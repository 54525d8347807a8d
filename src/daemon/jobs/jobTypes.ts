import type { Address, Client } from 'viem'
import type { EngineLogger } from '../../engine/index.js'

// What the daemon's cron jobs share: a pino-shaped logger and a chain to read from.

/** A structured logger (pino's shape, the engine's): a job logs nothing unless given one. */
export type JobLogger = EngineLogger

/** A configured chain and a client that reads it (viem's public client, or any client with a transport). */
export type JobChain = {
  chainId: number
  publicClient: Client
  /**
   * The wallets that trade on this chain (the engine's `chain.wallets`), whose balances together
   * are the ledger's positions. Default: the job's one `owner`.
   */
  owners?: readonly Address[] | undefined
}

/** The message of anything thrown, for a report's `why`. */
export function messageOf(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string')
    return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
