import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  availableReports,
  defaultListLimit,
  type Report,
  type ReportTable,
  renderReportHtml,
  renderReportText,
  renderTableCsv,
  runReport,
} from '../../src/report/index.js'
import { fitTable, headerOf } from '../../src/report/render/fitTable.js'
import { wrapText, wrapWords } from '../../src/report/render/wrapText.js'
import { openLedger } from '../../src/store/index.js'
import { wideValues, writeWideLedger } from './wideLedger.js'

// The terminal table of every report on a ledger of realistic widths (./wideLedger.ts: 18-decimal
// amounts, long tickers and strategy names, tx hashes, long error messages): by default no line is
// longer than 120 characters, the detail columns are named under their table, and `wide` shows
// every column and every value whole. JSON, CSV and HTML are not narrowed.

const dir = mkdtempSync(join(tmpdir(), 'stockroute-width-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const path = join(dir, 'wide.sqlite')
const now = writeWideLedger(path)
const ledger = openLedger({ path, readonly: true })
afterAll(() => ledger.close())

const reports: Report[] = availableReports().map((name) =>
  runReport(name, { ledger, now: () => now }, { limit: defaultListLimit }),
)
const named = (name: string) => {
  const report = reports.find((candidate) => candidate.name === name)
  if (!report) throw new Error(`no ${name} report`)
  return report
}
const tableOf = (report: Report, key: string) => {
  const table = report.tables.find((candidate) => candidate.key === key)
  if (!table) throw new Error(`no table ${key} in ${report.name}`)
  return table
}

/** The text of a report split in blocks: its title, then one per table (title, header, rows, hint), then the notes. */
const blocksOf = (text: string) => text.trimEnd().split('\n\n')
/** A row of an aligned table, back to its cells (columns are separated by two spaces or more). */
const cellsOf = (line: string) => line.trim().split(/ {2,}/)
/** A value as the terminal shows it whole. */
const whole = (value: unknown) =>
  value === null || value === undefined || value === '' ? '-' : String(value).replace(/[\r\n\t]+/g, ' ')

describe('terminal reports on a ledger of realistic widths', () => {
  it('has what makes lines long', () => {
    const fills = tableOf(named('fills'), 'fills').rows
    expect(fills.length).toBeGreaterThan(500)
    expect(
      fills.some((row) => row.tx_hash === wideValues.fillTxHash && row.ticker === wideValues.ticker),
    ).toBe(true)
    const executions = tableOf(named('executions'), 'executions').rows
    expect(executions.some((row) => row.reason === wideValues.reason)).toBe(true)
    expect(tableOf(named('summary'), 'run').rows[0]).toMatchObject({ kill_switch: 'halted' })
  })

  it.each(reports.map((report) => [report.name, report] as const))(
    'fits 120 columns by default, the detail columns named under their tables: %s',
    (_name, report) => {
      const text = renderReportText(report)
      expect(text.split('\n').filter((line) => line.length > 120)).toEqual([])
      const blocks = blocksOf(text)
      report.tables.forEach((table, index) => {
        const block = blocks[index + 1]?.split('\n') ?? []
        expect(block[0]).toBe(table.title)
        // The columns left out are the report's detail columns: realistic values need no more.
        const detail = table.columns.filter((column) => column.wide)
        expect(fitTable(table, { width: 120, wide: false }).hidden).toEqual(detail)
        if (table.rows.length === 0) expect(block.at(-1)).toBe('(none)')
        else if (detail.length > 0)
          expect(block.slice(-2).join('\n').replace(/\n /g, ' ')).toContain(
            `(${detail.length} more column${detail.length === 1 ? '' : 's'} with --wide: ${detail.map(headerOf).join(', ')}`,
          )
      })
    },
  )

  it.each(reports.map((report) => [report.name, report] as const))(
    'with wide, shows every column and every value whole: %s',
    (_name, report) => {
      const blocks = blocksOf(renderReportText(report, { wide: true }))
      report.tables.forEach((table, index) => {
        const [title, header, ...rows] = blocks[index + 1]?.split('\n') ?? []
        expect(title).toBe(table.title)
        expect(cellsOf(header ?? '')).toEqual(table.columns.map(headerOf))
        if (table.rows.length === 0) expect(rows).toEqual(['(none)'])
        else
          expect(rows.map(cellsOf)).toEqual(
            table.rows.map((row) => table.columns.map((column) => whole(row[column.key]))),
          )
      })
    },
  )

  it('by default shortens hashes, cuts the longest text with …, shows times to the second, and says so', () => {
    const text = renderReportText(named('executions'))
    const failed = text.split('\n').find((line) => line.includes(wideValues.ticker))
    // The long revert message is cut to the room left; the strategy is a detail column.
    expect(failed).toMatch(
      /^ *\d+ {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}31338 {2}BRK\.B-CLASS-Bs {2}sell {2}.* {2}failed {2,}simulation fail.*…$/,
    )
    expect(failed).not.toContain(wideValues.strategy)
    expect(text).toContain(
      '(2 more columns with --wide: STRATEGY, REASON CLASS; values cut with …: whole with --wide)',
    )
    const fills = renderReportText(named('fills'), { wide: true })
    expect(fills).toContain(wideValues.fillTxHash)
    expect(renderReportText(named('fills'))).not.toContain(wideValues.fillTxHash)
    // Hex in a text cell is shortened as 0x1234…abcd.
    const token = tableOf(named('pnl'), 'pnl_by_token').rows.find((row) => row.ticker === wideValues.ticker)
    const address = String(token?.token_address)
    expect(address.toLowerCase()).toBe(wideValues.token)
    expect(renderReportText(named('pnl'))).toContain(
      `${wideValues.ticker}  ${address.slice(0, 6)}…${address.slice(-4)}`,
    )
    const run = blocksOf(renderReportText(named('summary'))).find((block) => block.startsWith('Run\n')) ?? ''
    expect(run).toContain('halted')
    expect(run).toContain('operator: exchange outage')
    expect(run).not.toContain(wideValues.haltReason)
    expect(renderReportText(named('summary'), { wide: true })).toContain(wideValues.haltReason)
  })

  it('wraps the notes at the width, in both layouts', () => {
    for (const wide of [false, true]) {
      const text = renderReportText(named('executions'), { wide })
      const notes = text
        .slice(text.indexOf('\nNotes:\n') + 8)
        .trimEnd()
        .split('\n')
      expect(
        notes.every((line) => line.length <= 120 && (line.startsWith('- ') || line.startsWith('  '))),
      ).toBe(true)
      expect(notes.join(' ').replace(/ {2,}/g, ' ')).toContain(named('executions').notes[2])
    }
  })

  it('leaves JSON, CSV and HTML whole', () => {
    const fills = tableOf(named('fills'), 'fills')
    expect(renderTableCsv(fills).split('\r\n')[0]).toBe(fills.columns.map((column) => column.key).join(','))
    const html = renderReportHtml(named('fills'))
    expect(html).toContain(wideValues.fillTxHash)
    for (const column of fills.columns) expect(html).toContain(`>${column.title}`)
  })
})

/** A table of `columns` (keys a, b, c…) and rows of the given values. */
function tableWith(
  columns: readonly (Partial<ReportTable['columns'][number]> & { title: string })[],
  rows: readonly (readonly (string | number | null)[])[],
): ReportTable {
  const keyed = columns.map((column, index) => ({
    kind: 'text' as const,
    ...column,
    key: String.fromCharCode(97 + index),
  }))
  return {
    key: 't',
    title: 'T',
    columns: keyed,
    rows: rows.map((values) =>
      Object.fromEntries(keyed.map((column, index) => [column.key, values[index] ?? null])),
    ),
  }
}

const reportOf = (table: ReportTable): Report => ({
  name: 'fills',
  generatedAt: '2026-11-25T10:00:00.000Z',
  filter: {},
  tables: [table],
  notes: [],
})
/** The lines of a one-table report's table: header lines, rows, hint. */
const linesOf = (table: ReportTable, options: { wide?: boolean; width?: number } = {}) =>
  renderReportText(reportOf(table), options).trimEnd().split('\n').slice(3)

describe('fitting a table', () => {
  it('leaves a table that fits as it is', () => {
    const table = tableWith(
      [{ title: 'Name' }, { title: 'Count', kind: 'integer' }],
      [
        ['alpha', 3],
        ['b', 12],
      ],
    )
    expect(linesOf(table)).toEqual(['NAME   COUNT', 'alpha      3', 'b         12'])
    expect(linesOf(table, { wide: true })).toEqual(linesOf(table))
  })

  it('leaves the detail columns to --wide and names them', () => {
    const table = tableWith(
      [{ title: 'Name' }, { title: 'Fee', kind: 'decimal', wide: true }, { title: 'Tx hash', wide: true }],
      [['alpha', '0.5', '0xab']],
    )
    expect(linesOf(table)).toEqual(['NAME', 'alpha', '(2 more columns with --wide: FEE, TX HASH)'])
    expect(linesOf(table, { wide: true })).toEqual(['NAME   FEE  TX HASH', 'alpha  0.5  0xab'])
  })

  it('shortens long hex and shows times to the second, unless wide', () => {
    const hash = `0x${'ab12'.repeat(16)}`
    const table = tableWith(
      [{ title: 'Tx' }, { title: 'At', kind: 'time' }],
      [[`mined ${hash}`, '2026-11-25T10:00:05.123Z']],
    )
    expect(linesOf(table)).toEqual([
      'TX                 AT',
      'mined 0xab12…ab12  2026-11-25T10:00:05Z',
      '(values cut with …: whole with --wide)',
    ])
    expect(linesOf(table, { wide: true })[1]).toBe(`mined ${hash}  2026-11-25T10:00:05.123Z`)
  })

  it('gives long headers two lines, then cuts the widest text, never a number', () => {
    const table = tableWith(
      [
        { title: 'Reason' },
        { title: 'Unrealized PnL (now)', kind: 'decimal' },
        { title: 'Note' },
        { title: 'Amount', kind: 'decimal' },
      ],
      [['x'.repeat(30), '-1.5', 'y'.repeat(20), '123456789.123456789']],
    )
    // 30 + 20 + 19 + 10 + 3 gaps is 85: the header takes two lines (the PnL column 20 → 10), then
    // the two text columns are cut, the wider first, to 12 and 13.
    expect(linesOf(table, { width: 60 })).toEqual([
      '              UNREALIZED',
      'REASON         PNL (NOW)  NOTE                        AMOUNT',
      `${'x'.repeat(11)}…        -1.5  ${'y'.repeat(12)}…  123456789.123456789`,
      '(values cut with …: whole with --wide)',
    ])
  })

  it('leaves out columns from the right when even the narrowest layout is too wide, and names them', () => {
    const table = tableWith(
      [
        { title: 'Id', kind: 'integer' },
        { title: 'A', kind: 'decimal' },
        { title: 'B', kind: 'decimal' },
        { title: 'C', kind: 'decimal', wide: true },
        { title: 'D', kind: 'decimal' },
      ],
      [[1, '1'.repeat(30), '2'.repeat(30), '3', '4'.repeat(30)]],
    )
    const lines = linesOf(table, { width: 80 })
    expect(lines).toEqual([
      `ID  ${'A'.padStart(30)}  ${'B'.padStart(30)}`,
      ` 1  ${'1'.repeat(30)}  ${'2'.repeat(30)}`,
      '(2 more columns with --wide: C, D)',
    ])
  })
})

describe('wrapText', () => {
  it('breaks at spaces, indents the lines after the first, and breaks a word longer than a line', () => {
    expect(wrapText('- a note that goes on', 12, '  ')).toEqual(['- a note', '  that goes', '  on'])
    expect(wrapText('short', 12, '  ')).toEqual(['short'])
    expect(wrapText(`x ${'y'.repeat(25)}`, 10, '  ')).toEqual([
      'x',
      `  ${'y'.repeat(8)}`,
      `  ${'y'.repeat(8)}`,
      `  ${'y'.repeat(8)}`,
      '  y',
    ])
    expect(wrapWords(['(2 more columns:', 'TX HASH,', 'FEE)'], 20, ' ')).toEqual([
      '(2 more columns:',
      ' TX HASH, FEE)',
    ])
  })
})
