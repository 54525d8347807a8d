import type { RepositoryContext } from './context.js'

/** The open positions of one chain and asset, valued at one instant (the dashboard's equity curve). */
export type EquityMark = {
  chainId: number
  assetToken: string
  assetDecimals: number
  atMs: number
  /** Asset base units paid for the open positions (signed). */
  costBasis: bigint
  /** Asset base units they were worth: at the market price, or at cost when there was none. */
  marketValue: bigint
  /** Open positions marked, and how many of them had no market price (counted at cost). */
  positions: number
  unpriced: number
}

/** Marks of the open positions over time, written by the daemon on its market-data ticks. */
export type EquityMarksRepository = {
  /** Records marks taken at one instant (one per chain and asset). */
  record(marks: readonly EquityMark[]): void
  /**
   * Marks since `sinceMs` (inclusive), oldest first; of one chain when given.
   *
   * @example
   * ledger.equityMarks.list({ sinceMs: Date.now() - 86_400_000 })
   */
  list(filter?: { sinceMs?: number | undefined; chainId?: number | undefined }): EquityMark[]
}

type MarkRow = {
  chain_id: number
  asset_token: string
  asset_decimals: number
  at_ms: number
  cost_basis: string
  market_value: string
  positions: number
  unpriced: number
}

export function createEquityMarksRepository({ db }: RepositoryContext): EquityMarksRepository {
  const insert = db.prepare<[MarkRow]>(
    `INSERT OR REPLACE INTO equity_marks (chain_id, asset_token, asset_decimals, at_ms, cost_basis, market_value,
       positions, unpriced)
     VALUES (@chain_id, @asset_token, @asset_decimals, @at_ms, @cost_basis, @market_value, @positions, @unpriced)`,
  )
  const select = db.prepare<[number, number | null, number | null], MarkRow>(
    `SELECT * FROM equity_marks WHERE at_ms >= ? AND (? IS NULL OR chain_id = ?) ORDER BY at_ms, chain_id, asset_token`,
  )
  const recordAll = db.transaction((marks: readonly EquityMark[]) => {
    for (const mark of marks)
      insert.run({
        chain_id: mark.chainId,
        asset_token: mark.assetToken,
        asset_decimals: mark.assetDecimals,
        at_ms: mark.atMs,
        cost_basis: mark.costBasis.toString(),
        market_value: mark.marketValue.toString(),
        positions: mark.positions,
        unpriced: mark.unpriced,
      })
  })
  return {
    record: (marks) => recordAll.immediate(marks),
    list(filter = {}) {
      const chainId = filter.chainId ?? null
      return select.all(filter.sinceMs ?? 0, chainId, chainId).map((row) => ({
        chainId: row.chain_id,
        assetToken: row.asset_token,
        assetDecimals: row.asset_decimals,
        atMs: row.at_ms,
        costBasis: BigInt(row.cost_basis),
        marketValue: BigInt(row.market_value),
        positions: row.positions,
        unpriced: row.unpriced,
      }))
    },
  }
}
