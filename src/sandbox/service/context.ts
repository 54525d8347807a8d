import { randomBytes } from 'node:crypto'
import type { ExchangeCode, MarketCode } from '../../domain/markets.js'
import type { CatalogueStock } from '../catalogue.js'
import type { DeployedToken } from '../deploy.js'
import type { SandboxKey } from '../keys.js'
import type { LocalChain } from '../localChains.js'
import type { ApiCredential } from './auth/apiKeys.js'
import type { FaultSwitch } from './faultSwitch.js'
import type { MakerLedger } from './ledger/makerLedger.js'
import type { RateLimiter } from './rateLimiter.js'
import type { TtlCache } from './ttlCache.js'

/** Milliseconds since the epoch; injectable so tests can move time (JWT expiry, caches). */
export type SandboxClock = { now: () => number }
export const systemClock: SandboxClock = { now: () => Date.now() }

/** A token listed on one chain, with the catalogue data the API shows for it. */
export type Listing = DeployedToken & { chainId: number; isActive: boolean }

/** Market quote record, in the reference's field names; decimals as strings. */
export type MarketQuoteRecord = {
  symbol: string
  status: 'normal'
  close: string
  prev_close: string
  name: string
  market: MarketCode
  open: string
  high: string
  low: string
  volume: string
  turnover: string
}

/** Deterministic market prices for the catalogue (see market/priceSimulator.ts). */
export type PriceSimulator = {
  /** Undefined when the symbol is not listed on that market. */
  marketQuote: (symbol: string, market: MarketCode, nowMs: number) => MarketQuoteRecord | undefined
  /** Last price of a listed stock in its market currency (decimal string on its tick grid). */
  lastPrice: (ticker: string, exchange: ExchangeCode, nowMs: number) => string
}

/** A router quote the sandbox signed, kept so executions can be traced back to their request. */
export type IssuedQuote = {
  quoteId: `0x${string}`
  chainId: number
  ticker: string
  exchange: ExchangeCode
  isBuy: boolean
  amountType: 'stablecoin_in' | 'stocktoken_in'
  stockToken: `0x${string}`
  assetToken: `0x${string}`
  /** Base units, as signed. */
  amountIn: bigint
  amountInUsed: bigint
  amountOut: bigint
  feeAmount: bigint
  /** Asset base units per whole share. */
  price: bigint
  expiresAt: number
  signature: `0x${string}`
  issuedAtMs: number
}

/** Sandbox-wide mutable state, created once per running service. */
export type SandboxContext = {
  chains: readonly LocalChain[]
  wallets: readonly SandboxKey[]
  defaultChainId: number
  catalogue: readonly CatalogueStock[]
  clock: SandboxClock
  credentials: Map<string, ApiCredential>
  jwt: { secret: Uint8Array; lifetimeSeconds: number }
  /** Login nonces already used (single use). */
  usedLoginNonces: Set<string>
  /** Login message timestamps must be within this distance of the server clock. */
  loginWindowMs: number
  rateLimiter: RateLimiter
  /** Token-address lookups, 4 hours, key `token_addr:{ticker}:{exchange_id}:{chain_id}`. */
  tokenAddressCache: TtlCache<unknown>
  /** chainId → tokens listed there (active or not). */
  listings: Map<number, Listing[]>
  quotes: Map<string, IssuedQuote>
  prices: PriceSimulator
  /** Orders, fills, positions and corporate actions, derived from what happened on the chains. */
  ledger: MakerLedger
  /** TEST-ONLY router-quote faults (POST /sandbox/v1/faults); null unless started with `faults: true`. */
  faults: FaultSwitch | null
}

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
