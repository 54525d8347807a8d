import { startDaemonApi } from '../startDaemonApi.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The control API and the dashboard, when the configuration enables them (docs/control-api.md).
 * Closed before the engine drains: no new swap arrives while executions finish.
 *
 * @example
 * const components = [strategiesComponent(run), controlApiComponent(run), cronJobsComponent(run)]
 */
export function controlApiComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'control API',
    async start() {
      const config = need(run, 'config')
      if (!config.daemon.api.enabled) return
      const api = await startDaemonApi({
        config,
        ledger: need(run, 'ledger'),
        engine: need(run, 'engine'),
        strategies: need(run, 'strategyControl'),
        status: run.status,
        metrics: need(run, 'metrics'),
        notifier: run.parts.notifier,
        logger: need(run, 'logs').logger.child({ component: 'api' }),
        startedAt: run.startedAt,
        marketData: need(run, 'marketData'),
        swapRouting: run.parts.cluster
          ? { nodeId: run.parts.cluster.nodeId, destination: run.parts.cluster.router.destination }
          : undefined,
      })
      run.parts.api = api
      run.parts.cluster?.setControlUrl(api.url)
      run.write(`control API ${api.url} (docs/control-api.md; GET /v1/openapi.json, /health, /metrics)`)
      run.write(`dashboard ${api.dashboardUrl} (docs/dashboard.md; log in with the control API token)`)
    },
    async stop() {
      await run.parts.api?.close()
    },
  }
}
