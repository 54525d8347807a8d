import { StockrouteError } from '../domain/errors.js'

// The refusal of a router quote request before it is sent, and the check of its natural amount:
// light (no schema, no viem), so that a command line can check `--amount` without loading the
// client. actions/getRouterQuote.ts re-exports both.

/** Stable codes of {@link RouterQuoteParameterError}. */
export type RouterQuoteParameterErrorCode = 'INVALID_QUOTE_PARAMETER'

/**
 * A router quote request was refused before it was sent: `details.parameter` names the field,
 * `problem` says what is wrong with it and how to fix it.
 */
export class RouterQuoteParameterError extends StockrouteError {
  override name = 'RouterQuoteParameterError'
  readonly problem: string
  constructor(parameter: string, value: unknown, problem: string) {
    super({
      code: 'INVALID_QUOTE_PARAMETER' satisfies RouterQuoteParameterErrorCode,
      shortMessage: `${parameter} ${JSON.stringify(value)} ${problem}`,
      details: { parameter, value: String(value) },
    })
    this.problem = problem
  }
}

/**
 * Checks a quote amount in natural units and returns it unchanged: a plain decimal string, no sign,
 * no exponent, no separators or spaces, not zero. Throws {@link RouterQuoteParameterError}.
 *
 * @example
 * checkNaturalAmount('12.5') // '12.5'
 * checkNaturalAmount('1e3') // throws: uses exponent notation
 */
export function checkNaturalAmount(text: string, parameter = 'amountIn'): string {
  const fail = (problem: string) => new RouterQuoteParameterError(parameter, text, problem)
  if (typeof text !== 'string')
    throw fail('is not a string: pass a decimal string in natural units, e.g. "1000"')
  if (text === '') throw fail('is empty: pass a decimal string in natural units, e.g. "1000" or "0.5"')
  if (text.trim() !== text) throw fail('has surrounding whitespace: trim it')
  if (text.startsWith('-')) throw fail('is negative: a quote amount is a positive number')
  if (/^[+]?\d*\.?\d*[eE][+-]?\d+$/.test(text)) {
    throw fail('uses exponent notation: write it in plain digits (e.g. "1000", not "1e3")')
  }
  if (!/^\d+(\.\d+)?$/.test(text)) {
    throw fail(
      'is not a plain decimal in natural units: digits with an optional fractional part, no sign or separators, e.g. "1000" or "12.5"',
    )
  }
  if (/^[0.]+$/.test(text)) throw fail('is zero: quote a positive amount')
  return text
}
