import type Database from 'better-sqlite3'
import type { Report, ReportColumn } from './types.js'

/**
 * The report with each asset named: every table that has `chain_id` and `asset_token` columns gets
 * an `asset` column (the asset's symbol, as the engine recorded it in `chain_assets`; null for an
 * asset it never saw) in place of the address, which moves to the end as `Asset token`. Of a report
 * over several ledgers, an asset takes the symbol of the first ledger that recorded one.
 *
 * @example
 * nameAssets(pnlReport(context, {}), ledger.database).tables[0].rows[0].asset // 'USDC'
 */
export function nameAssets(
  report: Report,
  databases: Database.Database | readonly Database.Database[],
): Report {
  const symbols = new Map<string, string>()
  const all: readonly Database.Database[] = Array.isArray(databases)
    ? databases
    : [databases as Database.Database]
  for (const database of all)
    for (const row of database
      .prepare<[], { chain_id: number; address: string; symbol: string }>(
        'SELECT chain_id, address, symbol FROM chain_assets',
      )
      .all()) {
      const key = `${row.chain_id}:${row.address.toLowerCase()}`
      if (!symbols.has(key)) symbols.set(key, row.symbol)
    }
  return {
    ...report,
    tables: report.tables.map((table) => {
      const keys = new Set(table.columns.map((column) => column.key))
      if (!keys.has('chain_id') || !keys.has('asset_token') || keys.has('asset')) return table
      const columns: ReportColumn[] = table.columns.flatMap((column) =>
        column.key === 'asset_token' ? [{ key: 'asset', title: 'Asset', kind: 'text' as const }] : [column],
      )
      columns.push({ key: 'asset_token', title: 'Asset token', kind: 'text', wide: true })
      return {
        ...table,
        columns,
        rows: table.rows.map((row) => ({
          ...row,
          asset:
            typeof row.asset_token === 'string'
              ? (symbols.get(`${row.chain_id}:${row.asset_token.toLowerCase()}`) ?? null)
              : null,
        })),
      }
    }),
  }
}
