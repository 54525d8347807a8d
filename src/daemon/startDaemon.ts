import { createServiceClient } from '../api/createServiceClient.js'
import { createNodeFetch } from '../chain/nodeFetch.js'
import type { DaemonConfig, StockrouteConfig } from '../config/config.js'
import { engineChainConfigsOf, engineSettingsOf } from '../config/engineConfig.js'
import { ledgerPathOf } from '../config/ledgerPath.js'
import { walletsOf } from '../config/wallets.js'
import { plural } from '../domain/plural.js'
import type { EngineHookFunctions } from '../engine/context.js'
import { createEngine, type Engine } from '../engine/createEngine.js'
import type { Sandbox } from '../sandbox/startSandbox.js'
import { migrationProgressPrinter } from '../store/migrationProgress.js'
import { type Ledger, openLedger } from '../store/openLedger.js'
import { createStrategy } from '../strategy/index.js'
import { type ActivityPrinter, createActivityPrinter, transactionEventLine } from './activity.js'
import { drainEngine } from './drainEngine.js'
import { startEmbeddedSandbox, unfinishedLeftByEmbeddedRun } from './embeddedSandbox.js'
import type { DaemonStatus } from './healthRoutes.js'
import { messageOf, refreshTokenList, type TokenListEntry } from './jobs/index.js'
import { createDaemonLogger } from './logger.js'
import { createEquityMarker } from './markEquity.js'
import { createMarketDataCache } from './marketData.js'
import { startMarketDataTicks } from './marketDataTicks.js'
import { createDaemonMetrics } from './metrics.js'
import type { Notifier } from './notifications/index.js'
import { scheduleDaemonJobs } from './scheduleDaemonJobs.js'
import { type DaemonApi, startDaemonApi } from './startDaemonApi.js'
import { startDaemonNotifier } from './startDaemonNotifier.js'
import { createStrategyControl } from './strategyControl.js'
import { createStrategyRunner } from './strategyRunner.js'
import { startSummaryTimer } from './summaryTimer.js'

export type StartDaemonParameters = {
  config: DaemonConfig
  /** Stop on its own after this many seconds (default: run until `stop()`). */
  durationSeconds?: number | undefined
  /** The operator's lines: one per finished execution, summaries, start and stop. Default stdout. */
  write?: ((line: string) => void) | undefined
  /** Progress while starting (sandbox, recovery). Default stderr. */
  progress?: ((line: string) => void) | undefined
}

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
}

/** A running daemon. */
export type Daemon = {
  /** The control API (docs/control-api.md), when enabled. */
  apiUrl: string | undefined
  /** The bearer token its /v1 routes need. */
  apiToken: string | undefined
  ledgerPath: string
  logPath: string
  /** The configuration it trades with (an embedded run's, with the sandbox's service and chains). */
  config: StockrouteConfig
  /** Resolves when the daemon has stopped (duration over, or `stop()`), everything closed. */
  done: Promise<DaemonReport>
  /** Stops: no new intents, executions in flight finish (or are cancelled after the grace), all closed. */
  stop(reason?: string): Promise<DaemonReport>
}

/**
 * Starts the trading daemon: the embedded sandbox when the configuration asks for it, the ledger,
 * logs and metrics, the engine (after recovering whatever a previous run left unfinished), the
 * market-data poller that drives the strategies, the control API (swap requests, quotes, /health,
 * /metrics), and the cron jobs (token lists, corporate actions, reconciliation). Each finished
 * execution is one readable line; a summary follows every `summaryIntervalSeconds`.
 *
 * @example
 * const daemon = await startDaemon({ config: loadDaemonConfig('config/default.json'), durationSeconds: 60 })
 * const report = await daemon.done
 * report.executions.confirmed // 42
 */
export async function startDaemon(parameters: StartDaemonParameters): Promise<Daemon> {
  const write = parameters.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const progress = parameters.progress ?? ((line: string) => process.stderr.write(`${line}\n`))
  const startedAt = Date.now()
  let sandbox: Sandbox | undefined
  let config: StockrouteConfig
  if (parameters.config.kind === 'embedded') {
    const run = await startEmbeddedSandbox(parameters.config, progress)
    sandbox = run.sandbox
    config = run.config
  } else {
    config = parameters.config.config
  }
  const settings = config.daemon
  const logs = createDaemonLogger({ dataDir: config.dataDir, level: settings.logLevel })
  const logger = logs.logger
  const resources: { ledger?: Ledger; engine?: Engine; api?: DaemonApi; notifier?: Notifier | undefined } = {}
  const cleanupOnFailure = async () => {
    await resources.api?.close()
    await resources.engine?.close()
    await resources.notifier?.stop()
    resources.ledger?.close()
    logs.flush()
    await sandbox?.stop()
  }
  try {
    const strategies = settings.strategies.map((entry) => createStrategy(entry))
    // The main wallet trades on every chain and is the service's maker; a chain's extra wallets add to it.
    const wallets = walletsOf(config)
    const account = wallets.main
    const ledgerPath = ledgerPathOf(config)
    // A ledger of an older stockroute is migrated here; a long backfill prints its progress.
    const ledger = openLedger({
      path: ledgerPath,
      onWalCheckpointerError: (e) => logger.warn(e.message),
      onMigrationProgress: migrationProgressPrinter(progress),
    })
    resources.ledger = ledger
    const service = createServiceClient({
      baseUrl: config.service.baseUrl,
      credentials: { apiKey: config.secrets.apiKey, apiSecret: config.secrets.apiSecret },
      makerAddress: account.address,
      fetch: createNodeFetch(), // keep-alive node:http: a fraction of undici fetch's CPU per quote
    })
    const metrics = createDaemonMetrics({ ledger })
    const shutdown = new AbortController()
    let activity: ActivityPrinter | undefined
    const marketData = createMarketDataCache({ service, staleAfterMs: settings.marketData.staleAfterMs })
    // Every hook feeds the metrics; transitions also the activity printer.
    const hooks: EngineHookFunctions = {
      ...metrics.hooks,
      onTransition: (event, execution) => {
        metrics.hooks.onTransition(event, execution)
        activity?.hooks.onTransition(event, execution)
      },
    }
    const engine = await createEngine({
      ledger,
      service,
      account,
      chains: engineChainConfigsOf(config, wallets),
      settings: engineSettingsOf(config),
      marketPrice: marketData.priceSource,
      hooks,
      logger: logger.child({ component: 'engine' }),
      onTransactionEvent: (chainId, event) => {
        metrics.recordTransactionEvent(chainId, event)
        if (event.kind === 'recovery') {
          progress(event.message)
          ledger.events.append('recovery', { chainId, data: { message: event.message } })
        } else if (event.kind !== 'rebroadcast') write(transactionEventLine(chainId, event))
      },
    })
    resources.engine = engine
    // Before recovery: the notifier's first read marks where new sinks start, so recovery's events count.
    resources.notifier = startDaemonNotifier({ config, ledger, engine, logger })
    const printer = createActivityPrinter({
      ledger,
      chains: engine.chains,
      write,
      fxRates: engine.settings.fxRates,
    })
    activity = printer
    progress(`${walletsBanner(engine)}; ledger ${ledgerPath}`)

    // Recovery runs in the background, chain by chain: a wallet takes new intents once its nonces are sound.
    const recovery = engine.recover({ signal: shutdown.signal }).then(
      (report) => {
        if (report.executions.length > 0 || report.fillsRecorded > 0) {
          ledger.events.append('recovery', {
            data: {
              message: `recovered ${plural(report.executions.length, 'unfinished execution')}, ${plural(report.fillsRecorded, 'fill')} from the logs`,
              executions: report.executions.map((e) => ({
                executionId: e.executionId,
                from: e.from,
                to: e.to,
              })),
              fillsRecorded: report.fillsRecorded,
            },
          })
          write(
            `recovered ${plural(report.executions.length, 'unfinished execution')} (${report.executions.map((e) => `${e.executionId} ${e.from}→${e.to}`).join(', ') || 'none'}), ${plural(report.fillsRecorded, 'fill')} from the logs`,
          )
        }
        logger.info({ recovery: report }, 'recovery done')
      },
      (error: unknown) => {
        if (!shutdown.signal.aborted) logger.error({ error: messageOf(error) }, 'recovery failed')
      },
    )

    const chainIds = [...engine.chains.keys()]
    const jobChains = [...engine.chains.values()].map((chain) => ({
      chainId: chain.chainId,
      publicClient: chain.publicClient,
      owners: chain.wallets.map((wallet) => wallet.account.address),
    }))
    let tokenLists = new Map<number, TokenListEntry[]>()
    const refreshTokens = async () => {
      const report = await refreshTokenList({ service, chainIds, previous: tokenLists, logger })
      tokenLists = report.tokens
      for (const error of report.errors) logger.warn(error, 'token list refresh failed')
      return report
    }
    await refreshTokens()
    const lotSizes = () =>
      new Map(
        [...tokenLists].flatMap(([chainId, tokens]) =>
          tokens.map((token) => [`${chainId}:${token.address.toLowerCase()}`, token.lotSize] as const),
        ),
      )

    const status: DaemonStatus = {
      state: 'running',
      startedAt,
      lastTick: undefined,
      lastReconciliation: undefined,
    }
    const strategyControl = createStrategyControl({ strategies, ledger })
    const tick = createStrategyRunner({
      strategies,
      control: strategyControl,
      engine,
      ledger,
      marketData,
      lotSizes,
      signal: shutdown.signal,
      logger,
    })
    // The open positions at the market once a minute, for the dashboard's equity curve.
    const markEquity = createEquityMarker({ ledger, marketData, fxRates: engine.settings.fxRates })
    let ticks: ReturnType<typeof startMarketDataTicks> | undefined
    const startTicks = () =>
      startMarketDataTicks({
        tick: async () => {
          const report = await tick()
          status.lastTick = report
          const { prices, submitted, refused } = report
          logger.info({ prices, submitted, refused: refused.length }, 'market-data tick')
          markEquity(Date.now())
        },
        intervalMs: settings.marketData.intervalMs,
        running: () => status.state === 'running',
        onError: (error) => logger.error({ error: messageOf(error) }, 'market-data tick failed'),
      })

    if (settings.api.enabled) {
      resources.api = await startDaemonApi({
        config,
        ledger,
        engine,
        strategies: strategyControl,
        status,
        metrics,
        notifier: resources.notifier,
        logger: logger.child({ component: 'api' }),
        startedAt,
        marketData,
      })
      write(`control API ${resources.api.url} (docs/control-api.md; GET /v1/openapi.json, /health, /metrics)`)
      write(`dashboard ${resources.api.dashboardUrl} (docs/dashboard.md; log in with the control API token)`)
    }

    const jobs = scheduleDaemonJobs({
      settings,
      ledger,
      service,
      engine,
      chains: jobChains,
      owner: account.address,
      logger,
      metrics,
      status,
      write,
      refreshTokens,
      signal: shutdown.signal,
    })

    const summaryTimer = startSummaryTimer({
      status,
      ledger,
      printer,
      write,
      intervalMs: settings.summaryIntervalSeconds * 1000,
    })

    ticks = startTicks()
    write(
      `trading ${plural(strategies.length, 'strategy', 'strategies')} on chains ${chainIds.join(', ')}${parameters.durationSeconds ? ` for ${parameters.durationSeconds} s` : ' until Ctrl-C'}`,
    )

    let stopping: Promise<DaemonReport> | undefined
    let resolveDone: (report: DaemonReport) => void = () => {}
    const done = new Promise<DaemonReport>((resolve) => {
      resolveDone = resolve
    })
    const durationTimer =
      parameters.durationSeconds === undefined
        ? undefined
        : setTimeout(
            () => void stop(`duration of ${parameters.durationSeconds} s over`),
            parameters.durationSeconds * 1000,
          )

    const stop = (reason = 'stopped') => {
      stopping ??= (async (): Promise<DaemonReport> => {
        status.state = 'stopping'
        write(
          `stopping (${reason}): no new intents; executions in flight get ${settings.shutdownGraceMs} ms to finish`,
        )
        clearTimeout(durationTimer)
        // The jobs only read, or catch up on what the next run catches up on too: they are aborted
        // at once instead of being waited out (an RPC read may take its whole timeout).
        for (const activity of jobs.activities()) write(`waiting for ${activity}`)
        const jobsStopped = jobs.stop(new Error(`the daemon is stopping (${reason})`))
        // A tick in progress may still submit: let it end before the engine stops taking intents.
        await ticks?.stop()
        clearInterval(summaryTimer)
        await jobsStopped
        await resources.api?.close()
        // The sandbox's chains and service stay up until the engine has drained on them.
        await drainEngine({
          closed: engine.close(),
          ledger,
          write,
          graceMs: settings.shutdownGraceMs,
          abort: () => shutdown.abort(new Error(`the daemon is stopping (${reason})`)),
        })
        await recovery
        const counts = printer.counts()
        const report: DaemonReport = {
          reason,
          durationMs: Date.now() - startedAt,
          executions: {
            confirmed: counts.confirmed,
            failed: counts.failed,
            expired: counts.expired,
            rejected: counts.rejected,
          },
          unfinished: ledger.executions.listUnfinishedExecutions().length,
          embedded: sandbox !== undefined,
        }
        const left = sandbox ? unfinishedLeftByEmbeddedRun(report.unfinished, ledgerPath) : undefined
        write(printer.summary([left ?? `${report.unfinished} left unfinished for the next start`]))
        logger.info({ report }, 'daemon stopped')
        // After the engine: the last transitions and fills are in the outbox, sent at the next start.
        await resources.notifier?.stop()
        ledger.close()
        logs.flush()
        await sandbox?.stop()
        write(`stopped: ${reason}`)
        resolveDone(report)
        return report
      })()
      return stopping
    }

    // A storage fault (disk full, read-only file, I/O error): the transaction managers already sign
    // nothing; say why and what to do, and stop with exit code 3. If stopping fails on the broken
    // disk, `done` still resolves, so that the process exits.
    ledger.onStorageFault((fault) => {
      logger.error({ storageFault: fault }, `ledger storage fault: ${fault.reason}; remedy: ${fault.remedy}`)
      write(`storage fault: ${fault.reason}\n  remedy: ${fault.remedy}`)
      process.exitCode = 3
      stop(`storage fault ${fault.code}`).catch((error: unknown) => {
        logger.error({ error: messageOf(error) }, 'stop after the storage fault failed')
        logs.flush()
        const none = { confirmed: 0, failed: 0, expired: 0, rejected: 0 }
        resolveDone({
          reason: `storage fault ${fault.code}`,
          durationMs: Date.now() - startedAt,
          executions: none,
          unfinished: 0,
          embedded: sandbox !== undefined,
        })
      })
    })

    return {
      apiUrl: resources.api?.url,
      apiToken: resources.api?.token,
      ledgerPath,
      logPath: logs.path,
      config,
      done,
      stop,
    }
  } catch (error) {
    logger.error({ error: messageOf(error) }, 'daemon failed to start')
    await cleanupOnFailure()
    throw error
  }
}

/** The start banner's wallets: each chain's addresses, the main wallet (the service's maker) first. */
function walletsBanner(engine: Pick<Engine, 'chains'>): string {
  const chains = [...engine.chains.values()].map((chain) => {
    const [main, ...extra] = chain.wallets.map((wallet) => wallet.account.address)
    return `chain ${chain.chainId}: ${main} (main)${extra.map((address) => `, ${address}`).join('')}`
  })
  return `wallets ${chains.join('; ')}`
}
