import type { MarketCode } from '@stockroute/client/domain/markets.js'
import { type Command, InvalidArgumentError } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { withServiceOptions } from '../options.js'

/**
 * `stockroute market --market usex|hkex|krex --symbols A,B [--info] [--json]`: market quotes of
 * stocks of one market (any number: sent 30 at a time). With --info (hkex, krex) each stock's board
 * lot and spread table from its ticker info, and the tick at the close price from the market's
 * spread tables. The service client is loaded only when the command runs (./marketAction.ts).
 *
 * @example
 * registerMarketCommand(program)
 * // stockroute market --market hkex --symbols 0700,9988 --info
 */
export function registerMarketCommand(program: Command) {
  withServiceOptions(
    program
      .command('market')
      .description('market quotes of stocks of one market (GET /market/v1/tickers/quotes)'),
  )
    .requiredOption('--market <market>', 'market code: usex, hkex or krex', parseMarket)
    .requiredOption(
      '--symbols <list>',
      'comma-separated stock symbols of that market (e.g. 0700,9988)',
      parseSymbols,
    )
    .option('--info', 'hkex and krex: add board lot, spread table and tick size from the ticker info')
    .action(lazyAction(() => import('./marketAction.js'), 'showMarketQuotes'))
}

function parseMarket(text: string): MarketCode {
  if (text !== 'usex' && text !== 'hkex' && text !== 'krex')
    throw new InvalidArgumentError('must be a market code: usex, hkex or krex')
  return text
}

function parseSymbols(text: string): string[] {
  const symbols = text.split(',').map((item) => item.trim())
  const empty = symbols.flatMap((symbol, index) => (symbol === '' ? [index + 1] : []))
  if (empty.length > 0)
    throw new InvalidArgumentError(
      `item ${empty.join(', ')} is empty: give comma-separated symbols without stray commas, e.g. 0700,9988`,
    )
  const repeated = [...new Set(symbols.filter((symbol, index) => symbols.indexOf(symbol) !== index))]
  if (repeated.length > 0)
    throw new InvalidArgumentError(`${repeated.join(', ')} given more than once: list each symbol once`)
  return symbols
}
