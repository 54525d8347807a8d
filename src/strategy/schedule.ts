import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { parseUnits } from 'viem/utils'
import { type ScheduleStrategyConfig, scheduleStrategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'
import { latestCronFireTimes } from './latestCronFireTimes.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import type { MarketSymbol, Strategy, StrategyInput, StrategyIntent } from './types.js'

/** How far back a schedule looks when the input has no `sinceMs`: one minute. */
export const defaultScheduleLookbackMs = 60_000

/** A schedule strategy, with the fire-time computation it trades on. */
export type ScheduleStrategy = Strategy & {
  readonly kind: 'schedule'
  /** The node-cron expression and the time zone it is read in. */
  readonly cron: string
  readonly timezone: string
  /** Most fire times traded by one evaluation. */
  readonly maxCatchUp: number
  /**
   * The latest `limit` (default `maxCatchUp`) fire times in `(lastEvaluatedMs, nowMs]`, ascending,
   * epoch ms.
   */
  dueFireTimes(lastEvaluatedMs: number, nowMs: number, limit?: number): number[]
}

/**
 * A strategy that trades a fixed amount on a node-cron schedule (dollar-cost averaging). Each
 * evaluation trades the fire times in `(input.sinceMs, input.nowMs]` (without `sinceMs`, the last
 * 60 s), one intent per fire time with id `schedule:<id>:<fire time ISO>`; so re-evaluating a
 * window yields the same ids and the engine trades each fire time once. After a long downtime only
 * the latest `maxCatchUp` (default 1) missed fire times are traded. Expressions are read in
 * `timezone`, default UTC, so fire times and ids do not depend on the host's zone.
 *
 * A sell of a share quantity (`amountType: 'stocktoken'`) fires only when the ledger's position
 * holds that much: a trim scheduled before anything was bought does nothing rather than fail in
 * simulation.
 *
 * Throws {@link StrategyConfigError} at creation for a bad configuration, an invalid cron
 * expression included.
 *
 * @example
 * const dca = createScheduleStrategy({
 *   id: 'dca-aapl', chainId: 1, ticker: 'AAPL', exchange: 0,
 *   side: 'buy', amountIn: '250', cron: '0 14 * * 1-5',
 * })
 * dca.evaluate({ nowMs: Date.parse('2026-01-05T14:00:01Z'), sinceMs: Date.parse('2026-01-05T13:59:59Z'), prices, positions, cash })
 * // [{ intentId: 'schedule:dca-aapl:2026-01-05T14:00:00.000Z', side: 'buy', amountIn: '250', ... }]
 */
export function createScheduleStrategy(
  config: Omit<ScheduleStrategyConfig, 'kind'> & { kind?: 'schedule' | undefined },
): ScheduleStrategy {
  const parsed = parseStrategyConfig(scheduleStrategyConfigSchema, { ...config, kind: 'schedule' })
  const exchange: ExchangeCode = parsed.exchange
  const timezone = parsed.timezone ?? 'UTC'
  const maxCatchUp = parsed.maxCatchUp ?? 1
  const dueFireTimes = (lastEvaluatedMs: number, nowMs: number, limit = maxCatchUp): number[] => {
    if (!Number.isFinite(lastEvaluatedMs) || !Number.isFinite(nowMs) || nowMs <= lastEvaluatedMs) return []
    return latestCronFireTimes({
      expression: parsed.cron,
      timezone,
      afterMs: lastEvaluatedMs,
      untilMs: nowMs,
      count: limit,
    })
  }
  return {
    id: parsed.id,
    kind: 'schedule',
    cron: parsed.cron,
    timezone,
    maxCatchUp,
    dueFireTimes,
    marketHours: parsed.marketHours ?? 'any',
    // The decision needs no price, but the trade does: the engine's guard compares the quote with
    // the market price, so the daemon keeps this one fresh too.
    symbols(): MarketSymbol[] {
      const { market, symbol } = instrumentOf(parsed)
      return [{ market, symbol }]
    },
    evaluate(input: StrategyInput): StrategyIntent[] {
      const sinceMs = input.sinceMs ?? input.nowMs - defaultScheduleLookbackMs
      if (parsed.side === 'sell' && parsed.amountType === 'stocktoken' && !holds(input, parsed)) return []
      return dueFireTimes(sinceMs, input.nowMs).map((fireMs) => ({
        intentId: `schedule:${parsed.id}:${new Date(fireMs).toISOString()}`,
        chainId: parsed.chainId,
        ticker: parsed.ticker,
        exchange,
        side: parsed.side,
        amountIn: parsed.amountIn,
        ...(parsed.amountType === undefined ? {} : { amountType: parsed.amountType }),
      }))
    },
  }
}

/** Whether the position holds the shares a sell of `amountIn` shares gives. */
function holds(
  input: StrategyInput,
  sale: { chainId: number; ticker: string; exchange: ExchangeCode; amountIn: string },
): boolean {
  const position = input.positions.find(
    (held) => held.chainId === sale.chainId && held.ticker === sale.ticker && held.exchange === sale.exchange,
  )
  if (!position) return false
  const decimals = position.tokenKind === 'share' ? 18 : 0
  try {
    return position.balance >= parseUnits(sale.amountIn, decimals)
  } catch {
    // An amount the token cannot hold: let the engine refuse it with its own message.
    return true
  }
}
