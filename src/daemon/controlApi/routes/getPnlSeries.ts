import { formatUnits } from 'viem'
import { realizedBreakdown } from '../../../report/queries/realizedBreakdown.js'
import { selectIncome } from '../../../report/queries/selectIncome.js'
import { emptySums } from '../../../report/queries/sumsCells.js'
import { utcDayOf } from '../../../store/ledgerDays.js'
import { pnlSeriesQuerySchema } from '../contract.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { costAfterFills } from './costAfterFills.js'
import type { DashboardData } from './dashboardData.js'

type Point = { day: string; atMs: number; realizedPnl: string; fees: string; costBasis: string }

/** How far back the equity marks and the costs after fills go: the day the overview shows. */
const marksWindowMs = 86_400_000

/**
 * `GET /v1/series/pnl?chainId`: per chain and asset, day by day (UTC), the cumulative realized PnL
 * (income included), fees, and cost of the open positions (bought − sold + realized), summed in
 * base units from the ledger's daily figures and income, as the pnl report sums them; and the last
 * day's equity: the open positions at cost right after each fill (`costAtFills`, from the ledger,
 * so the curve starts with the first fill) and their marks at the market, taken by the daemon once
 * a minute (`equity_marks`). Amounts are exact decimal strings; the dashboard rounds what it shows.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/series/pnl', handle: getPnlSeries(data) } as const
 * // → {"series":[{"chainId":31337,"asset":"USDC","points":[{"day":"2026-11-25","realizedPnl":"1.5",…}]}]}
 */
export function getPnlSeries(data: DashboardData) {
  return (request: ControlRequest): ControlReply => {
    const { chainId } = readQuery(request, pnlSeriesQuerySchema, 'Invalid PnL series query')
    const database = data.ledger.database
    // The day rows of the ledger's daily figures and its income, summed in bigints (exact).
    const days = [...realizedBreakdown(database, { chainId }).byDay].map(([key, sums]) => ({
      day: key.slice(0, 10),
      sums,
    }))
    const income = new Map<string, bigint>()
    const dayKeys = new Set(days.map(({ day, sums }) => `${day}|${sums.chainId}:${sums.assetToken}`))
    for (const row of selectIncome(database, { chainId })) {
      const key = `${utcDayOf(row.recorded_at_ms)}|${row.chain_id}:${row.asset_token}`
      income.set(key, (income.get(key) ?? 0n) + BigInt(row.amount))
      // A day with income only still gets a point.
      if (!dayKeys.has(key)) {
        dayKeys.add(key)
        days.push({
          day: utcDayOf(row.recorded_at_ms),
          sums: emptySums(row.chain_id, row.asset_token, row.asset_decimals),
        })
      }
    }
    days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
    const symbols = new Map(
      data.ledger.chainAssets.list().map((asset) => [`${asset.chainId}:${asset.address}`, asset.symbol]),
    )
    const running = new Map<
      string,
      {
        chainId: number
        asset: string
        assetToken: string
        decimals: number
        realized: bigint
        fees: bigint
        cost: bigint
        points: Point[]
      }
    >()
    for (const { day, sums } of days) {
      const key = `${sums.chainId}:${sums.assetToken}`
      const entry = running.get(key) ?? {
        chainId: sums.chainId,
        asset: symbols.get(key) ?? sums.assetToken,
        assetToken: sums.assetToken,
        decimals: sums.assetDecimals,
        realized: 0n,
        fees: 0n,
        cost: 0n,
        points: [],
      }
      entry.realized += sums.realized + (income.get(`${day}|${key}`) ?? 0n)
      entry.fees += sums.fees
      entry.cost += sums.bought - sums.sold + sums.realized
      entry.points.push({
        day,
        atMs: Date.parse(`${day}T00:00:00Z`),
        realizedPnl: formatUnits(entry.realized, sums.assetDecimals),
        fees: formatUnits(entry.fees, sums.assetDecimals),
        costBasis: formatUnits(entry.cost, sums.assetDecimals),
      })
      running.set(key, entry)
    }
    const sinceMs = data.now() - marksWindowMs
    const marks = data.ledger.equityMarks.list({ sinceMs, chainId })
    const afterFills = costAfterFills(database, {
      sinceMs,
      costNow: new Map([...running].map(([key, entry]) => [key, entry.cost])),
    })
    const series = [...running].map(([key, { chainId: chain, asset, assetToken, decimals, points }]) => ({
      chainId: chain,
      asset,
      points,
      costAtFills: (afterFills.get(key) ?? []).map((point) => ({
        atMs: point.atMs,
        costBasis: formatUnits(point.costBasis, decimals),
      })),
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
