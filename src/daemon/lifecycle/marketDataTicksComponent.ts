import { messageOf } from '../jobs/index.js'
import { startMarketDataTicks } from '../marketDataTicks.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The market-data ticks that drive the strategies, started last: every `marketData.intervalMs`
 * after the previous one ends, while the daemon runs. A stop waits for the tick in progress (it
 * may still submit: the engine must outlive it).
 *
 * @example
 * const components = [summaryTimerComponent(run), marketDataTicksComponent(run)]
 */
export function marketDataTicksComponent(run: DaemonRun): DaemonComponent {
  let ticks: ReturnType<typeof startMarketDataTicks> | undefined
  return {
    name: 'market-data ticks',
    async start() {
      const tick = need(run, 'tick')
      const markEquity = need(run, 'markEquity')
      const logger = need(run, 'logs').logger
      ticks = startMarketDataTicks({
        tick: async () => {
          const report = await tick()
          run.status.lastTick = report
          const { prices, submitted, refused } = report
          logger.info({ prices, submitted, refused: refused.length }, 'market-data tick')
          markEquity(Date.now())
        },
        intervalMs: need(run, 'config').daemon.marketData.intervalMs,
        running: () => run.status.state === 'running',
        onError: (error) => logger.error({ error: messageOf(error) }, 'market-data tick failed'),
      })
    },
    async stop() {
      await ticks?.stop()
    },
  }
}
