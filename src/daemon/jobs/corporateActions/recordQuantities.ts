import type { CorporateActionRecord } from '@stockroute/client/api/actions/getCorporateActions.js'
import { tokenKinds } from '@stockroute/client/domain/markets.js'
import { parseUnits } from 'viem'
import type { PositionRecord } from '../../../store/index.js'

// The numbers a corporate action record gives as text: a split's ratio, quantities in base units.

/** The split ratio of a record: `params` numerator/denominator, else action_qty/holding_qty. */
export function splitRatio(
  record: Pick<CorporateActionRecord, 'params' | 'actionQty' | 'holdingQty'>,
): { numerator: bigint; denominator: bigint } | undefined {
  const numerator = positiveInteger(record.params?.numerator)
  const denominator = positiveInteger(record.params?.denominator)
  if (numerator !== undefined && denominator !== undefined) return { numerator, denominator }
  const after = decimalOrUndefined(record.actionQty)
  const before = decimalOrUndefined(record.holdingQty)
  if (after === undefined || before === undefined) return undefined
  const a = parseUnits(after, 18)
  const b = parseUnits(before, 18)
  if (a <= 0n || b <= 0n) return undefined
  const divisor = gcd(a, b)
  return { numerator: a / divisor, denominator: b / divisor }
}

function positiveInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return BigInt(value)
  if (typeof value === 'string' && /^[1-9]\d*$/.test(value)) return BigInt(value)
  return undefined
}

export function decimalOrUndefined(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? value : undefined
}

/** A record quantity (natural units) in the position token's base units. */
export function quantityOf(text: string, position: PositionRecord): bigint | undefined {
  const value = decimalOrUndefined(text)
  return value === undefined ? undefined : parseUnits(value, tokenKinds[position.tokenKind].decimals)
}

export function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a
  let y = b < 0n ? -b : b
  while (y !== 0n) [x, y] = [y, x % y]
  return x === 0n ? 1n : x
}
