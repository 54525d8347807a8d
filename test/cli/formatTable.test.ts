import { describe, expect, it } from 'vitest'
import { formatFittedTable, formatLabelledRows, formatTable } from '../../src/cli/formatTable.js'

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

describe('formatFittedTable', () => {
  const hash = `0x${'a5a2'.repeat(16)}`
  const columns = [
    { header: 'ID', align: 'right' as const },
    { header: 'CREATED', time: true as const },
    { header: 'STRATEGY', wide: true as const },
    { header: 'REASON' },
  ]
  const rows = [
    ['7', '2026-11-28T17:26:40.154Z', 'dca-aapl-alpha', `${'settled in block 73 by '.repeat(5)}${hash}`],
  ]

  it('fits 120 columns: detail columns left out, times to the second, text cut, and says what --wide adds', () => {
    const lines = formatFittedTable(columns, rows, { wide: false }).split('\n')
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120)
    expect(lines[0]).toBe(`ID  CREATED${' '.repeat(15)}REASON`)
    expect(lines[1]).toMatch(/^ 7 {2}2026-11-28T17:26:40Z {2}settled in block 73 by .*s…$/)
    expect(lines.at(-1)).toBe('(1 more column with --wide: STRATEGY; values cut with …: whole with --wide)')
  })

  it('never leaves half of a shortened hex id before the cut', () => {
    // 115 characters of text then the id: cut inside 0xa5a2…a5a2, the id goes whole.
    const reason = `${'x'.repeat(80)} by ${hash}`
    const [, row] = formatFittedTable([{ header: 'ID' }, { header: 'REASON' }], [['1', reason]], {}).split(
      '\n',
    )
    expect(row).toBe(`1   ${'x'.repeat(80)} by 0xa5a2…a5a2`)
    const narrow = `${'x'.repeat(108)} by ${hash}`
    const [, cut] = formatFittedTable([{ header: 'ID' }, { header: 'REASON' }], [['1', narrow]], {}).split(
      '\n',
    )
    expect(cut).toBe(`1   ${'x'.repeat(108)} by…`)
  })

  it('with wide: every column and value whole', () => {
    const lines = formatFittedTable(columns, rows, { wide: true }).split('\n')
    expect(lines[0]).toBe(`ID  CREATED${' '.repeat(19)}STRATEGY${' '.repeat(8)}REASON`)
    expect(lines[1]).toContain('2026-11-28T17:26:40.154Z  dca-aapl-alpha')
    expect(lines[1]).toContain(hash)
    expect(lines).toHaveLength(2)
  })
})

describe('values as data', () => {
  it('formatTable and formatLabelledRows escape line breaks and controls in cells; fitted tables as reports do', () => {
    expect(
      formatTable([{ header: 'ID' }, { header: 'REASON' }], [['1', 'a\r\nX-Injected: 1\u001b[31m']]),
    ).toBe(['ID  REASON', '1   a\\r\\nX-Injected: 1\\u001b[31m'].join('\n'))
    expect(formatLabelledRows([['reason', 'off\nX: 1']])).toEqual(['  reason    off\\nX: 1'])
    // Reports' layout: line breaks as a space, every other control escaped.
    expect(
      formatFittedTable([{ header: 'REASON' }], [['a\r\nX-Injected: 1\u001b[31m\u202e']], { wide: true }),
    ).toBe(['REASON', 'a X-Injected: 1\\u001b[31m\\u202e'].join('\n'))
  })
})
