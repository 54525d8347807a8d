import type { Ledger, LedgerEvent } from '../../store/index.js'

// The daily summary: one `daily_summary` event per day, computed from the ledger (executions,
// fills, traded amounts per chain and asset) and sent to the sinks subscribed to `daily_summary`.

/** Asset amounts of one chain and asset over the day, base units as decimal strings. */
export type DailySummaryNotional = {
  chainId: number
  assetToken: string
  assetDecimals: number
  /** Paid for buys (fees included). */
  bought: string
  /** Received for sells (net of fees). */
  sold: string
  fees: string
  fills: number
}

/** The `data` of a `daily_summary` event. */
export type DailySummaryData = {
  /** The UTC date of the window's start, `YYYY-MM-DD`. */
  day: string
  fromMs: number
  toMs: number
  /** Executions created in the window, by their state now. */
  executions: { total: number; byState: Record<string, number> }
  /** Fills recorded in the window and still standing; fills reversed (by a reorg) in the window. */
  fills: { count: number; reversed: number }
  notional: DailySummaryNotional[]
}

type FillRow = {
  chain_id: number
  asset_token: string
  asset_decimals: number
  is_buy: number
  amount_in: string
  amount_out: string
  fee_amount: string
}

/**
 * Computes the summary of `[dayStartMs, dayEndMs)` (by the ledger clock's record times) and appends
 * it as a `daily_summary` event, once: when the window already has its summary (a second run of the
 * job, a restart), that event is returned and nothing is appended.
 *
 * @example
 * const dayEndMs = new Date().setUTCHours(0, 0, 0, 0)
 * appendDailySummary(ledger, { dayStartMs: dayEndMs - 86_400_000, dayEndMs })
 */
export function appendDailySummary(
  ledger: Ledger,
  window: { dayStartMs: number; dayEndMs: number },
): LedgerEvent {
  const { dayStartMs, dayEndMs } = window
  if (!Number.isSafeInteger(dayStartMs) || !Number.isSafeInteger(dayEndMs) || dayEndMs <= dayStartMs)
    throw new RangeError(
      `appendDailySummary: the window must be whole milliseconds with dayStartMs < dayEndMs (got ${dayStartMs} → ${dayEndMs})`,
    )
  const db = ledger.database
  return ledger.atomically(() => {
    const existing = db
      .prepare<[number, number], { id: number }>(
        `SELECT id FROM events WHERE kind = 'daily_summary'
           AND json_extract(data, '$.fromMs') = ? AND json_extract(data, '$.toMs') = ? ORDER BY id LIMIT 1`,
      )
      .get(dayStartMs, dayEndMs)
    if (existing) {
      const [event] = ledger.events.listAfter(existing.id - 1, { limit: 1 })
      if (event) return event
    }
    const states = db
      .prepare<[number, number], { state: string; count: number }>(
        `SELECT state, count(*) AS count FROM executions WHERE created_at_ms >= ? AND created_at_ms < ?
         GROUP BY state ORDER BY state`,
      )
      .all(dayStartMs, dayEndMs)
    const fills = db
      .prepare<[number, number], FillRow>(
        `SELECT chain_id, asset_token, asset_decimals, is_buy, amount_in, amount_out, fee_amount FROM fills
         WHERE recorded_at_ms >= ? AND recorded_at_ms < ? AND reversed_at_ms IS NULL ORDER BY id`,
      )
      .all(dayStartMs, dayEndMs)
    const reversed = db
      .prepare<[number, number], { count: number }>(
        'SELECT count(*) AS count FROM fills WHERE reversed_at_ms >= ? AND reversed_at_ms < ?',
      )
      .get(dayStartMs, dayEndMs)
    const byAsset = new Map<
      string,
      {
        chainId: number
        assetToken: string
        assetDecimals: number
        bought: bigint
        sold: bigint
        fees: bigint
        fills: number
      }
    >()
    for (const fill of fills) {
      const key = `${fill.chain_id}:${fill.asset_token.toLowerCase()}:${fill.asset_decimals}`
      const sums = byAsset.get(key) ?? {
        chainId: fill.chain_id,
        assetToken: fill.asset_token,
        assetDecimals: fill.asset_decimals,
        bought: 0n,
        sold: 0n,
        fees: 0n,
        fills: 0,
      }
      if (fill.is_buy === 1) sums.bought += BigInt(fill.amount_in)
      else sums.sold += BigInt(fill.amount_out)
      sums.fees += BigInt(fill.fee_amount)
      sums.fills += 1
      byAsset.set(key, sums)
    }
    const data: DailySummaryData = {
      day: new Date(dayStartMs).toISOString().slice(0, 10),
      fromMs: dayStartMs,
      toMs: dayEndMs,
      executions: {
        total: states.reduce((total, row) => total + row.count, 0),
        byState: Object.fromEntries(states.map((row) => [row.state, row.count])),
      },
      fills: { count: fills.length, reversed: reversed?.count ?? 0 },
      notional: [...byAsset.values()]
        .sort((a, b) => a.chainId - b.chainId || a.assetToken.localeCompare(b.assetToken))
        .map((sums) => ({
          ...sums,
          bought: sums.bought.toString(),
          sold: sums.sold.toString(),
          fees: sums.fees.toString(),
        })),
    }
    return ledger.events.append('daily_summary', { data })
  })
}
