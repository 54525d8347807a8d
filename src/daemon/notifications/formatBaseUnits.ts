import { formatUnits } from 'viem'

/**
 * A base-unit amount (decimal text or bigint) in natural units, with at least `minFractionDigits`
 * decimals (amounts of money read better as "300.00"); exact otherwise: no digit is dropped.
 * Anything that is not a whole number is returned as it is.
 *
 * @example
 * formatBaseUnits('300000000', 6) // '300.00'
 * formatBaseUnits('1500000000000000000', 18, 0) // '1.5'
 */
export function formatBaseUnits(amount: unknown, decimals: number, minFractionDigits = 2): string {
  const text = typeof amount === 'bigint' ? amount.toString() : String(amount)
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(decimals) || decimals < 0) return text
  const natural = formatUnits(BigInt(text), decimals)
  const [whole, fraction = ''] = natural.split('.')
  const digits = Math.min(minFractionDigits, decimals)
  if (fraction.length >= digits) return natural
  return `${whole}.${fraction.padEnd(digits, '0')}`
}
