import { createEquityMarker } from '../markEquity.js'
import { createRiskWatch } from '../riskWatch.js'
import { createStrategyControl } from '../strategyControl.js'
import { createStrategyRunner } from '../strategyRunner.js'
import { withTwapFirstRuns } from '../twapFirstRuns.js'
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
      const ledger = need(run, 'ledger')
      // A TWAP whose window opens at its first run is anchored on the ledger's record of it.
      const strategies = withTwapFirstRuns(
        need(run, 'strategies'),
        need(run, 'config').daemon.strategies,
        ledger,
      )
      run.parts.strategies = strategies
      const engine = need(run, 'engine')
      const marketData = need(run, 'marketData')
      const control = createStrategyControl({
        strategies,
        ledger,
        listings: run.parts.listings,
        fxRates: engine.settings.fxRates,
      })
      run.parts.strategyControl = control
      run.parts.tick = createStrategyRunner({
        strategies,
        control,
        engine,
        ledger,
        marketData,
        lotSizes: need(run, 'lotSizes'),
        listings: run.parts.listings,
        signal: run.shutdown.signal,
        logger: need(run, 'logs').logger,
      })
      // The limits that halt new entries by themselves observe each valuation (docs/configuration.md).
      const riskWatch = createRiskWatch({
        ledger,
        engine,
        logger: need(run, 'logs').logger,
        write: run.write,
      })
      run.parts.markEquity = createEquityMarker({
        ledger,
        marketData,
        fxRates: engine.settings.fxRates,
        everyMs: need(run, 'config').daemon.marketData.equityMarkIntervalMs,
        onMark: riskWatch?.observe,
        afterFills: riskWatch?.marksAfterFills,
      })
    },
    async stop() {
      run.parts.markEquity?.stop()
    },
  }
}
