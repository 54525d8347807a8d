import type Database from 'better-sqlite3'

import type { PositionState } from '../../store/positionAccounting.js'
import type { ReportFilter } from '../types.js'
import { addPositionStates } from './reportPositions.js'
import { type DaySums, selectLedgerDays } from './selectLedgerDays.js'

/** Sums of one group (a day, a strategy, a token, a chain) in one asset, base units. */
export type RealizedSums = {
  chainId: number
  assetToken: string
  assetDecimals: number
  realized: bigint
  fees: bigint
  /** Asset paid by buys (fee included) and received by sells (net of fee). */
  bought: bigint
  sold: bigint
  buys: number
  sells: number
  /** Adjustments and renames (corporate actions) in the group. */
  corporateActions: number
}

/** The label of fills whose execution has no strategy, and of corporate actions, in strategy breakdowns. */
export const noStrategy = '(none)'
export const corporateActionStrategy = '(corporate action)'

/** The realized figures of a filter, grouped; each map's values are per asset (chain and asset token). */
export type RealizedBreakdown = {
  byDay: Map<string, RealizedSums>
  byStrategy: Map<string, RealizedSums>
  byToken: Map<string, RealizedSums & { ticker: string; tokenAddress: string }>
  byAsset: Map<string, RealizedSums>
  /** Current positions of the tokens in scope (whatever the strategy and time filters). */
  positions: Map<string, PositionState>
  first: number | undefined
  last: number | undefined
}

/**
 * Sums what the fills, adjustments and renames selected by `filter` realized (by the average-cost
 * fold, src/store/positionAccounting.ts: each step's figure is stored with it when it is recorded,
 * so the sums equal the positions table), paid in fees, bought and sold: per UTC day, per strategy
 * (of the fill's execution; adjustments under "(corporate action)"), per token and per asset, from
 * the ledger's daily figures ({@link selectLedgerDays}). The filter selects chain, ticker (current
 * or former), strategy (fills of that strategy only) and time (fills by block time, adjustments by
 * recording time; since inclusive, until exclusive).
 *
 * @example
 * const { byDay } = realizedBreakdown(ledger.database, { sinceMs: Date.UTC(2026, 0, 1) })
 * for (const [key, sums] of byDay) console.log(key, sums.realized)
 */
export function realizedBreakdown(database: Database.Database, filter: ReportFilter): RealizedBreakdown {
  const {
    sums: [days = [], strategies = [], tokens = [], assets = []],
    positions,
  } = selectLedgerDays(database, filter, [{ day: true }, { strategy: true }, { token: true }, {}])
  const byPosition = new Map(
    positions.map((position) => [`${position.chainId}:${position.tokenAddress}`, position]),
  )
  const asset = (sums: DaySums) => `${sums.chainId}:${sums.assetToken}`
  const strategyLabel = (sums: DaySums) =>
    sums.corporateAction ? corporateActionStrategy : sums.strategy === '' ? noStrategy : sums.strategy
  return {
    byDay: new Map(days.map((sums) => [`${sums.day}|${asset(sums)}`, realizedSums(sums)])),
    byStrategy: new Map(
      strategies.map((sums) => [`${strategyLabel(sums)}|${asset(sums)}`, realizedSums(sums)]),
    ),
    byToken: new Map(
      tokens.map((sums) => {
        const key = `${sums.chainId}:${sums.tokenAddress}`
        return [
          key,
          {
            ...realizedSums(sums),
            ticker: byPosition.get(key)?.ticker ?? sums.tokenAddress,
            tokenAddress: sums.tokenAddress,
          },
        ]
      }),
    ),
    byAsset: new Map(assets.map((sums) => [asset(sums), realizedSums(sums)])),
    positions: byPosition,
    first: assets.length === 0 ? undefined : Math.min(...assets.map((sums) => sums.firstAtMs)),
    last: assets.length === 0 ? undefined : Math.max(...assets.map((sums) => sums.lastAtMs)),
  }
}

function realizedSums(sums: DaySums): RealizedSums {
  return {
    chainId: sums.chainId,
    assetToken: sums.assetToken,
    assetDecimals: sums.assetDecimals,
    realized: sums.realized,
    fees: sums.fees,
    bought: sums.bought,
    sold: sums.sold,
    buys: sums.buys,
    sells: sums.sells,
    corporateActions: sums.corporateActions,
  }
}

/**
 * The breakdowns of several ledgers as one: the sums of each group (day, strategy, token, asset)
 * added, the positions of a token summed ({@link addPositionStates}), the activity span widened.
 * Sums are copied: the parts are left as they were.
 *
 * @example
 * mergeRealizedBreakdowns([realizedBreakdown(a, filter), realizedBreakdown(b, filter)]).byAsset
 */
export function mergeRealizedBreakdowns(parts: readonly RealizedBreakdown[]): RealizedBreakdown {
  const states = new Map<string, PositionState[]>()
  for (const part of parts)
    for (const [key, state] of part.positions) states.set(key, [...(states.get(key) ?? []), state])
  const firsts = parts.flatMap((part) => (part.first === undefined ? [] : [part.first]))
  const lasts = parts.flatMap((part) => (part.last === undefined ? [] : [part.last]))
  return {
    byDay: mergeSumMaps(parts.map((part) => part.byDay)),
    byStrategy: mergeSumMaps(parts.map((part) => part.byStrategy)),
    byToken: mergeSumMaps(parts.map((part) => part.byToken)),
    byAsset: mergeSumMaps(parts.map((part) => part.byAsset)),
    positions: new Map([...states].map(([key, group]) => [key, addPositionStates(group)])),
    first: firsts.length === 0 ? undefined : Math.min(...firsts),
    last: lasts.length === 0 ? undefined : Math.max(...lasts),
  }
}

/**
 * Groups of sums of several ledgers as one map: the sums of each key added (a copy of the first
 * ledger's, which keeps its other fields: a token's ticker).
 *
 * @example
 * mergeSumMaps([a.byStrategy, b.byStrategy]).get('dca|31337:0xA0b8…')?.realized
 */
export function mergeSumMaps<Sums extends RealizedSums>(
  maps: readonly ReadonlyMap<string, Sums>[],
): Map<string, Sums> {
  const into = new Map<string, Sums>()
  for (const from of maps)
    for (const [key, sums] of from) {
      const existing = into.get(key)
      if (!existing) {
        into.set(key, { ...sums })
        continue
      }
      existing.realized += sums.realized
      existing.fees += sums.fees
      existing.bought += sums.bought
      existing.sold += sums.sold
      existing.buys += sums.buys
      existing.sells += sums.sells
      existing.corporateActions += sums.corporateActions
    }
  return into
}
