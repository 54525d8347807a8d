import { getTickerInfo } from '@stockroute/client/api/actions/getTickerInfo.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import {
  checkStrategyMarketRules,
  type ParsedStrategyConfig,
  type StrategyRulesReport,
  type TickerRulesLookup,
} from '../../strategy/checkStrategyMarketRules.js'
import type { DoctorCheck } from './types.js'

/**
 * The tickers' rules from the service's ticker info (GET /market/v1/tickers/{symbol}/info, signed).
 * A 404 (unknown symbol) or 400 (not that market's stock) means the market lists no such stock.
 *
 * @example
 * const report = await checkStrategyMarketRules(strategies, serviceTickerRules(client, { budgetMs: 3000 }), 'strategies')
 */
export function serviceTickerRules(client: ServiceClient, options: { budgetMs: number }): TickerRulesLookup {
  return async ({ symbol, market }) => {
    try {
      const info = await getTickerInfo(client, { symbol, market }, { budgetMs: options.budgetMs })
      return { lotSize: info.lotSize, spreadTableCode: info.spreadTableCode }
    } catch (error) {
      if (error instanceof ServiceNotFoundError || error instanceof ServiceBadRequestError) return undefined
      throw error
    }
  }
}

/**
 * The `strategies` check of doctor: each strategy's lots and ticks against its ticker's rules
 * (see {@link checkStrategyMarketRules}). Fails on a broken rule, warns when some could not be read.
 */
export async function checkStrategyRules(
  strategies: readonly ParsedStrategyConfig[],
  lookUp: TickerRulesLookup,
): Promise<DoctorCheck> {
  if (strategies.length === 0)
    return { name: 'strategies', status: 'ok', message: 'no strategies configured', details: { count: 0 } }
  const report = await checkStrategyMarketRules(strategies, lookUp, 'strategies')
  const details = { count: strategies.length, ...report }
  if (report.problems.length > 0)
    return {
      name: 'strategies',
      status: 'fail',
      message: `${describeProblems(report)}: every fire would be refused; fix the config`,
      details,
    }
  if (report.unchecked.length > 0)
    return {
      name: 'strategies',
      status: 'warn',
      message: `lots and ticks of ${report.unchecked.map((u) => u.path).join(', ')} not checked: ${report.unchecked[0]?.reason ?? ''}`,
      details,
    }
  return {
    name: 'strategies',
    status: 'ok',
    message: `${strategies.length} strateg${strategies.length === 1 ? 'y' : 'ies'}: lots and ticks follow the tickers' rules`,
    details,
  }
}

/** The problems as `path: message` lines joined on one line. */
export function describeProblems(report: StrategyRulesReport): string {
  return report.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')
}
