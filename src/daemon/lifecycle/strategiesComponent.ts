import { createEquityMarker } from '../markEquity.js'
import { createStrategyControl } from '../strategyControl.js'
import { createStrategyRunner } from '../strategyRunner.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The strategies as the daemon runs them: their switches (kept in the ledger), the runner of one
 * market-data tick, and the marker of the open positions at the market (once a minute, for the
 * dashboard's equity curve). The ticks themselves are `marketDataTicksComponent`'s.
 *
 * @example
 * const components = [tokenListsComponent(run), strategiesComponent(run), controlApiComponent(run)]
 */
export function strategiesComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'strategies',
    async start() {
      const strategies = need(run, 'strategies')
      const ledger = need(run, 'ledger')
      const engine = need(run, 'engine')
      const marketData = need(run, 'marketData')
      const control = createStrategyControl({ strategies, ledger })
      run.parts.strategyControl = control
      run.parts.tick = createStrategyRunner({
        strategies,
        control,
        engine,
        ledger,
        marketData,
        lotSizes: need(run, 'lotSizes'),
        signal: run.shutdown.signal,
        logger: need(run, 'logs').logger,
      })
      run.parts.markEquity = createEquityMarker({ ledger, marketData, fxRates: engine.settings.fxRates })
    },
    async stop() {},
  }
}
