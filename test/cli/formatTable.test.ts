import { describe, expect, it } from 'vitest'
import { formatLabelledRows } from '../../src/cli/formatTable.js'

describe('formatLabelledRows', () => {
  it('starts every value in the usual column when the labels fit it', () => {
    expect(
      formatLabelledRows([
        ['gas', '135339'],
        ['delivered', '3 AAPL'],
      ]),
    ).toEqual(['  gas       135339', '  delivered 3 AAPL'])
  })

  it('widens the column for a label as long as it, never running the label into its value', () => {
    expect(
      formatLabelledRows([
        ['gas', '135339'],
        ['simulation', 'simulated'],
        ['a-longer-label', 'value'],
      ]),
    ).toEqual(['  gas            135339', '  simulation     simulated', '  a-longer-label value'])
  })
})
