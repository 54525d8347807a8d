import { randomBytes } from 'node:crypto'
import type { LocalChain } from '../localChains.js'
import type { Listing, SandboxClock, SandboxContext } from './contextTypes.js'

// The sandbox context's helpers: the system clock, a JWT secret, lookups of chains and listings.
// The shapes themselves are in contextTypes.ts.

/** The real clock (tests inject one of their own to move time). */
export const systemClock: SandboxClock = { now: () => Date.now() }

export function createJwtSecret(): Uint8Array {
  return new Uint8Array(randomBytes(32))
}

export function findChain(context: SandboxContext, chainId: number): LocalChain | undefined {
  return context.chains.find((chain) => chain.chainId === chainId)
}

/** The listing of `ticker` on `exchange` and chain, active or not. */
export function findListing(
  context: SandboxContext,
  chainId: number,
  ticker: string,
  exchange: number,
): Listing | undefined {
  return context.listings
    .get(chainId)
    ?.find((listing) => listing.ticker === ticker && listing.exchange === exchange)
}
