import type { CancelOutcome } from '../../engine/index.js'
import type { Ledger } from '../../store/openLedger.js'
import type { ProtectiveExitStatus } from '../protectiveStatus.js'
import type { TwapStatus } from '../twapStatus.js'

// What the control API steers beyond the swap routes: the daemon builds one ControlPlane
// (src/daemon/createControlPlane.ts) over its engine, ledger and strategy runner; the routes read
// and change the daemon only through it, so every route is testable over a real daemon.

export type { CancelOutcome } from '../../engine/index.js'

/** One configured strategy, as the operator sees it. */
export type StrategyStatus = {
  id: string
  kind: string
  /** Whether it runs now: the config's choice, unless an operator switched it. */
  enabled: boolean
  /** The last switch through the API (kept across restarts), or null when the config decides. */
  switched: { enabled: boolean; reason: string; atMs: number } | null
  /** Its last evaluation in this daemon's life, or null before the first. */
  lastRun: {
    atMs: number
    /** Intents it returned that were new and submitted. */
    submitted: number
    /** Intents refused before execution. */
    refused: number
    /** Set when it threw. */
    error: string | null
    /** Set when it was not evaluated: why (marketHours "open-only" while its market is closed). */
    skipped?: string | undefined
  } | null
  /**
   * What it traded, from the ledger's executions (every run, kept across restarts): executions its
   * intents created, those confirmed, and when the last was confirmed (epoch ms; null: never).
   */
  trades: { submitted: number; confirmed: number; lastAtMs: number | null }
  /**
   * When it runs next: a schedule's next cron fire (epoch ms); null for the other kinds, which are
   * evaluated at every market-data tick, and for a strategy switched off.
   */
  nextRunAtMs: number | null
  /** A twap strategy's progress (src/daemon/twapStatus.ts); absent for the other kinds. */
  progress?: TwapStatus | undefined
  /** A protect strategy's tripped exits and their sales (src/daemon/protectiveStatus.ts); absent for the other kinds. */
  exits?: ProtectiveExitStatus[] | undefined
}

/** One wallet's balances on a chain, in base units as decimal strings. */
export type WalletBalances = {
  address: string
  /** The chain's native coin, wei. */
  native: string
  asset: { address: string; symbol: string; decimals: number; balance: string }
}

/** The daemon as the control API steers it. */
export type ControlPlane = {
  /** Read-only use by routes: executions, transactions, fills, positions, kill switch, events. */
  ledger: Pick<Ledger, 'executions' | 'transactions' | 'fills' | 'positions' | 'risk' | 'events'>
  /**
   * Cancels an execution that has not been signed yet: it ends `rejected` with `reason`, and is
   * never signed. Throws the engine's `EXECUTION_NOT_FOUND` EngineError for an unknown id.
   */
  cancelExecution(executionId: number, reason: string): Promise<CancelOutcome>
  /** Latches the kill switch: the next signature is refused. */
  halt(reason: string): ReturnType<Ledger['risk']['killSwitch']>
  resume(reason: string): ReturnType<Ledger['risk']['killSwitch']>
  strategies: {
    list(): StrategyStatus[]
    /** Switches a strategy on or off (kept across restarts); undefined for an unknown id. */
    setEnabled(id: string, enabled: boolean, reason: string): StrategyStatus | undefined
  }
  /** Every chain's wallets: native and default-asset balances read from the chain now. */
  balances(signal?: AbortSignal): Promise<{ chainId: number; wallets: WalletBalances[] }[]>
}
