import type { ServiceClient } from '@stockroute/client/api/serviceClient.js'
import type { Sandbox } from '@stockroute/sandbox/startSandbox.js'
import type { Address } from 'viem'
import type { DaemonCluster } from '../../cluster/joinCluster.js'
import type { DaemonConfig, StockrouteConfig } from '../../config/config.js'
import type { ConfiguredWallets } from '../../config/wallets.js'
import type { Engine } from '../../engine/index.js'
import type { Ledger } from '../../store/openLedger.js'
import type { AnyStrategy, ListingView } from '../../strategy/index.js'
import type { ActivityPrinter } from '../activity.js'
import type { DaemonStatus } from '../healthRoutes.js'
import type { RefreshTokenListReport } from '../jobs/index.js'
import type { createDaemonLogger } from '../logger.js'
import type { createEquityMarker } from '../markEquity.js'
import type { MarketDataCache } from '../marketData.js'
import type { DaemonMetrics } from '../metrics.js'
import type { Notifier } from '../notifications/index.js'
import type { DaemonApi } from '../startDaemonApi.js'
import type { StrategyControl } from '../strategyControl.js'
import type { TickReport } from '../strategyRunner.js'

/** How a run ended. */
export type DaemonReport = {
  reason: string
  durationMs: number
  /** Executions that ended during the run, by state. */
  executions: Record<'confirmed' | 'failed' | 'expired' | 'rejected', number>
  /**
   * Executions left unfinished at stop: on a real deployment, submitted ones wait for the next
   * start's recovery; on an embedded sandbox, whose chains end with the run, they stay as they are.
   */
  unfinished: number
  /** True when the run traded on an embedded sandbox (its chains and ledger end with the run). */
  embedded: boolean
  /** True when a storage fault (disk full, I/O error) stopped the run. */
  storageFault: boolean
}

/** What the components make, each in its start, for the ones started after it. */
export type DaemonParts = {
  /** The configuration it trades with (an embedded run's, with the sandbox's service and chains). */
  config: StockrouteConfig
  /** Only on an embedded configuration. */
  sandbox: Sandbox | undefined
  logs: ReturnType<typeof createDaemonLogger>
  strategies: AnyStrategy[]
  wallets: ConfiguredWallets
  /** The main wallet: the service's maker. */
  owner: Address
  ledgerPath: string
  /** Only in cluster mode: its membership, leases and the key's shared budget. */
  cluster: DaemonCluster | undefined
  ledger: Ledger
  service: ServiceClient
  metrics: DaemonMetrics
  marketData: MarketDataCache
  engine: Engine
  /** Closes the engine once, whoever asks first (a drain at stop, or the undoing of a failed start). */
  closeEngine: () => Promise<void>
  /** Only when the configuration names notification sinks. */
  notifier: Notifier | undefined
  printer: ActivityPrinter
  /** The background recovery, its outcome reported. */
  recovery: Promise<void>
  refreshTokens: () => Promise<RefreshTokenListReport>
  /** Lot size of a token, `chainId:address` → whole shares, from the latest token lists. */
  lotSizes: () => ReadonlyMap<string, bigint>
  /** The tokens of the latest token lists as strategies see them; undefined before any list was read. */
  listings: () => readonly ListingView[] | undefined
  strategyControl: StrategyControl
  /** One market-data tick of the strategies. */
  tick: () => Promise<TickReport>
  /** The open positions at the market, at most once a minute. */
  markEquity: ReturnType<typeof createEquityMarker>
  /** Only when the configuration enables it. */
  api: DaemonApi | undefined
  /** Set by the stop of the activity component: how the run ended. */
  report: DaemonReport
}

/** One run of the daemon as its components share it. */
export type DaemonRun = {
  /** The configuration as given (an embedded one becomes `parts.config` once its sandbox runs). */
  given: DaemonConfig
  startedAt: number
  /** The operator's lines. */
  write: (line: string) => void
  /** Progress while starting. */
  progress: (line: string) => void
  /** What /health reports; `state` turns to 'stopping' when a stop begins. */
  status: DaemonStatus
  /** Aborted when the drain's grace is over: cancels what the engine has not broadcast, and the recovery. */
  shutdown: AbortController
  /**
   * Cluster mode: a wallet lease was lost to another daemon. Stops the daemon once it runs; a loss
   * while it starts is kept in `leaseLost` and stops it as soon as it has started.
   */
  onLeaseLost: (why: string) => void
  leaseLost: string | undefined
  parts: Partial<DaemonParts>
}

/**
 * A new run, before any component started.
 *
 * @example
 * const run = createDaemonRun({ config, write: console.log, progress: console.error })
 */
export function createDaemonRun(parameters: {
  config: DaemonConfig
  write: (line: string) => void
  progress: (line: string) => void
}): DaemonRun {
  const startedAt = Date.now()
  return {
    given: parameters.config,
    startedAt,
    write: parameters.write,
    progress: parameters.progress,
    status: { state: 'running', startedAt, lastTick: undefined, lastReconciliation: undefined },
    shutdown: new AbortController(),
    onLeaseLost(why) {
      this.leaseLost ??= why
    },
    leaseLost: undefined,
    parts: {},
  }
}

/**
 * A part the components started before have made; throws when none has (a component listed before
 * the one that makes what it needs).
 *
 * @example
 * const ledger = need(run, 'ledger')
 */
export function need<Name extends keyof DaemonParts>(
  run: DaemonRun,
  name: Name,
): NonNullable<DaemonParts[Name]> {
  const part = run.parts[name]
  if (part === undefined || part === null)
    throw new Error(`the daemon's ${name} is not made yet: its component starts after the one that needs it`)
  return part as NonNullable<DaemonParts[Name]>
}
