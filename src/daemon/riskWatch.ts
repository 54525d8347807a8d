import { printable } from '@stockroute/client/domain/printable.js'
import { type Engine, hasEntryHaltLimits, observeEquityMarks } from '../engine/index.js'
import type { EquityMark } from '../store/index.js'
import type { Ledger } from '../store/openLedger.js'
import type { JobLogger } from './jobs/index.js'

/**
 * The daemon's side of the risk limits that halt by themselves (docs/configuration.md): each valuation of
 * the equity marker (on market-data ticks when a mark is due, and soon after fills) is observed
 * against `maxDrawdownPct` and `maxDailyRealizedLoss`; a limit reached latches an entry halt in the
 * ledger (its event and notification come from there) and prints one operator line. Undefined
 * when the configuration sets none of these limits: nothing is observed, no mark follows fills.
 *
 * @example
 * const watch = createRiskWatch({ ledger, engine, logger, write })
 * const markEquity = createEquityMarker({ ledger, marketData, onMark: watch?.observe })
 */
export function createRiskWatch(parameters: {
  ledger: Ledger
  engine: Pick<Engine, 'settings' | 'chains'>
  logger?: JobLogger | undefined
  write?: ((line: string) => void) | undefined
}):
  | {
      /** Observes equity at a valuation (the marks it wrote, [] when nothing is open). */
      observe(marks: readonly EquityMark[], atMs: number): void
      /** Whether marks should follow fills (a drawdown limit is set). */
      marksAfterFills: boolean
    }
  | undefined {
  const { ledger, engine, logger, write } = parameters
  const limits = engine.settings.risk
  if (!hasEntryHaltLimits(limits)) return undefined
  const symbolOf = (chainId: number) => engine.chains.get(chainId)?.asset.symbol
  return {
    marksAfterFills: hasEntryHaltLimits(limits, 'maxDrawdownPct'),
    observe(marks, atMs) {
      try {
        const { latched } = observeEquityMarks(ledger, limits, { atMs, marks }, symbolOf)
        for (const halt of latched) {
          logger?.warn(
            { chainId: halt.chainId, rule: halt.rule, figures: halt.figures },
            'new entries halted',
          )
          write?.(
            `${new Date(halt.atMs).toISOString().slice(11, 19)} new entries halted (buys refused, sells still run until \`stockroute resume\`): ${printable(halt.reason)}`,
          )
        }
      } catch (error) {
        // A storage fault is the ledger's to report; the next valuation observes again.
        logger?.error({ error: String(error) }, 'could not observe equity for the risk limits')
      }
    },
  }
}
