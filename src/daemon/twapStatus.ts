import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import { formatShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import type Database from 'better-sqlite3'
import { collectTwapProgress, type TwapProgressSums, twapFigures } from '../report/index.js'
import type { Ledger } from '../store/openLedger.js'
import type { ListingView, TwapStrategy } from '../strategy/index.js'

/** A TWAP's progress as the control plane shows it (times epoch ms; the view makes them ISO). */
export type TwapStatus = {
  ticker: string
  side: 'buy' | 'sell'
  ordered: string
  filled: string
  remaining: string
  slices: { planned: number; due: number; sent: number; confirmed: number }
  window: { startMs: number; endMs: number }
  nextSliceAtMs: number | null
  remainder: {
    ticker: string
    shares: string
    status: 'waiting' | 'sent' | 'refused'
    reason: string | null
  } | null
  currency: string
  averagePrice: string | null
  arrivalPrice: string | null
  vsArrivalBps: string | null
  notes: string[]
}

/**
 * The progress of `strategy` at `nowMs`: what its plan says (slices due, the next one, the
 * remainder and why it is refused), what the ledger says (its slices' executions and fills: filled,
 * remaining, average fill price against the arrival price, ./../report/queries/twapProgress.ts) and
 * what the chains' `listings` say (the remainder's ShareToken). The remainder is `sent` once the
 * ledger has its execution, `refused` when the strategy would not send it (no ShareToken listed),
 * else `waiting` (with a reason while the token lists are not known).
 *
 * @example
 * twapStatusOf(strategy, ledger, listings(), Date.now())
 * // { ordered: '1050', filled: '1000', remaining: '50', remainder: { status: 'refused', reason: 'the remainder of 50 shares …' }, … }
 */
export function twapStatusOf(
  strategy: TwapStrategy,
  ledger: { database: Database.Database; executions: Pick<Ledger['executions'], 'getExecutionByIntent'> },
  listings: readonly ListingView[] | undefined,
  nowMs: number,
  fxRates?: FxRates | undefined,
): TwapStatus {
  const [found] = collectTwapProgress(ledger.database, { strategy: strategy.id, chainId: strategy.chainId })
  const sums: TwapProgressSums = found ?? {
    strategy: strategy.id,
    chainId: strategy.chainId,
    ticker: strategy.ticker,
    exchange: strategy.exchange,
    side: strategy.side,
    executions: 0,
    confirmed: 0,
    fills: 0,
    filled: 0n,
    asset: 0n,
    assetDecimals: null,
    arrival: null,
  }
  const figures = twapFigures(sums, strategy.quantity, fxRates)
  const next = strategy.slices.find((slice) => slice.atMs > nowMs)
  const { remainder } = strategy
  let remainderStatus: TwapStatus['remainder'] = null
  if (remainder !== null) {
    const decision = strategy.remainderDecision(listings)
    const sent = ledger.executions.getExecutionByIntent(remainder.intentId) !== undefined
    remainderStatus = {
      ticker: remainder.ticker,
      shares: formatShareQuantity(remainder.quantity),
      ...(sent
        ? { status: 'sent', reason: null }
        : decision.send
          ? { status: 'waiting', reason: null }
          : {
              status: listings === undefined ? 'waiting' : 'refused',
              reason: decision.reason,
            }),
    }
  }
  return {
    ticker: strategy.ticker,
    side: strategy.side,
    ordered: figures.ordered ?? formatShareQuantity(strategy.quantity),
    filled: figures.filled,
    remaining: figures.remaining ?? '0',
    slices: {
      planned: strategy.slices.length,
      due: strategy.slices.filter((slice) => slice.atMs <= nowMs).length,
      sent: sums.executions,
      confirmed: sums.confirmed,
    },
    window: { startMs: strategy.startMs, endMs: strategy.endMs },
    nextSliceAtMs: next?.atMs ?? null,
    remainder: remainderStatus,
    currency: figures.currency,
    averagePrice: figures.averagePrice,
    arrivalPrice: figures.arrivalPrice,
    vsArrivalBps: figures.vsArrivalBps,
    notes: strategy.notes(listings),
  }
}
