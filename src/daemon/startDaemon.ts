import { plural } from '@stockroute/client/domain/plural.js'
import { printable } from '@stockroute/client/domain/printable.js'
import type { DaemonConfig, StockrouteConfig } from '../config/config.js'
import { messageOf } from './jobs/index.js'
import { activityComponent } from './lifecycle/activityComponent.js'
import { clusterComponent } from './lifecycle/clusterComponent.js'
import { controlApiComponent } from './lifecycle/controlApiComponent.js'
import { cronJobsComponent } from './lifecycle/cronJobsComponent.js'
import type { DaemonComponent } from './lifecycle/daemonComponent.js'
import { createDaemonRun, type DaemonReport, type DaemonRun, need } from './lifecycle/daemonRun.js'
import { engineComponent } from './lifecycle/engineComponent.js'
import { executionsInFlightComponent } from './lifecycle/executionsInFlightComponent.js'
import { ledgerComponent } from './lifecycle/ledgerComponent.js'
import { logsComponent } from './lifecycle/logsComponent.js'
import { marketDataTicksComponent } from './lifecycle/marketDataTicksComponent.js'
import { notifierComponent } from './lifecycle/notifierComponent.js'
import { recoveryComponent } from './lifecycle/recoveryComponent.js'
import { type RunningComponents, startComponents } from './lifecycle/runComponents.js'
import { sandboxComponent } from './lifecycle/sandboxComponent.js'
import { strategiesComponent } from './lifecycle/strategiesComponent.js'
import { summaryTimerComponent } from './lifecycle/summaryTimerComponent.js'
import { tokenListsComponent } from './lifecycle/tokenListsComponent.js'
import { tradingSetupComponent } from './lifecycle/tradingSetupComponent.js'

export type { DaemonReport } from './lifecycle/daemonRun.js'

export type StartDaemonParameters = {
  config: DaemonConfig
  /** Stop on its own after this many seconds (default: run until `stop()`). */
  durationSeconds?: number | undefined
  /** The operator's lines: one per finished execution, summaries, start and stop. Default stdout. */
  write?: ((line: string) => void) | undefined
  /** Progress while starting (sandbox, recovery). Default stderr. */
  progress?: ((line: string) => void) | undefined
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
  const run = createDaemonRun({
    config: parameters.config,
    write: parameters.write ?? ((line: string) => process.stdout.write(`${line}\n`)),
    progress: parameters.progress ?? ((line: string) => process.stderr.write(`${line}\n`)),
  })
  const running = await startComponents(daemonComponents(run), {
    onFailure: (error) => run.parts.logs?.logger.error({ error: messageOf(error) }, 'daemon failed to start'),
  })
  run.write(tradingLine(run, parameters.durationSeconds))
  let durationTimer: NodeJS.Timeout | undefined
  const { stop, done, resolveDone } = stopOnce(run, running, () => clearTimeout(durationTimer))
  if (parameters.durationSeconds !== undefined)
    durationTimer = setTimeout(
      () => void stop(`duration of ${parameters.durationSeconds} s over`),
      parameters.durationSeconds * 1000,
    )
  stopOnStorageFault(run, stop, resolveDone)
  // Cluster mode: a wallet whose lease another daemon took is no longer this daemon's to drive.
  run.onLeaseLost = (why) => void stop(why)
  if (run.leaseLost) void stop(run.leaseLost)
  return {
    apiUrl: run.parts.api?.url,
    apiToken: run.parts.api?.token,
    ledgerPath: need(run, 'ledgerPath'),
    logPath: need(run, 'logs').path,
    config: need(run, 'config'),
    done,
    stop,
  }
}

/**
 * The daemon's parts, in the order they start; they stop in reverse order. The sandbox's chains
 * outlive the engine, the engine outlives whatever submits to it (the control API, the jobs, the
 * ticks), and the notifier outlives the engine's drain.
 */
function daemonComponents(run: DaemonRun): DaemonComponent[] {
  return [
    sandboxComponent(run),
    logsComponent(run),
    tradingSetupComponent(run),
    clusterComponent(run),
    ledgerComponent(run),
    engineComponent(run),
    notifierComponent(run),
    activityComponent(run),
    recoveryComponent(run),
    executionsInFlightComponent(run),
    tokenListsComponent(run),
    strategiesComponent(run),
    controlApiComponent(run),
    cronJobsComponent(run),
    summaryTimerComponent(run),
    marketDataTicksComponent(run),
  ]
}

function tradingLine(run: DaemonRun, durationSeconds: number | undefined): string {
  const strategies = need(run, 'strategies')
  const chainIds = [...need(run, 'engine').chains.keys()]
  return `trading ${plural(strategies.length, 'strategy', 'strategies')} on chains ${chainIds.join(', ')}${durationSeconds ? ` for ${durationSeconds} s` : ' until Ctrl-C'}`
}

/**
 * The daemon's `stop`: its first call says so, stops taking intents (`status.state`), then stops the
 * components (the jobs interrupted at once, then newest first: ticks, jobs, control API, the
 * engine's drain, recovery, the summary, notifier, ledger, logs, sandbox); later calls share it.
 * `done` resolves with the run's report.
 */
function stopOnce(run: DaemonRun, running: RunningComponents, beforeStop: () => void) {
  let resolveDone: (report: DaemonReport) => void = () => {}
  const done = new Promise<DaemonReport>((resolve) => {
    resolveDone = resolve
  })
  let stopping: Promise<DaemonReport> | undefined
  const stop = (reason = 'stopped') => {
    stopping ??= (async (): Promise<DaemonReport> => {
      run.status.state = 'stopping'
      run.write(
        `stopping (${printable(reason)}): no new intents; executions in flight get ${need(run, 'config').daemon.shutdownGraceMs} ms to finish`,
      )
      beforeStop()
      await running.stop(reason)
      run.write(`stopped: ${printable(reason)}`)
      const report = need(run, 'report')
      resolveDone(report)
      return report
    })()
    return stopping
  }
  return { stop, done, resolveDone }
}

/**
 * A storage fault (disk full, read-only file, I/O error): the transaction managers already sign
 * nothing; say why and what to do, and stop (the report says `storageFault`). If stopping fails on
 * the broken disk, `done` still resolves, so that the process exits.
 */
function stopOnStorageFault(
  run: DaemonRun,
  stop: (reason: string) => Promise<DaemonReport>,
  resolveDone: (report: DaemonReport) => void,
) {
  const logs = need(run, 'logs')
  need(run, 'ledger').onStorageFault((fault) => {
    logs.logger.error(
      { storageFault: fault },
      `ledger storage fault: ${fault.reason}; remedy: ${fault.remedy}`,
    )
    run.write(`storage fault: ${printable(fault.reason)}\n  remedy: ${printable(fault.remedy)}`)
    stop(`storage fault ${fault.code}`).catch((error: unknown) => {
      logs.logger.error({ error: messageOf(error) }, 'stop after the storage fault failed')
      logs.flush()
      const none = { confirmed: 0, failed: 0, expired: 0, rejected: 0 }
      resolveDone({
        reason: `storage fault ${fault.code}`,
        durationMs: Date.now() - run.startedAt,
        executions: none,
        unfinished: 0,
        embedded: run.parts.sandbox !== undefined,
        storageFault: true,
      })
    })
  })
}
