import { defaultFxRates, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import type { Address } from 'viem'
import type { Notional } from '../store/risk.js'

/**
 * How much the taker lets the executor spend when an approval is needed:
 * - `exact`: what the quote needs, nothing more (the default: a compromised executor can take
 *   nothing beyond the trade in hand);
 * - `buffered`: the quote's need plus `bufferBps` basis points, so small re-quotes reuse it;
 * - `unlimited`: 2^256 - 1, one approval for ever (logged as a warning at every use).
 */
export type ApprovalPolicy =
  | { kind: 'exact' }
  | { kind: 'buffered'; bufferBps: number }
  | { kind: 'unlimited' }

/** Limits on the asset side of trades, in {@link Notional} (asset at par, 18 decimals). Absent: no limit. */
export type RiskLimits = {
  /** One trade. */
  maxTradeNotional?: Notional | undefined
  /** All chains together, per UTC day (fills since midnight plus what is in flight). */
  maxDailyNotional?: Notional | undefined
  /** One chain, per UTC day. */
  maxChainDailyNotional?: Notional | undefined
} & EntryHaltLimits & {
    /** The entry-halt limits of single chains (by chain id, in the chain's asset at par). */
    perChain?: Readonly<Record<number, EntryHaltLimits>> | undefined
  }

/**
 * Limits that halt new entries (buys) once reached, by themselves, until an operator resumes; sells
 * (exits) still run. Evaluated after each fill and each equity mark (entryHalts.ts, docs/configuration.md).
 * At the top of {@link RiskLimits}: all chains together (in USD, each chain's asset at par); under
 * `perChain`: one chain.
 */
export type EntryHaltLimits = {
  /**
   * The equity the drawdown is measured against: equity = capital + the positions' realized PnL +
   * their unrealized PnL at the latest equity mark. Required with `maxDrawdownPct`.
   */
  capital?: Notional | undefined
  /** The largest drawdown of equity from its peak, percent (10 is 10%). */
  maxDrawdownPct?: number | undefined
  /** The largest loss realized per UTC day (since the last resume when later), asset units at par. */
  maxDailyRealizedLoss?: Notional | undefined
}

/** Everything the engine decides by configuration rather than by code. */
export type EngineSettings = {
  approvalPolicy: ApprovalPolicy
  /** Simulate `execute` (eth_simulateV1, or eth_estimateGas where the node lacks it) before signing it. */
  simulate: boolean
  /** Validity a quote must keep beyond the chain's measured inclusion time, ms. */
  validityMarginMs: number
  /** Router quotes requested per execution at most (the first and the re-quotes after a drop). */
  maxQuoteAttempts: number
  /** Largest accepted distance of a quote's effective price from the market price, basis points. */
  maxPriceDeviationBps: number
  /** Asset units per unit of each market's currency, to compare quotes with market prices and limits. */
  fxRates: FxRates
  /** Spenders an approval may name besides the chain's pinned executor. */
  extraSpenders: readonly Address[]
  risk: RiskLimits
  /**
   * Executions per chain in their quote-to-signature stages at once. More keeps the wallet busier;
   * too many lets quotes age while they wait for the wallet's critical section.
   */
  pipelineDepth: number
  /**
   * The most executions of the whole engine (every chain and wallet: they share one JS thread)
   * between asking for their quote and handing their execute to the node, at once. The engine
   * lets in 4 while the JS thread is busy (a burst: quotes are acted on soon after they arrive
   * instead of waiting behind each other) and more, up to this, while it is idle with executions
   * waiting (a slow service or RPC: quotes spend their time in the air; quoteAdmission.ts).
   * Default 16; undefined: no bound but `pipelineDepth` per wallet.
   */
  maxQuotesInFlight: number | undefined
  /**
   * The longest the inclusions of transactions already sent (their fills, positions and execution
   * ends) wait while other executions hold a router quote, ms: those are written on the same JS
   * thread, on the held quotes' time (quoteWindows.ts). 0: they never wait. Default 150.
   */
  maxInclusionDelayMs: number
  /** A market price older than this is fetched again for the deviation guard, ms (the daemon's cache, else the engine's). */
  marketPriceMaxAgeMs: number
  /**
   * Simulate the execute with the allowance its approval will set, as a state override of the
   * token's allowance slot, so approval and execute are signed together and sent back to back.
   * Off (for an RPC that refuses state overrides), or for a token whose slot is not found: the
   * approval is sent first and the execute simulated once it is pending.
   */
  allowanceOverride: boolean
  /** Sign and simulate but never broadcast (use a ledger file of its own). */
  dryRun: boolean
  /** Receipt polling interval, ms. */
  receiptPollMs: number
  /** Gas limit of an approve transaction (not estimated: the approve may follow a zero reset still pending). */
  approveGasLimit: bigint
  /** Gas limit of `execute` when it is not simulated; a simulation's estimate otherwise. */
  executeGasLimit: bigint
  /** Added to the simulated gas estimate, basis points. */
  gasBufferBps: number
  /** Extra time after a quote's expiry before its still-pending execute is cancelled, ms. */
  cancelGraceMs: number
  /**
   * An approval mined for an execution that ended with no execute spending it leaves an allowance
   * open (recorded in the ledger either way): `reuse` leaves it for the next execution of the same
   * token and spender; `revoke` sends an approval to zero at once.
   */
  openAllowances: 'reuse' | 'revoke'
}

/** The settings used where a caller gives none. */
export const defaultEngineSettings: EngineSettings = {
  approvalPolicy: { kind: 'exact' },
  simulate: true,
  validityMarginMs: 1_500,
  maxQuoteAttempts: 3,
  maxPriceDeviationBps: 300,
  fxRates: defaultFxRates,
  extraSpenders: [],
  risk: {},
  pipelineDepth: 2,
  maxQuotesInFlight: 16,
  maxInclusionDelayMs: 150,
  allowanceOverride: true,
  marketPriceMaxAgeMs: 5_000,
  dryRun: false,
  receiptPollMs: 250,
  approveGasLimit: 100_000n,
  executeGasLimit: 400_000n,
  gasBufferBps: 2_000,
  cancelGraceMs: 1_000,
  openAllowances: 'reuse',
}
