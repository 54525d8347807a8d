import type Database from 'better-sqlite3'

// The equity curve's first points: the open positions at cost right after each recent fill, from
// the ledger alone (the daemon's marks come once a minute; a fill is on the curve at once). Read
// backwards from the cost now, so only the recent steps are read, never the whole ledger.

/** The open positions of one chain and asset at cost right after a fill. */
export type CostAfterFill = { atMs: number; costBasis: bigint }

/** A step of the position fold after the first recent fill: what it added to the cost. */
type StepRow = {
  seq: number
  chain_id: number
  asset_token: string | null
  /** A fill's; null for an adjustment. */
  recorded_at_ms: number | null
  is_buy: number | null
  amount_in: string | null
  amount_out: string | null
  realized_pnl: string
}

/**
 * Per chain and asset (`${chainId}:${assetToken}`, the keys of `costNow`), the cost of the open
 * positions right after each live fill the daemon recorded since `sinceMs`, oldest first. It is the
 * cost now less what each later step added, by the identity the daily figures use (cost = bought −
 * sold + realized): a fill adds what it realized and the asset it paid (buy) or less the asset it
 * received (sell), an adjustment adds what it realized. So the last point is the cost now when no
 * adjustment came after it. Like those figures, it misses what a delisting's compensation or a
 * transfer moves at cost (not in the identity); points before such a step stay right, as the step's
 * error cancels out of the cost now. Assets not in `costNow` are left out.
 *
 * @example
 * const points = costAfterFills(ledger.database, { sinceMs: Date.now() - 86_400_000, costNow })
 * points.get('31337:0xA0b8…') // [{ atMs: 1764345600123, costBasis: 905_544_640n }]
 */
export function costAfterFills(
  database: Database.Database,
  parameters: { sinceMs: number; costNow: ReadonlyMap<string, bigint> },
): Map<string, CostAfterFill[]> {
  const { sinceMs, costNow } = parameters
  const first = database
    .prepare<[number], { seq: number | null }>(
      'SELECT min(seq) AS seq FROM fills WHERE recorded_at_ms >= ? AND reversed_at_ms IS NULL',
    )
    .get(sinceMs)?.seq
  const points = new Map<string, CostAfterFill[]>()
  if (first === null || first === undefined) return points
  const cost = new Map(costNow)
  for (const step of stepsSince(database, first)) {
    const key = `${step.chain_id}:${step.asset_token}`
    const after = cost.get(key)
    if (after === undefined) continue
    if (step.recorded_at_ms !== null && step.recorded_at_ms >= sinceMs) {
      const list = points.get(key) ?? []
      list.push({ atMs: step.recorded_at_ms, costBasis: after })
      points.set(key, list)
    }
    cost.set(key, after - costAddedBy(step))
  }
  for (const list of points.values()) list.sort((a, b) => a.atMs - b.atMs)
  return points
}

/** The live fills and the adjustments from `seq` on, newest first (an adjustment's asset: its position's). */
function stepsSince(database: Database.Database, seq: number): StepRow[] {
  return database
    .prepare<[number, number], StepRow>(
      `SELECT seq, chain_id, asset_token, recorded_at_ms, is_buy, amount_in, amount_out, realized_pnl
         FROM fills WHERE seq >= ? AND reversed_at_ms IS NULL
       UNION ALL
       SELECT a.seq, a.chain_id, coalesce(a.asset_token, p.asset_token), NULL, NULL, NULL, NULL, a.realized_pnl
         FROM position_adjustments a
         LEFT JOIN positions p ON p.chain_id = a.chain_id AND p.token_address = a.token_address
         WHERE a.seq > ?
       ORDER BY seq DESC`,
    )
    .all(seq, seq)
}

/** What a step added to the open positions' cost, asset base units. */
function costAddedBy(step: StepRow): bigint {
  const realized = BigInt(step.realized_pnl)
  if (step.is_buy === null) return realized
  return step.is_buy === 1
    ? realized + BigInt(step.amount_in ?? '0')
    : realized - BigInt(step.amount_out ?? '0')
}
