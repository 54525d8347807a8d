import { formatUnits, parseUnits } from 'viem'
import { runReport } from '../../report/index.js'
import type { DashboardData } from './dashboardData.js'
import { pnlSeriesQuerySchema } from './dashboardSchemas.js'
import { readQuery } from './readQuery.js'
import type { ControlReply, ControlRequest } from './types.js'

/** Report amounts carry at most this many decimals (src/report/formatAmount.ts), so sums stay exact. */
const reportDecimals = 6

type Point = { day: string; atMs: number; realizedPnl: string; fees: string; costBasis: string }

/** How far back the equity marks go: the day the overview shows. */
const marksWindowMs = 86_400_000

/**
 * `GET /v1/series/pnl?chainId`: per chain and asset, day by day (UTC), the cumulative realized PnL
 * (income included), fees, and cost of the open positions (bought − sold + realized), summed from
 * the pnl report's `pnl_by_day` table in exact decimals; and the last day's marks of the open
 * positions at the market, taken by the daemon once a minute (`equity_marks`).
 *
 * @example
 * const route = { method: 'GET', path: '/v1/series/pnl', handle: getPnlSeries(data) } as const
 * // → {"series":[{"chainId":31337,"asset":"USDC","points":[{"day":"2026-11-25","realizedPnl":"1.5",…}]}]}
 */
export function getPnlSeries(data: DashboardData) {
  return (request: ControlRequest): ControlReply => {
    const { chainId } = readQuery(request, pnlSeriesQuerySchema, 'Invalid PnL series query')
    const report = runReport('pnl', { ledger: data.ledger, now: data.now }, { chainId })
    const byDay = report.tables.find((table) => table.key === 'pnl_by_day')
    const running = new Map<
      string,
      { chainId: number; asset: string; assetToken: string; sums: bigint[]; points: Point[] }
    >()
    const units = (value: unknown) => parseUnits(String(value ?? '0'), reportDecimals)
    const text = (value: bigint) => formatUnits(value, reportDecimals)
    for (const row of byDay?.rows ?? []) {
      const key = `${row.chain_id}:${row.asset_token}`
      let entry = running.get(key)
      if (!entry) {
        entry = {
          chainId: Number(row.chain_id),
          // The symbol the engine recorded (runReport names assets), else the address.
          asset: String(row.asset ?? row.asset_token),
          assetToken: String(row.asset_token),
          sums: [0n, 0n, 0n],
          points: [],
        }
        running.set(key, entry)
      }
      const realized = units(row.realized_pnl) + units(row.income)
      const [pnl = 0n, fees = 0n, cost = 0n] = entry.sums
      entry.sums = [
        pnl + realized,
        fees + units(row.fees),
        cost + units(row.bought) - units(row.sold) + units(row.realized_pnl),
      ]
      const day = String(row.day)
      entry.points.push({
        day,
        atMs: Date.parse(`${day}T00:00:00Z`),
        realizedPnl: text(entry.sums[0] ?? 0n),
        fees: text(entry.sums[1] ?? 0n),
        costBasis: text(entry.sums[2] ?? 0n),
      })
    }
    const marks = data.ledger.equityMarks.list({ sinceMs: data.now() - marksWindowMs, chainId })
    const series = [...running.values()].map(({ chainId: chain, asset, assetToken, points }) => ({
      chainId: chain,
      asset,
      points: points.sort((a, b) => a.atMs - b.atMs),
      marks: marks
        .filter((mark) => mark.chainId === chain && mark.assetToken === assetToken)
        .map((mark) => ({
          atMs: mark.atMs,
          marketValue: formatUnits(mark.marketValue, mark.assetDecimals),
          costBasis: formatUnits(mark.costBasis, mark.assetDecimals),
          unpriced: mark.unpriced,
        })),
    }))
    return { status: 200, body: { series } }
  }
}
