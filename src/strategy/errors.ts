import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** One problem of a strategy configuration: the field (dotted path) and what to do about it. */
export type StrategyConfigIssue = { readonly path: string; readonly message: string }

/**
 * A strategy configuration was refused. `shortMessage` names the strategy, the first field at
 * fault and the fix; `metaMessages` list every problem as `field: message`; `details.issues`
 * carries them as data.
 *
 * @example
 * try {
 *   createStrategy({ kind: 'schedule', id: 'dca', chainId: 1, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '100', cron: 'often' })
 * } catch (error) {
 *   if (error instanceof StrategyConfigError) console.error(error.message)
 * }
 */
export class StrategyConfigError extends StockrouteError {
  override name = 'StrategyConfigError'
  declare readonly code: 'STRATEGY_CONFIG_INVALID'
  readonly issues: readonly StrategyConfigIssue[]

  constructor(parameters: { strategy: string; issues: readonly StrategyConfigIssue[]; cause?: unknown }) {
    const { strategy, issues, cause } = parameters
    const [first] = issues
    const lines = issues.map((issue) => `  ${issue.path || '(strategy)'}: ${issue.message}`)
    super({
      code: 'STRATEGY_CONFIG_INVALID',
      shortMessage:
        first === undefined
          ? `Strategy ${strategy} is invalid.`
          : `Strategy ${strategy} is invalid: ${first.path || '(strategy)'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''}, listed below)` : ''}`,
      details: { strategy, issues: issues.map((issue) => ({ ...issue })) },
      metaMessages: issues.length > 1 ? lines : [],
      cause,
    })
    this.issues = issues
  }
}
