import { formatAmount } from '../formatAmount.js'
import type {
  Report,
  ReportContext,
  ReportFilter,
  ReportKind,
  ReportRenderContext,
  ReportTable,
  ReportValue,
} from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'
import {
  corporateActionStrategy,
  mergeSumMaps,
  noStrategy,
  type RealizedSums,
  realizedBreakdown,
} from './realizedBreakdown.js'
import { collectTwapProgress, mergeTwapProgress, type TwapProgressSums, twapFigures } from './twapProgress.js'

type OutcomeRow = { strategy: string | null; chain_id: number; state: string; count: number }

/** Execution outcomes: terminal states, and everything still moving as 'in flight'. */
const outcomeOf = (state: string) =>
  state === 'confirmed' || state === 'failed' || state === 'expired' || state === 'rejected'
    ? state
    : 'in_flight'

/**
 * The `strategies` report: per strategy (of the execution; "(none)" for executions without one)
 * and chain: executions by outcome (confirmed, failed, expired, rejected, in flight), fills, notional
 * bought and sold, realized PnL by average cost and fees. Filters: chain, ticker, strategy, time
 * (executions by creation time, fills by block time).
 *
 * @example
 * const report = strategiesReport({ ledger, now: Date.now }, {})
 * report.tables[0].rows // [{ strategy: 'dca', chain_id: 31337, confirmed: 3, … }]
 */
export function strategiesReport(context: ReportContext, filter: ReportFilter): Report {
  return renderStrategies(collectStrategies(context, filter), context, filter)
}

/** What the strategies report shows, as read from one ledger or merged from several. */
export type StrategiesData = {
  /** Executions per strategy, chain and state (a triple may repeat: the counts add up). */
  outcomes: OutcomeRow[]
  /** The realized figures per strategy and asset ({@link realizedBreakdown}'s `byStrategy`). */
  byStrategy: Map<string, RealizedSums>
  /** Each TWAP strategy's progress (./twapProgress.ts): filled shares and asset, arrival price. */
  twap: TwapProgressSums[]
}

/**
 * Reads the strategies report's data from the ledger of `context`.
 *
 * @example
 * collectStrategies({ ledger, now: Date.now }, {}).outcomes
 */
export function collectStrategies(context: ReportContext, filter: ReportFilter): StrategiesData {
  const database = context.ledger.database
  const { where, params } = executionFilterSql(filter, 'e')
  const outcomes = database
    .prepare<Record<string, string | number | null>, OutcomeRow>(
      `SELECT e.strategy, e.chain_id, e.state, count(*) AS count FROM executions e WHERE ${where}
       GROUP BY e.strategy, e.chain_id, e.state`,
    )
    .all(params)
  return {
    outcomes,
    byStrategy: realizedBreakdown(database, filter).byStrategy,
    twap: collectTwapProgress(database, filter),
  }
}

/**
 * The strategies data of several ledgers as one: their execution counts together, the realized
 * figures of each strategy and asset added.
 *
 * @example
 * mergeStrategies([a, b]).byStrategy.get('dca|31337:0xA0b8…')?.realized
 */
export function mergeStrategies(parts: readonly StrategiesData[]): StrategiesData {
  return {
    outcomes: parts.flatMap((part) => part.outcomes),
    byStrategy: mergeSumMaps(parts.map((part) => part.byStrategy)),
    twap: mergeTwapProgress(parts.map((part) => part.twap)),
  }
}

/**
 * The strategies report of its data.
 *
 * @example
 * renderStrategies(mergeStrategies(parts), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderStrategies(
  data: StrategiesData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const { outcomes } = data
  type Row = Record<string, ReportValue> & { strategy: string; chain_id: number }
  const rows = new Map<string, Row>()
  const rowOf = (strategy: string, chainId: number) => {
    const key = `${strategy}|${chainId}`
    let row = rows.get(key)
    if (!row) {
      row = {
        strategy,
        chain_id: chainId,
        executions: 0,
        confirmed: 0,
        failed: 0,
        expired: 0,
        rejected: 0,
        in_flight: 0,
        fills: 0,
        asset_token: null,
        bought: '0',
        sold: '0',
        realized_pnl: '0',
        fees: '0',
      }
      rows.set(key, row)
    }
    return row
  }
  for (const outcome of outcomes) {
    const row = rowOf(outcome.strategy ?? noStrategy, outcome.chain_id)
    const column = outcomeOf(outcome.state)
    row[column] = (row[column] as number) + outcome.count
    row.executions = (row.executions as number) + outcome.count
  }
  for (const [key, sums] of data.byStrategy) {
    const strategy = key.slice(0, key.lastIndexOf('|'))
    if (strategy === corporateActionStrategy) continue
    const row = rowOf(strategy, sums.chainId)
    const asset = (value: bigint) => formatAmount(value, sums.assetDecimals)
    Object.assign(row, {
      fills: sums.buys + sums.sells,
      asset_token: sums.assetToken,
      bought: asset(sums.bought),
      sold: asset(sums.sold),
      realized_pnl: asset(sums.realized),
      fees: asset(sums.fees),
    })
  }
  return {
    name: 'strategies',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'strategies',
        title: 'Strategies',
        columns: [
          { key: 'strategy', title: 'Strategy', kind: 'text' },
          { key: 'chain_id', title: 'Chain', kind: 'integer' },
          { key: 'executions', title: 'Executions', kind: 'integer' },
          { key: 'confirmed', title: 'Confirmed', kind: 'integer' },
          { key: 'failed', title: 'Failed', kind: 'integer' },
          { key: 'expired', title: 'Expired', kind: 'integer' },
          { key: 'rejected', title: 'Rejected', kind: 'integer' },
          { key: 'in_flight', title: 'In flight', kind: 'integer', wide: true },
          { key: 'fills', title: 'Fills', kind: 'integer' },
          { key: 'asset_token', title: 'Asset', kind: 'text' },
          { key: 'bought', title: 'Bought (asset)', kind: 'decimal', wide: true },
          { key: 'sold', title: 'Sold (asset)', kind: 'decimal', wide: true },
          { key: 'realized_pnl', title: 'Realized PnL', kind: 'decimal' },
          { key: 'fees', title: 'Fees', kind: 'decimal' },
        ],
        rows: [...rows.values()].sort((a, b) =>
          a.strategy === b.strategy ? a.chain_id - b.chain_id : a.strategy < b.strategy ? -1 : 1,
        ),
      },
      ...(data.twap.length === 0 ? [] : [twapTable(data.twap, context)]),
    ],
    notes: [
      "Realized PnL by average cost (src/store/positionAccounting.ts), attributed to the strategy of the fill that realized it: a sell realizes against the whole position's average cost, whichever strategy bought. Corporate actions (splits, delistings) belong to no strategy: see the pnl report.",
      'Bought: asset paid by buys, fee included; sold: asset received by sells, net of fee. Fees are inside both, shown apart.',
      'Filters: chain, ticker, strategy; since/until select executions by creation time and fills by block time. "(none)": executions made without a strategy (API, CLI, library).',
      ...(ledgers === undefined
        ? []
        : [
            "Several ledgers: each strategy's executions and figures are those of every ledger added up; a sell realizes against its own ledger's average cost.",
          ]),
      ...(data.twap.length === 0
        ? []
        : [
            "TWAP progress: the fills of each TWAP's slices and remainder (intent ids twap:<id>:slice:<n>, twap:<id>:remainder), summed over the ledgers; filters chain, ticker, strategy (not the times: the whole order). Avg price: asset per share (fee included on buys, net on sells) in the market currency at the FX rate the first slice recorded. Arrival: the market price the engine read when it quoted the first slice. vs arrival: positive is worse. Ordered and remaining come from the configuration's twap strategy of that id (empty when it has none).",
          ]),
    ],
  }
}

/** The TWAP progress table: one row per TWAP strategy and chain. */
function twapTable(progress: readonly TwapProgressSums[], context: ReportRenderContext): ReportTable {
  return {
    key: 'twap',
    title: 'TWAP progress',
    columns: [
      { key: 'strategy', title: 'Strategy', kind: 'text' },
      { key: 'chain_id', title: 'Chain', kind: 'integer' },
      { key: 'ticker', title: 'Ticker', kind: 'text' },
      { key: 'side', title: 'Side', kind: 'text' },
      { key: 'executions', title: 'Slices sent', kind: 'integer', wide: true },
      { key: 'confirmed', title: 'Confirmed', kind: 'integer', wide: true },
      { key: 'ordered', title: 'Ordered', kind: 'decimal', unit: 'shares' },
      { key: 'filled', title: 'Filled', kind: 'decimal', unit: 'shares' },
      { key: 'remaining', title: 'Remaining', kind: 'decimal', unit: 'shares' },
      { key: 'currency', title: 'Ccy', kind: 'text' },
      { key: 'average_price', title: 'Avg price', kind: 'decimal' },
      { key: 'arrival_price', title: 'Arrival', kind: 'decimal' },
      { key: 'vs_arrival_bps', title: 'vs arrival (bps)', kind: 'decimal' },
    ],
    rows: progress.map((sums) => {
      const figures = twapFigures(sums, context.twapOrders?.get(sums.strategy), context.fxRates)
      return {
        strategy: sums.strategy,
        chain_id: sums.chainId,
        ticker: sums.ticker,
        side: sums.side,
        executions: sums.executions,
        confirmed: sums.confirmed,
        ordered: figures.ordered,
        filled: figures.filled,
        remaining: figures.remaining,
        currency: figures.currency,
        average_price: figures.averagePrice,
        arrival_price: figures.arrivalPrice,
        vs_arrival_bps: figures.vsArrivalBps,
      }
    }),
  }
}

/** The strategies report in three steps (src/report/acrossLedgers.ts). */
export const strategiesKind: ReportKind<StrategiesData> = {
  collect: collectStrategies,
  merge: mergeStrategies,
  render: renderStrategies,
}
