import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { createNodeFetch } from '../../chain/nodeFetch.js'
import { engineChainConfigsOf, engineSettingsOf } from '../../config/engineConfig.js'
import { createEngine, type EngineHookFunctions } from '../../engine/index.js'
import { transactionEventLine } from '../activity.js'
import { createMarketDataCache } from '../marketData.js'
import { createDaemonMetrics } from '../metrics.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The engine and what it is built on: the service client (the main wallet as maker), the metrics
 * its hooks feed, the price cache its guard reads. Its transaction managers' events are counted and
 * printed (recovery steps as progress). It is closed here only when nothing drained it before:
 * after a failed start (`executionsInFlightComponent` drains it at a stop).
 *
 * @example
 * const components = [ledgerComponent(run), engineComponent(run), notifierComponent(run)]
 */
export function engineComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'engine',
    async start() {
      const config = need(run, 'config')
      const ledger = need(run, 'ledger')
      const wallets = need(run, 'wallets')
      const cluster = run.parts.cluster
      const service = createServiceClient({
        baseUrl: config.service.baseUrl,
        credentials: { apiKey: config.secrets.apiKey, apiSecret: config.secrets.apiSecret },
        makerAddress: wallets.main.address,
        fetch: createNodeFetch(), // keep-alive node:http: a fraction of undici fetch's CPU per quote
        requestsPerSecond: config.service.requestsPerSecond,
        // Cluster mode: one budget for the key across the cluster's daemons.
        ...(cluster ? { limiter: cluster.limiter } : {}),
      })
      const metrics = createDaemonMetrics({ ledger })
      const marketData = createMarketDataCache({
        service,
        staleAfterMs: config.daemon.marketData.staleAfterMs,
      })
      run.parts.service = service
      run.parts.metrics = metrics
      run.parts.marketData = marketData
      // Every hook feeds the metrics; transitions also the activity printer (made after the engine).
      const hooks: EngineHookFunctions = {
        ...metrics.hooks,
        onTransition: (event, execution) => {
          metrics.hooks.onTransition(event, execution)
          run.parts.printer?.hooks.onTransition(event, execution)
          // A fill: the positions are marked soon, for the drawdown limit (when one is set).
          if (event.to === 'confirmed') run.parts.markEquity?.soon()
        },
      }
      const engine = await createEngine({
        ledger,
        service,
        account: wallets.main,
        chains: engineChainConfigsOf(config, wallets),
        settings: engineSettingsOf(config),
        marketPrice: marketData.priceSource,
        marketStatus: marketData.marketStatus,
        hooks,
        logger: need(run, 'logs').logger.child({ component: 'engine' }),
        fenceFor: cluster?.keeper.fenceFor,
        onTransactionEvent: (chainId, event) => {
          metrics.recordTransactionEvent(chainId, event)
          if (event.kind === 'recovery') {
            run.progress(printable(event.message))
            ledger.events.append('recovery', { chainId, data: { message: event.message } })
          } else if (event.kind !== 'rebroadcast') run.write(transactionEventLine(chainId, event))
        },
      })
      let closed: Promise<void> | undefined
      run.parts.engine = engine
      run.parts.closeEngine = () => {
        closed ??= engine.close()
        return closed
      }
    },
    async stop() {
      await run.parts.closeEngine?.()
    },
  }
}
