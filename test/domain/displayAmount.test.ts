import { formatDecimalForDisplay, formatTokenAmount } from '@stockroute/client/domain/displayAmount.js'
import * as formatTokenAmountModule from '@stockroute/client/domain/formatTokenAmount.js'
import fc from 'fast-check'
import { formatUnits } from 'viem'
import { describe, expect, it } from 'vitest'

// The display rule on decimal strings (what the API's JSON carries, what the dashboard shows). The
// expected values are worked by hand from the rule: exact up to 6 fraction digits, else rounded half
// away from zero at the 6th, dust keeps 6 significant digits, trailing zeros trimmed.

describe('formatDecimalForDisplay', () => {
  it('rounds 18-digit noise half away from zero to 6 fraction digits (the dashboard’s day line)', () => {
    // 39.978310|249… : the 7th digit is 2, kept as is; trailing 0 trimmed.
    expect(formatDecimalForDisplay('39.978310249750249751')).toBe('39.97831')
    // 40018.288559|999… : the 7th digit is 9, rounds up to .288560.
    expect(formatDecimalForDisplay('40018.288559999999999445')).toBe('40018.28856')
    // .9999995 rounds up into the whole part.
    expect(formatDecimalForDisplay('0.9999995')).toBe('1')
    // Exactly half: away from zero, on both sides.
    expect(formatDecimalForDisplay('2.0000005')).toBe('2.000001')
    expect(formatDecimalForDisplay('-2.0000005')).toBe('-2.000001')
    // Below half: down, to a whole number.
    expect(formatDecimalForDisplay('-7.0000004999')).toBe('-7')
  })

  it('shows up to 6 fraction digits exactly, trimming trailing zeros', () => {
    expect(formatDecimalForDisplay('912.63172')).toBe('912.63172')
    expect(formatDecimalForDisplay('0.123456')).toBe('0.123456')
    expect(formatDecimalForDisplay('-1.50')).toBe('-1.5')
    expect(formatDecimalForDisplay('1000')).toBe('1000')
    expect(formatDecimalForDisplay('1000.000000000000000000')).toBe('1000')
    expect(formatDecimalForDisplay('0')).toBe('0')
    expect(formatDecimalForDisplay('-0.000')).toBe('0')
  })

  it('never shows a non-zero amount as 0: dust keeps 6 significant digits', () => {
    // 0.000000012345678901: 12345678901 → 123457 (at the 6th significant digit, 7th is 7: up).
    expect(formatDecimalForDisplay('0.000000012345678901')).toBe('0.0000000123457')
    expect(formatDecimalForDisplay('-0.000000000000000001')).toBe('-0.000000000000000001')
    expect(formatDecimalForDisplay('0.00000049')).toBe('0.00000049')
  })

  it('refuses a text that is not a plain decimal', () => {
    for (const text of ['', '1e-7', '+1', ' 1', '1.', '.5', '1,5', 'NaN', '–'])
      expect(() => formatDecimalForDisplay(text), text).toThrow(RangeError)
  })

  it('reads a decimal string as formatTokenAmount reads its base units (same rule)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
        fc.integer({ min: 0, max: 36 }),
        (value, decimals) => {
          expect(formatDecimalForDisplay(formatUnits(value, decimals))).toBe(
            formatTokenAmount(value, decimals),
          )
        },
      ),
    )
  })

  it('is the one the client re-exports beside formatAssetAmount', () => {
    expect(formatTokenAmountModule.formatDecimalForDisplay).toBe(formatDecimalForDisplay)
    expect(formatTokenAmountModule.formatTokenAmount).toBe(formatTokenAmount)
  })
})
