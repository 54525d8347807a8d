import type { ExchangeCode, MarketCode } from '@stockroute/client/domain/markets.js'
import type { CatalogueStock } from '../catalogue.js'
import type { DeployedToken } from '../deploy.js'
import type { SandboxKey } from '../keys.js'
import type { LocalChain } from '../localChains.js'
import type { ApiCredential } from './auth/apiKeys.js'
import type { FaultSwitch } from './faultSwitch.js'
import type { CorporateActions } from './ledger/corporateActionTypes.js'
import type { BalancePair } from './ledger/holdings.js'
import type { LedgerOrder } from './ledger/orderTypes.js'
import type { RateLimiter } from './rateLimiter.js'
import type { TtlCache } from './ttlCache.js'

// The shapes of the sandbox service's state: the context every route and the ledger read, and what
// it holds. The context holds the maker ledger and the ledger reads the context, so both types live
// here, apart from their implementations (context.ts, ledger/makerLedger.ts): this module imports
// types only, and no module that imports it back.

/** Milliseconds since the epoch; injectable so tests can move time (JWT expiry, caches). */
export type SandboxClock = { now: () => number }

/** A token listed on one chain, with the catalogue data the API shows for it. */
export type Listing = DeployedToken & { chainId: number; isActive: boolean }

/** Market quote record, in the reference's field names; decimals as strings. */
export type MarketQuoteRecord = {
  symbol: string
  /** `normal` (the only value the reference shows); another only when forced by the TEST-ONLY fault switch. */
  status: string
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

/**
 * Orders, fills, positions and corporate actions, derived from what happened on the chains: every
 * `QuoteExecuted` event of a chain's executors (settlement and platform router) is one filled order
 * of its taker, with one fill. Nothing is canned; a restarted service re-reads the same history and
 * gives the same ids.
 */
export type MakerLedger = {
  /** Gives the ledger the context it reads issued quotes and listings from. */
  attach: (context: SandboxContext) => void
  /**
   * Reads new settlement events of every chain up to its latest block. Concurrent calls share the
   * work: while a sync runs, callers wait for the next one, which starts after it and therefore
   * sees every block mined before the call.
   */
  sync: (signal?: AbortSignal) => Promise<void>
  close: () => Promise<void>
  /** Orders of the given chains (every chain when omitted), in execution order per chain. */
  orders: (chainIds?: readonly number[]) => LedgerOrder[]
  /** The maker's orders on every chain, in execution order per chain. */
  ordersOf: (maker: string) => LedgerOrder[]
  /** The last block the ledger has read on the chain (the head balances are read at). */
  syncedBlock: (chainId: number) => bigint | undefined
  /** Token balances at the chain's synced block, in the order asked. */
  balances: (chainId: number, pairs: readonly BalancePair[]) => Promise<bigint[]>
  /** Average buy price of the maker's holding of a token (asset base units per share), 0 if none. */
  averageBuyPrice: (maker: string, chainId: number, token: string) => bigint
  corporateActions: CorporateActions
}
