import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'

/**
 * A base-unit amount (decimal text or bigint) in natural units as a person reads it, by the rule of
 * the CLI, the reports and the dashboard (formatTokenAmount: exact up to 6 decimals, else rounded to
 * 6 fraction digits), with at least `minFractionDigits` decimals (amounts of money read better as
 * "300.00"). Anything that is not a whole number is returned as it is. The event's data keeps the
 * exact base units for programs.
 *
 * @example
 * formatBaseUnits('300000000', 6) // '300.00'
 * formatBaseUnits('1500000000000000000', 18, 0) // '1.5'
 * formatBaseUnits('39978310249750249751', 18) // '39.97831'
 */
export function formatBaseUnits(amount: unknown, decimals: number, minFractionDigits = 2): string {
  const text = typeof amount === 'bigint' ? amount.toString() : String(amount)
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(decimals) || decimals < 0) return text
  const natural = formatTokenAmount(BigInt(text), decimals)
  const [whole, fraction = ''] = natural.split('.')
  const digits = Math.min(minFractionDigits, decimals)
  if (fraction.length >= digits) return natural
  return `${whole}.${fraction.padEnd(digits, '0')}`
}
