import type Database from 'better-sqlite3'
import type { PositionState } from '../../store/positionAccounting.js'
import type { ReportFilter } from '../types.js'
import { foldLedger, type LedgerStep } from './foldLedger.js'
import { tokenScope } from './tokenScope.js'

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
  /** Final positions of the tokens in scope (the whole fold, whatever the time filter). */
  positions: Map<string, PositionState>
  first: number | undefined
  last: number | undefined
}

/**
 * Replays the average-cost fold ({@link foldLedger}) and sums what the steps selected by `filter`
 * realized, paid in fees, bought and sold: per UTC day, per strategy (of the fill's execution;
 * adjustments under "(corporate action)"), per token and per asset. The fold always runs over a
 * token's whole history (cost basis depends on it); the filter only selects which steps count:
 * chain, ticker (current or former), strategy (fills of that strategy only) and time
 * (fills by block time, adjustments by recording time; since inclusive, until exclusive).
 *
 * @example
 * const { byDay } = realizedBreakdown(ledger.database, { sinceMs: Date.UTC(2026, 0, 1) })
 * for (const [key, sums] of byDay) console.log(key, sums.realized)
 */
export function realizedBreakdown(database: Database.Database, filter: ReportFilter): RealizedBreakdown {
  const result: RealizedBreakdown = {
    byDay: new Map(),
    byStrategy: new Map(),
    byToken: new Map(),
    byAsset: new Map(),
    positions: new Map(),
    first: undefined,
    last: undefined,
  }
  const counts = (step: LedgerStep) => {
    if (filter.sinceMs !== undefined && step.atMs < filter.sinceMs) return false
    if (filter.untilMs !== undefined && step.atMs >= filter.untilMs) return false
    if (filter.strategy !== undefined) return step.kind === 'fill' && step.strategy === filter.strategy
    return true
  }
  result.positions = foldLedger(
    database,
    { chainId: filter.chainId, inScope: tokenScope(database, filter) },
    (step) => {
      if (!counts(step)) return
      result.first = result.first === undefined ? step.atMs : Math.min(result.first, step.atMs)
      result.last = result.last === undefined ? step.atMs : Math.max(result.last, step.atMs)
      const asset = `${step.chainId}:${step.assetToken}`
      const day = new Date(step.atMs).toISOString().slice(0, 10)
      const strategy = step.kind === 'fill' ? (step.strategy ?? noStrategy) : corporateActionStrategy
      add(result.byDay, `${day}|${asset}`, step)
      add(result.byStrategy, `${strategy}|${asset}`, step)
      add(result.byAsset, asset, step)
      const token = add(result.byToken, `${step.chainId}:${step.tokenAddress}`, step, {
        ticker: step.ticker,
        tokenAddress: step.tokenAddress,
      })
      token.ticker = step.ticker
    },
  )
  return result
}

function add<Extra extends object>(
  groups: Map<string, RealizedSums & Extra>,
  key: string,
  step: LedgerStep,
  extra?: Extra,
): RealizedSums & Extra {
  let sums = groups.get(key)
  if (!sums) {
    sums = {
      chainId: step.chainId,
      assetToken: step.assetToken,
      assetDecimals: step.assetDecimals,
      realized: 0n,
      fees: 0n,
      bought: 0n,
      sold: 0n,
      buys: 0,
      sells: 0,
      corporateActions: 0,
      ...(extra as Extra),
    }
    groups.set(key, sums)
  }
  sums.realized += step.realized
  if (step.kind === 'fill') {
    sums.fees += step.fee
    if (step.isBuy) {
      sums.bought += step.assetAmount
      sums.buys += 1
    } else {
      sums.sold += step.assetAmount
      sums.sells += 1
    }
  } else {
    sums.corporateActions += 1
  }
  return sums
}
