import type { StockrouteConfig } from '../config/config.js'
import { engineSettingsOf } from '../config/engineConfig.js'
import type { Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import { type ControlServerLogger, startControlServer } from './controlApi/index.js'
import type { SwapRouting } from './controlApi/types.js'
import { createControlPlane } from './createControlPlane.js'
import { controlRoutes, type DaemonStatus } from './healthRoutes.js'
import type { MarketDataCache } from './marketData.js'
import type { DaemonMetrics } from './metrics.js'
import type { Notifier } from './notifications/index.js'
import { priceBookOf } from './priceBook.js'
import { prepareControlToken, removeRuntimeFile, writeRuntimeFile } from './runtimeFile.js'
import type { StrategyControl } from './strategyControl.js'

/** The daemon's control API, up: its URL and token, and how to close it. */
export type DaemonApi = {
  url: string
  /** The bearer token every /v1 request needs (the config's `api.tokenEnv`, else generated for this run). */
  token: string
  /** The browser dashboard (docs/dashboard.md): log in with {@link token}. */
  dashboardUrl: string
  /** Closes the server (open event streams end) and removes the runtime file. */
  close(): Promise<void>
}

/**
 * Starts the control API over the daemon (swaps, executions, kill switch, strategies, positions,
 * balances, events, OpenAPI, /health, /metrics, the browser dashboard and its report routes), always behind a bearer token: the operator's
 * (`api.tokenEnv`) or one generated into a 0600 file beside the ledger. Then writes the runtime file
 * beside the ledger (URL, pid, where the token is), by which the CLI finds the daemon.
 *
 * @example
 * const api = await startDaemonApi({ config, ledger, engine, strategies, status, metrics, logger, startedAt })
 * await api.close()
 */
export async function startDaemonApi(parameters: {
  config: StockrouteConfig
  ledger: Ledger
  engine: Engine
  strategies: StrategyControl
  status: DaemonStatus
  metrics: DaemonMetrics
  notifier: Pick<Notifier, 'status'> | undefined
  logger: ControlServerLogger
  startedAt: number
  /** The daemon's price cache: reports served to the dashboard value positions at its fresh prices. */
  marketData?: Pick<MarketDataCache, 'snapshot'> | undefined
  /** Cluster mode: where a posted swap runs (docs/scale-out.md). */
  swapRouting?: SwapRouting | undefined
}): Promise<DaemonApi> {
  const { config, ledger, engine, status, metrics } = parameters
  const settings = config.daemon.api
  const ledgerPath = config.ledgerPath
  // Read with the other secrets (environment, then the .env beside the config); embedded runs have none.
  const fromEnv = config.secrets.apiToken ?? (settings.tokenEnv ? process.env[settings.tokenEnv] : undefined)
  // Called once this process owns the ledger: a refused second daemon never replaces the token.
  const control = prepareControlToken({
    ledgerPath,
    tokenEnv: settings.tokenEnv,
    env: settings.tokenEnv ? { [settings.tokenEnv]: fromEnv } : {},
  })
  const server = await startControlServer({
    engine,
    controlPlane: createControlPlane({ engine, ledger, strategies: parameters.strategies }),
    host: settings.host,
    port: settings.port,
    allowRemote: settings.allowRemote,
    bearerToken: control.token,
    maxEventStreams: settings.maxEventStreams,
    maxEventStreamsPerToken: settings.maxEventStreamsPerToken,
    maxQueuedReads: settings.maxQueuedReads,
    // The browser dashboard on the same loopback server, behind the same token (docs/dashboard.md).
    dashboard: {
      ledger,
      now: Date.now,
      fxRates: engineSettingsOf(config).fxRates,
      lastReconciliation: () => status.lastReconciliation,
      marketPrices: parameters.marketData ? () => priceBookOf(parameters.marketData) : undefined,
    },
    extraRoutes: controlRoutes({ status, engine, ledger, metrics, notifier: parameters.notifier }),
    swapRouting: parameters.swapRouting,
    logger: parameters.logger,
    // Requests the client broke are counted, never logged above debug.
    onClientError: (reason) => metrics.recordControlClientError(reason),
  })
  ledger.owner?.setControlUrl(server.url) // named in the error of a second process
  writeRuntimeFile({
    ledgerPath,
    pid: process.pid,
    url: server.url,
    startedAt: new Date(parameters.startedAt),
    token: control.source,
  })
  let closing: Promise<void> | undefined
  return {
    url: server.url,
    token: control.token,
    dashboardUrl: `${server.url}/dashboard/`,
    close() {
      closing ??= server.close().finally(() => removeRuntimeFile({ ledgerPath, pid: process.pid }))
      return closing
    },
  }
}
