import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, describe, expect, it } from 'vitest'
import {
  availableReports,
  csvTargetsOf,
  type Report,
  renderReportCsv,
  renderReportHtml,
  renderReportJson,
  renderReportPage,
  renderReportText,
  renderTableCsv,
  runReport,
} from '../../src/report/index.js'
import { chartOfTable } from '../../src/report/render/chartOfTable.js'
import { uplotSource } from '../../src/report/render/uplotSource.js'
import { openLedger } from '../../src/store/index.js'

// The renderers on every report this build makes (over a small ledger written here) and on a
// report of awkward values: CSV read back by a standard parser gives the JSON's rows, the HTML page
// is one file that fetches nothing, and the terminal table lines its columns up.

const dir = mkdtempSync(join(tmpdir(), 'stockroute-render-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A ledger with a few executions and their events, at fixed times (no fills: no chain needed). */
function smallLedger() {
  let clock = Date.parse('2026-11-25T10:00:00Z')
  const ledger = openLedger({ path: join(dir, 'small.sqlite'), now: () => clock })
  const made = (intentId: string, ticker: string, strategy?: string) =>
    ledger.executions.createExecution({
      intentId,
      chainId: 31337,
      ticker,
      exchange: ticker === '0700' ? 1 : 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
      strategy,
    })
  const first = made('render-1', 'AAPL', 'dca')
  clock += 40
  ledger.executions.transition(first.id, 'intent', 'quoting', 'quote requested')
  clock += 35
  ledger.executions.transition(first.id, 'quoting', 'quoted', 'quote received')
  const second = made('render-2', '0700')
  clock += 120
  ledger.executions.transition(second.id, 'intent', 'rejected', 'risk limit: daily notional, "quoted", 1,000')
  const third = made('render-3', 'TSLA', 'dca')
  ledger.executions.transition(third.id, 'intent', 'failed', 'stopped by an error: line one\nline two')
  return ledger
}

const awkward: Report = {
  name: 'executions',
  generatedAt: '2026-11-25T10:00:00.000Z',
  filter: { chainId: 31337, ticker: 'A&B' },
  tables: [
    {
      key: 'odd',
      title: 'Odd <values> & "quotes"',
      columns: [
        { key: 'text', title: 'Text', kind: 'text' },
        { key: 'count', title: 'Count', kind: 'integer' },
        { key: 'amount', title: 'Amount', kind: 'decimal', unit: 'USDC' },
        { key: 'delay', title: 'Delay', kind: 'ms' },
      ],
      rows: [
        { text: 'comma, "quote"\r\nnew line', count: 3, amount: '-1234.5', delay: 41 },
        { text: ' padded ', count: 0, amount: null, delay: null },
        { text: '<script>alert(1)</script> 香港', count: 12, amount: '0.000001', delay: 7 },
        { text: null, count: null, amount: '1e3 is text', delay: 0 },
      ],
    },
    { key: 'empty', title: 'Nothing here', columns: [{ key: 'a', title: 'A', kind: 'text' }], rows: [] },
  ],
  notes: ['a note with <angle> brackets & an ampersand'],
}

const ledger = smallLedger()
afterAll(() => ledger.close())
const reports: Report[] = [
  awkward,
  ...availableReports().map((name) =>
    runReport(name, { ledger, now: () => Date.parse('2026-11-25T11:00:00Z') }, {}),
  ),
]

/** What a JSON row reads as in CSV: every value as text, null as an empty field. */
const asCsvRecord = (row: Readonly<Record<string, unknown>>, keys: readonly string[]) =>
  Object.fromEntries(
    keys.map((key) => [key, row[key] === null || row[key] === undefined ? '' : String(row[key])]),
  )

describe('renderers', () => {
  it('makes a report for every name this build has', () => {
    expect(availableReports()).toEqual(expect.arrayContaining(['executions', 'fills', 'latency']))
    const executions = reports.find((report) => report !== awkward && report.name === 'executions')
    expect(executions?.tables[0]?.rows).toEqual([
      { state: 'failed', executions: 1, share_pct: '33.33' },
      { state: 'quoted', executions: 1, share_pct: '33.33' },
      { state: 'rejected', executions: 1, share_pct: '33.33' },
    ])
    const latency = reports.find((report) => report.name === 'latency')
    expect(latency?.tables[0]?.rows).toEqual([
      {
        chain_id: 31337,
        stage: 'intent → quote',
        samples: 1,
        p50_ms: 75,
        p90_ms: 75,
        p99_ms: 75,
        max_ms: 75,
        mean_ms: 75,
      },
    ])
  })

  it.each(
    reports.map(
      (report) => [`${report.name}${report === awkward ? ' (awkward values)' : ''}`, report] as const,
    ),
  )('CSV read back by csv-parse gives the JSON rows, table by table: %s', (_label, report) => {
    const json = JSON.parse(renderReportJson(report)) as Report
    expect(json).toEqual(JSON.parse(JSON.stringify(report)))
    const csv = renderReportCsv(report)
    expect([...csv.keys()]).toEqual(json.tables.map((table) => table.key))
    for (const table of json.tables) {
      const text = csv.get(table.key) ?? ''
      expect(text).toBe(renderTableCsv(table))
      // RFC 4180: CRLF after every record, the header first.
      expect(text.endsWith('\r\n')).toBe(true)
      const keys = table.columns.map((column) => column.key)
      const [header, ...records] = parse(text, { relax_column_count: false }) as string[][]
      expect(header).toEqual(keys)
      expect(records.map((record) => Object.fromEntries(keys.map((key, i) => [key, record[i]])))).toEqual(
        table.rows.map((row) => asCsvRecord(row, keys)),
      )
    }
  })

  it.each(reports.map((report) => [report.name, report] as const))(
    'HTML is one page with nothing external, every table and note in it: %s',
    (_label, report) => {
      const page = renderReportPage(report)
      expect(page.startsWith('<!doctype html>')).toBe(true)
      expect(page).toContain(renderReportHtml(report))
      // The chart library is inlined (uPlot's build and stylesheet), and a CSP forbids every fetch.
      const { script, style } = uplotSource()
      expect(page).toContain(`<script>${script}</script>`)
      expect(page).toContain(`<style>${style}</style>`)
      expect(page).toContain(
        `content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"`,
      )
      // Nothing fetched when viewed: outside the inlined code, no URL, link, image, frame or import.
      const markup = page.replace(/<script>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '')
      expect(markup).not.toMatch(/https?:|\/\/[a-z]|<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i)
      expect(page).not.toMatch(/<script[^>]*\bsrc=|<link|@import|url\(\s*['"]?https?:/i)
      // One chart container per chartable table.
      expect(page.match(/<div class="sr-chart"/g)?.length ?? 0).toBe(
        report.tables.filter((table) => chartOfTable(table) !== undefined).length,
      )
      for (const table of report.tables) expect(page).toContain(`data-table="${table.key}"`)
      expect(page.match(/<tr>/g)?.length).toBe(
        report.tables.reduce((sum, table) => sum + 1 + Math.max(table.rows.length, 1), 0),
      )
    },
  )

  it('escapes HTML and draws a chart for a summary table', () => {
    const html = renderReportHtml(awkward)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; 香港')
    expect(html).not.toContain('<script>')
    expect(html).toContain('Odd &lt;values&gt; &amp; &quot;quotes&quot;')
    expect(html).toContain('<div class="sr-chart" role="img"')
    expect(html).toContain('data-chart="{&quot;title&quot;')
    expect(html).toContain('a note with &lt;angle&gt; brackets &amp; an ampersand')
    const latency = reports.find((report) => report.name === 'latency')
    if (!latency) throw new Error('no latency report')
    expect(renderReportHtml(latency).match(/data-chart=/g)).toHaveLength(1)
  })

  it('renders a terminal table: aligned columns, numbers right, a missing value as -, long text cut', () => {
    const text = renderReportText(awkward)
    const lines = text.split('\n')
    expect(lines[0]).toBe('executions report, generated 2026-11-25T10:00:00.000Z (chain 31337, ticker A&B)')
    const header = lines.indexOf('TEXT                          COUNT  AMOUNT USDC  DELAY MS')
    expect(header).toBeGreaterThan(0)
    expect(lines.slice(header + 1, header + 5)).toEqual([
      'comma, "quote" new line           3      -1234.5        41',
      ' padded                           0            -         -',
      '<script>alert(1)</script> 香港     12     0.000001         7',
      '-                                 -  1e3 is text         0',
    ])
    expect(text).toContain('Nothing here\nA\n(none)')
    expect(text).toContain('Notes:\n- a note with <angle> brackets & an ampersand')
    const listing = reports.find((report) => report !== awkward && report.name === 'executions')
    if (!listing) throw new Error('no executions report')
    const longest = Math.max(
      ...renderReportText(listing)
        .split('\n')
        .slice(0, -6)
        .map((line) => line.length),
    )
    expect(longest).toBeLessThan(200)
  })

  it('maps a report of several tables to one CSV file per table', () => {
    expect(csvTargetsOf(awkward, 'out/report.csv')).toEqual([
      { tableKey: 'odd', path: 'out/report-odd.csv' },
      { tableKey: 'empty', path: 'out/report-empty.csv' },
    ])
    expect(csvTargetsOf({ tables: awkward.tables.slice(0, 1) }, 'odd.csv')).toEqual([
      { tableKey: 'odd', path: 'odd.csv' },
    ])
  })
})
