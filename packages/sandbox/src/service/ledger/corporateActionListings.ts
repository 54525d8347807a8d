import type { Address } from 'viem'
import type { Listing, SandboxContext } from '../contextTypes.js'

// The listings a corporate action touches: its token, the token's ShareTokens, the underlying stock.

export function listingAt(context: SandboxContext, chainId: number, address: Address): Listing | undefined {
  return context.listings
    .get(chainId)
    ?.find((listing) => listing.address.toLowerCase() === address.toLowerCase())
}

export function shareListingsOf(context: SandboxContext, chainId: number, stockToken: Address): Listing[] {
  return (context.listings.get(chainId) ?? []).filter(
    (listing) => listing.kind === 'share' && listing.underlying?.toLowerCase() === stockToken.toLowerCase(),
  )
}

/** The reference's `ticker` of a record is the underlying stock's ticker, also for a ShareToken. */
export function underlyingTicker(context: SandboxContext, listing: Listing): string {
  if (listing.kind !== 'share' || !listing.underlying) return listing.ticker
  return listingAt(context, listing.chainId, listing.underlying)?.ticker ?? listing.stock.ticker
}
