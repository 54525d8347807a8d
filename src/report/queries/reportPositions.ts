import type Database from 'better-sqlite3'
import type { PositionState } from '../../store/positionAccounting.js'
import { type LastFill, lastFillOf } from './valuePosition.js'

// The positions a report values (positions, pnl, summary), as data that merges across ledgers: a
// token held in several ledgers (one per daemon, "shard") is one position, its balance, cost basis
// and realized PnL the sums of theirs, priced at the latest of their last fills.

/** A position as the reports value it, from one ledger or merged from several. */
export type ReportPosition = {
  state: PositionState
  /** The ledgers holding it, when the report reads several (in the order given); empty otherwise. */
  ledgers: readonly string[]
  /** Its last live fill (the latest in chain order of its ledgers' last fills); read when first asked. */
  lastFill: () => LastFill | undefined
  /**
   * Whether a ledger sold it or applied a corporate action to it (known only when the report reads
   * several ledgers): held in several ledgers, one ledger holding all their fills would have
   * realized each sell against the pooled average, see {@link mergeReportPositions}.
   */
  reducedOrAdjusted: boolean
  /** Whether its merged cost basis, average price and realized PnL may differ from one ledger's fold. */
  pooledDiffers: boolean
}

/**
 * The positions `states` of one ledger as report positions: the last fill read lazily from
 * `database`; with `ledger` (the report reads several), named so and marked when the ledger ever
 * sold or adjusted the token (from its daily figures, `ledger_days`).
 *
 * @example
 * reportPositionsOf(ledger.database, [...breakdown.positions.values()], 'shard-a.sqlite')
 */
export function reportPositionsOf(
  database: Database.Database,
  states: readonly PositionState[],
  ledger?: string,
): ReportPosition[] {
  const reduced = ledger === undefined ? new Set<string>() : reducedOrAdjustedTokens(database)
  return states.map((state) => {
    const key = positionKey(state)
    return {
      state,
      ledgers: ledger === undefined ? [] : [ledger],
      lastFill: once(() => lastFillOf(database, state)),
      reducedOrAdjusted: reduced.has(key),
      pooledDiffers: false,
    }
  })
}

/**
 * The positions of several ledgers merged by (chain, token), in the order first seen. Each ledger
 * is a book of its own (its daemon's wallets): balance, cost basis and realized PnL add up, and the
 * average price is the summed cost basis over the summed balance (the rule of one ledger,
 * `averagePrice`); the token's ticker, market and asset are those of the first ledger holding it.
 * That is exactly what one ledger holding all their fills shows as long as only buys touched the
 * token in ledgers that hold it together. When one of them sold it (or applied a corporate action:
 * a split rounds each balance apart), one ledger would have realized the sell against the pooled
 * average cost of every ledger's shares: then its realized PnL and cost basis (not their
 * difference, nor realized plus unrealized PnL, which are the same either way) can differ from
 * the sums, and `pooledDiffers` says so. The last fill is the latest of the ledgers' last fills in
 * chain order (block, log index).
 *
 * @example
 * mergeReportPositions([shardA.positions, shardB.positions]).map((position) => position.state.balance)
 */
export function mergeReportPositions(parts: readonly (readonly ReportPosition[])[]): ReportPosition[] {
  const merged = new Map<string, ReportPosition[]>()
  for (const positions of parts)
    for (const position of positions) {
      const key = positionKey(position.state)
      const group = merged.get(key)
      if (group) group.push(position)
      else merged.set(key, [position])
    }
  return [...merged.values()].map((group) => {
    const [first, ...rest] = group as [ReportPosition, ...ReportPosition[]]
    if (rest.length === 0) return first
    return {
      state: addPositionStates(group.map((position) => position.state)),
      ledgers: group.flatMap((position) => position.ledgers),
      lastFill: once(() => latestFill(group)),
      reducedOrAdjusted: group.some((position) => position.reducedOrAdjusted),
      pooledDiffers: group.some((position) => position.reducedOrAdjusted || position.pooledDiffers),
    }
  })
}

/**
 * What a report over several ledgers says of merged positions (the positions, pnl and summary
 * reports): how they merge, and which positions' pooled figures may differ from one ledger's.
 *
 * @example
 * severalLedgersNotes(merged) // ['Several ledgers: …', 'Held in several ledgers and sold …: NVDA (chain 31337)']
 */
export function severalLedgersNotes(positions: readonly ReportPosition[]): string[] {
  const notes = [
    "Several ledgers: each ledger is a book of its own (its daemon's wallets). A token held in several is one position: balance, cost basis and realized PnL added, average price = summed cost basis / summed balance (as one ledger computes it), unrealized PnL at one price (the market's, else the latest of the ledgers' last fills in chain order). That is what one ledger holding all their fills shows while only buys touched a token held in several.",
  ]
  const differ = positions.filter((position) => position.pooledDiffers)
  if (differ.length > 0)
    notes.push(
      `Held in several ledgers and sold (or split, delisted, transferred out) in one: ${differ.map((position) => `${position.state.ticker} (chain ${position.state.chainId})`).join(', ')}. Each ledger realized its sells against its own average cost; one ledger holding every fill would have realized them against the pooled average, so its realized PnL, cost basis and average price can differ from those shown here (not realized + unrealized PnL, which is the same either way; a split also rounds each ledger's balance apart).`,
    )
  return notes
}

/**
 * The states of one token in several ledgers as one: balance, cost basis and realized PnL summed,
 * the token information of the first.
 *
 * @example
 * addPositionStates([a, b]).balance // a.balance + b.balance
 */
export function addPositionStates(states: readonly PositionState[]): PositionState {
  const [first, ...rest] = states as [PositionState, ...PositionState[]]
  const sum = { ...first }
  for (const state of rest) {
    sum.balance += state.balance
    sum.costBasis += state.costBasis
    sum.realizedPnl += state.realizedPnl
    sum.lastSeq = Math.max(sum.lastSeq, state.lastSeq)
  }
  return sum
}

/** A position's key: chain and token. */
export function positionKey(state: Pick<PositionState, 'chainId' | 'tokenAddress'>): string {
  return `${state.chainId}:${state.tokenAddress}`
}

/** The latest of the positions' last fills in chain order (one token: one chain); the first ledger's on a tie. */
function latestFill(group: readonly ReportPosition[]): LastFill | undefined {
  let latest: LastFill | undefined
  for (const position of group) {
    const fill = position.lastFill()
    if (
      fill !== undefined &&
      (latest === undefined ||
        fill.blockNumber > latest.blockNumber ||
        (fill.blockNumber === latest.blockNumber && fill.logIndex > latest.logIndex))
    )
      latest = fill
  }
  return latest
}

/**
 * The tokens (`chain:token`) the ledger ever sold (its daily figures) or split, delisted or
 * transferred out (its adjustments); a ticker change or a transfer in changes no figure of the fold
 * that adding ledgers would not.
 */
function reducedOrAdjustedTokens(database: Database.Database): Set<string> {
  return new Set(
    database
      .prepare<[], { key: string }>(
        `SELECT chain_id || ':' || token_address AS key FROM ledger_days WHERE sells > 0
         UNION SELECT chain_id || ':' || token_address FROM position_adjustments
           WHERE kind <> 'transfer' OR quantity LIKE '-%'`,
      )
      .all()
      .map((row) => row.key),
  )
}

/** `read`, called once, when first asked. */
function once<T>(read: () => T): () => T {
  let done = false
  let value: T
  return () => {
    if (!done) {
      value = read()
      done = true
    }
    return value as T
  }
}
