import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { type ExchangeCode, type TokenKind, tokenKinds } from '@stockroute/client/domain/markets.js'
import { type AssetAmount, toAssetAmount } from '@stockroute/client/domain/units.js'
import type { Address } from 'viem'
import { mulDivAwayFromZero, mulDivTowardZero } from './codec.js'

// Average-cost position accounting as pure data and one fold: the same rule updates a position
// as each fill or adjustment is recorded, and rebuilds every position from the ledger.

// ---------------------------------------------------------------------------------------------
// Types

/** What a position is of: the token, its market and the asset its prices are in. */
export type PositionTokenInfo = {
  ticker: string
  exchange: ExchangeCode
  /** `stock`: balance in whole shares; `share`: balance in 1e18 units of a share. */
  tokenKind: TokenKind
  /** The chain's payment asset: cost basis, average price and PnL are in its base units. */
  assetToken: Address
  assetDecimals: number
}

/**
 * The part of a position that fills and adjustments determine. Average cost accounting: a buy adds
 * its asset cost (fee included) to `costBasis`; a sell removes the sold share of `costBasis`
 * (rounded away from zero, i.e. up for a long position) and realizes proceeds (net of fee) minus
 * that cost. `balance` can only go negative when the ledger saw more sold than bought (tokens
 * that came from outside the ledger without a `transfer` adjustment); it is then a short at
 * average proceeds, handled by the same rules mirrored.
 */
export type PositionState = PositionTokenInfo & {
  chainId: number
  tokenAddress: Address
  /** Token base units (signed). */
  balance: bigint
  /** Asset base units paid for `balance` (negative for a short: proceeds received). */
  costBasis: bigint
  /** Asset base units realized by sells, delistings and splits to zero (signed). */
  realizedPnl: bigint
  /** The ledger sequence number of the last fill or adjustment applied. */
  lastSeq: number
}

/** A position as stored, with its derived values. */
export type PositionRecord = PositionState & {
  /** Token base units locked (in-flight sells, corporate actions): set by the engine. */
  locked: bigint
  /** `balance - locked`. */
  available: bigint
  /** Asset base units per whole share: `|costBasis| / |balance|` in shares, rounded down; 0 when flat. */
  avgPrice: AssetAmount
  updatedAtMs: number
}

/** A corporate action or an outside movement of tokens that changes a position without a fill. */
export type PositionAdjustment = {
  chainId: number
  tokenAddress: Address
  /** Why (shown in reports). */
  reason: string
  /** An external id (the corporate action's id): an adjustment with the same reference is applied once. */
  reference?: string | undefined
} & (
  | {
      /**
       * Split (`numerator > denominator`) or reverse split: the balance is multiplied by
       * numerator/denominator, rounded toward zero (a fractional remainder is settled off-ledger),
       * the cost basis is kept, so the average price scales by denominator/numerator. A balance
       * that rounds to zero realizes its whole cost basis as a loss.
       */
      kind: 'split'
      numerator: bigint
      denominator: bigint
    }
  | {
      /** Delisting: the balance and cost basis go to zero; `compensation` minus the cost basis is realized. */
      kind: 'delisting'
      compensation?: AssetAmount | undefined
    }
  | {
      /**
       * Tokens moved in (positive `quantity`, at `cost`, default 0) or out (negative, at their
       * share of the cost basis) without a trade; no PnL is realized. Moving in needs a flat or long
       * position, moving out at most the balance. `token` is required when no position exists yet.
       */
      kind: 'transfer'
      quantity: bigint
      cost?: AssetAmount | undefined
      token?: PositionTokenInfo | undefined
    }
)

/** What {@link PositionsRepository.applyPositionAdjustment} did. */
export type ApplyPositionAdjustmentResult =
  | { status: 'recorded'; adjustmentId: number; position: PositionRecord }
  /** An adjustment with this reference was applied before; nothing changed. */
  | { status: 'duplicate'; adjustmentId: number }

/** A stored position that differs from the one recomputed from fills and adjustments. */
export type PositionMismatch = {
  chainId: number
  tokenAddress: Address
  stored: PositionState | undefined
  recomputed: PositionState | undefined
}

/** Stable codes of {@link PositionError}. */
export type PositionErrorCode = 'NO_POSITION' | 'BAD_ADJUSTMENT'

/**
 * A position adjustment cannot apply: there is no position to adjust (`NO_POSITION`), or the
 * adjustment does not fit it (`BAD_ADJUSTMENT`: moving out more than the balance, a zero ratio…).
 *
 * @example
 * try {
 *   ledger.positions.applyPositionAdjustment({ chainId, tokenAddress, kind: 'delisting', reason: 'delisted' })
 * } catch (error) {
 *   if (error instanceof PositionError && error.code === 'NO_POSITION') console.log('nothing held')
 * }
 */
export class PositionError extends StockrouteError {
  override name = 'PositionError'
  override readonly code: PositionErrorCode
  constructor(parameters: {
    code: PositionErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details: Readonly<Record<string, unknown>>
  }) {
    super(parameters)
    this.code = parameters.code
  }
}

// ---------------------------------------------------------------------------------------------
// The fold: one rule for incremental updates and for recomputation

/** One input of the position fold, in ledger order (`seq`). */
export type PositionEntry = { seq: number; chainId: number; tokenAddress: Address } & (
  | { kind: 'fill'; token: PositionTokenInfo; isBuy: boolean; stockAmount: bigint; assetAmount: bigint }
  | { kind: 'split'; numerator: bigint; denominator: bigint }
  | { kind: 'delisting'; compensation: bigint }
  | { kind: 'transfer'; quantity: bigint; cost: bigint; token: PositionTokenInfo | undefined }
  /** A ticker change: the position is now named `ticker`; quantities and money stay. */
  | { kind: 'rename'; ticker: string }
)

/**
 * Applies one fill or adjustment to a position (or to none yet). Pure: the same entries in the
 * same order always give the same position, which is what makes `recomputePositions` comparable
 * with the incrementally maintained table. Throws {@link PositionError} when an adjustment does not fit.
 *
 * @example
 * const after = applyPositionEntry(undefined, {
 *   seq: 1, chainId: 31337, tokenAddress, kind: 'fill', token, isBuy: true, stockAmount: 10n, assetAmount: 1_000_000_000n,
 * })
 * after.balance // 10n, after.costBasis // 1000000000n
 */
export function applyPositionEntry(state: PositionState | undefined, entry: PositionEntry): PositionState {
  const at = { seq: entry.seq, chainId: entry.chainId, tokenAddress: entry.tokenAddress }
  switch (entry.kind) {
    case 'fill': {
      const base = state ?? emptyPosition(at, entry.token)
      const delta = entry.isBuy ? entry.stockAmount : -entry.stockAmount
      const cashCost = entry.isBuy ? entry.assetAmount : -entry.assetAmount
      return { ...applyTrade(base, delta, cashCost), ...entry.token, lastSeq: entry.seq }
    }
    case 'split': {
      const current = mustExist(state, at, 'split')
      if (entry.numerator <= 0n || entry.denominator <= 0n)
        throw badAdjustment(at, 'a split ratio needs a positive numerator and denominator.')
      const balance = mulDivTowardZero(current.balance, entry.numerator, entry.denominator)
      if (balance === 0n)
        return {
          ...current,
          balance,
          costBasis: 0n,
          realizedPnl: current.realizedPnl - current.costBasis,
          lastSeq: entry.seq,
        }
      return { ...current, balance, lastSeq: entry.seq }
    }
    case 'delisting': {
      const current = mustExist(state, at, 'delisting')
      return {
        ...current,
        balance: 0n,
        costBasis: 0n,
        realizedPnl: current.realizedPnl + entry.compensation - current.costBasis,
        lastSeq: entry.seq,
      }
    }
    case 'rename': {
      const current = mustExist(state, at, 'ticker change')
      if (entry.ticker === '') throw badAdjustment(at, 'a ticker change needs a non-empty ticker.')
      return { ...current, ticker: entry.ticker, lastSeq: entry.seq }
    }
    case 'transfer': {
      const current = state ?? (entry.token ? emptyPosition(at, entry.token) : undefined)
      const base = mustExist(current, at, 'transfer (pass token to open one)')
      if (entry.quantity === 0n) throw badAdjustment(at, 'a transfer moves a non-zero quantity.')
      if (entry.quantity > 0n) {
        if (base.balance < 0n)
          throw badAdjustment(
            at,
            `tokens cannot be moved into a short position (balance ${base.balance}): record the missing buys instead.`,
          )
        return {
          ...base,
          ...(entry.token ?? {}),
          balance: base.balance + entry.quantity,
          costBasis: base.costBasis + entry.cost,
          lastSeq: entry.seq,
        }
      }
      const out = -entry.quantity
      if (entry.cost !== 0n)
        throw badAdjustment(at, 'tokens moved out leave at their cost basis: pass no cost.')
      if (out > base.balance)
        throw badAdjustment(at, `cannot move out ${out} when the balance is ${base.balance}.`)
      const costOut =
        out === base.balance ? base.costBasis : mulDivAwayFromZero(base.costBasis, out, base.balance)
      return {
        ...base,
        ...(entry.token ?? {}),
        balance: base.balance - out,
        costBasis: base.costBasis - costOut,
        lastSeq: entry.seq,
      }
    }
  }
}

/** Average cost with signed balances: same-direction trades add, opposite ones realize (and may flip). */
function applyTrade(state: PositionState, delta: bigint, cashCost: bigint): PositionState {
  const { balance, costBasis, realizedPnl } = state
  if (delta === 0n) return { ...state, realizedPnl: realizedPnl - cashCost }
  if (balance === 0n || balance > 0n === delta > 0n)
    return { ...state, balance: balance + delta, costBasis: costBasis + cashCost }
  const held = balance < 0n ? -balance : balance
  const traded = delta < 0n ? -delta : delta
  const closed = held < traded ? held : traded
  const costRemoved = closed === held ? costBasis : mulDivAwayFromZero(costBasis, closed, held)
  const cashClosing = closed === traded ? cashCost : mulDivTowardZero(cashCost, closed, traded)
  const realized = realizedPnl - cashClosing - costRemoved
  if (traded > held)
    return { ...state, balance: balance + delta, costBasis: cashCost - cashClosing, realizedPnl: realized }
  return { ...state, balance: balance + delta, costBasis: costBasis - costRemoved, realizedPnl: realized }
}

/**
 * Asset base units per whole share, rounded down; 0 for a flat position.
 *
 * @example
 * averagePrice({ balance: 15n, costBasis: 2250n, tokenKind: 'stock' }) // 150n
 */
export function averagePrice(
  position: Pick<PositionState, 'balance' | 'costBasis' | 'tokenKind'>,
): AssetAmount {
  const { balance, costBasis, tokenKind } = position
  if (balance === 0n) return toAssetAmount(0n)
  const magnitude = (value: bigint) => (value < 0n ? -value : value)
  return toAssetAmount(
    (magnitude(costBasis) * 10n ** BigInt(tokenKinds[tokenKind].decimals)) / magnitude(balance),
  )
}

function emptyPosition(
  at: { chainId: number; tokenAddress: Address; seq: number },
  token: PositionTokenInfo,
): PositionState {
  return {
    chainId: at.chainId,
    tokenAddress: at.tokenAddress,
    ...token,
    balance: 0n,
    costBasis: 0n,
    realizedPnl: 0n,
    lastSeq: at.seq,
  }
}

function mustExist(
  state: PositionState | undefined,
  at: { chainId: number; tokenAddress: Address },
  what: string,
): PositionState {
  if (!state)
    throw new PositionError({
      code: 'NO_POSITION',
      shortMessage: `No position in ${at.tokenAddress} on chain ${at.chainId} to apply a ${what} to: record its fills first, or a transfer with token info for tokens held from outside the ledger.`,
      details: { chainId: at.chainId, tokenAddress: at.tokenAddress },
    })
  return state
}

function badAdjustment(at: { chainId: number; tokenAddress: Address }, problem: string): PositionError {
  return new PositionError({
    code: 'BAD_ADJUSTMENT',
    shortMessage: `Adjustment of ${at.tokenAddress} on chain ${at.chainId} refused: ${problem}`,
    details: { chainId: at.chainId, tokenAddress: at.tokenAddress },
  })
}
