import { plural } from '@stockroute/client/domain/plural.js'
import { expect, it } from 'vitest'

it('uses the singular for exactly one, the plural otherwise (zero included)', () => {
  expect(plural(1, 'execution')).toBe('1 execution')
  expect(plural(0, 'execution')).toBe('0 executions')
  expect(plural(2, 'execution')).toBe('2 executions')
  expect(plural(1, 'strategy', 'strategies')).toBe('1 strategy')
  expect(plural(2, 'strategy', 'strategies')).toBe('2 strategies')
  expect(plural(1n, 'fill')).toBe('1 fill')
  expect(plural(12n, 'discrepancy', 'discrepancies')).toBe('12 discrepancies')
})
