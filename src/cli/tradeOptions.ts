import {
  checkNaturalAmount,
  RouterQuoteParameterError,
} from '@stockroute/client/api/routerQuoteParameterError.js'
import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { type ExchangeCode, isExchangeCode } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { type Command, InvalidArgumentError } from 'commander'
import { parseChainId, parseTicker } from './options.js'

// The options of commands that name one trade (`stockroute quote`, `stockroute swap`): the same
// flags, parsed and checked once, here.

/** The trade a command's flags name. */
export type TradeOptions = {
  chain: number
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  amount: string
  amountType?: 'stablecoin' | 'stocktoken'
}

/**
 * Adds `--chain`, `--ticker`, `--exchange`, `--side`, `--amount` and `--amount-type` to a command.
 * Call {@link checkTradeOptions} in its action for the rules that span several flags.
 *
 * @example
 * withTradeOptions(program.command('quote')).action((options: TradeOptions, command) => checkTradeOptions(options, command))
 */
export function withTradeOptions(command: Command): Command {
  return command
    .requiredOption('--chain <id>', 'chain id (list them with `stockroute chains`)', parseChainId)
    .requiredOption(
      '--ticker <ticker>',
      'StockToken ticker, or ShareToken ticker with the s suffix (AAPLs)',
      parseTicker,
    )
    .requiredOption('--exchange <code>', 'exchange code: 0 (US), 1 (HK) or 3 (KR)', parseExchange)
    .requiredOption('--side <side>', 'buy or sell', parseSide)
    .requiredOption(
      '--amount <amount>',
      'natural units: the asset to spend on a stablecoin buy, else the share quantity (e.g. 1000, 0.5)',
      parseAmount,
    )
    .option(
      '--amount-type <type>',
      'buys only: stablecoin (--amount is asset, the default) or stocktoken (--amount is shares)',
      parseAmountType,
    )
}

/** Refuses flag combinations no single parser sees (a stablecoin sell), with commander's error. */
export function checkTradeOptions(options: TradeOptions, command: Command): void {
  if (options.side === 'sell' && options.amountType === 'stablecoin') {
    command.error(
      "error: --amount-type stablecoin applies to buys only: a sell's --amount is a share quantity (omit --amount-type)",
    )
  }
}

export function parseExchange(text: string): ExchangeCode {
  const code = /^\d$/.test(text) ? Number(text) : Number.NaN
  if (!isExchangeCode(code))
    throw new InvalidArgumentError('must be an exchange code: 0 (US), 1 (HK) or 3 (KR)')
  return code
}

export function parseSide(text: string): 'buy' | 'sell' {
  if (text !== 'buy' && text !== 'sell') throw new InvalidArgumentError('must be buy or sell')
  return text
}

export function parseAmount(text: string): string {
  try {
    return checkNaturalAmount(text, '--amount')
  } catch (error) {
    if (error instanceof RouterQuoteParameterError) throw new InvalidArgumentError(`It ${error.problem}.`)
    throw error
  }
}

export function parseAmountType(text: string): 'stablecoin' | 'stocktoken' {
  if (text !== 'stablecoin' && text !== 'stocktoken') {
    throw new InvalidArgumentError(
      'must be stablecoin (--amount is asset) or stocktoken (--amount is shares)',
    )
  }
  return text
}

/** A limit price in the market's currency: a positive plain decimal with at most 8 decimals. */
export function parseLimitPrice(text: string): Price {
  const problem =
    "must be a positive price in the market's currency (USD, HKD or KRW), a plain decimal with at most 8 decimals such as 418.6"
  let price: Price
  try {
    price = parsePrice(text)
  } catch (error) {
    if (error instanceof DomainRuleError) throw new InvalidArgumentError(problem)
    throw error
  }
  if (price <= 0n) throw new InvalidArgumentError(problem)
  return price
}

/** The error code of an intent id reused for another trade (`stockroute swap --intent-id`). */
export const intentIdReusedCode = 'INTENT_ID_REUSED'

/** An intent id: 1 to 200 visible characters, no spaces (it is the idempotency key of the trade). */
export function parseIntentId(text: string): string {
  if (!/^[\x21-\x7e]{1,200}$/.test(text))
    throw new InvalidArgumentError(
      'must be 1 to 200 visible ASCII characters without spaces, e.g. buy-aapl-2026-11-22',
    )
  return text
}
