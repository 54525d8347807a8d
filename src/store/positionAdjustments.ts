import { canonicalAddress, intToText, LedgerInputError, safeInteger, uintToText } from './codec.js'
import type { RepositoryContext } from './context.js'
import { corporateActionAttribution } from './ledgerDays.js'
import type {
  ApplyPositionAdjustmentResult,
  PositionAdjustment,
  PositionEntry,
  PositionTokenInfo,
} from './positionAccounting.js'
import { type AdjustmentRow, checkTokenInfo, type PositionWriter } from './positionRows.js'

// ---------------------------------------------------------------------------------------------
// Corporate actions and transfers

/**
 * @internal The adjustments part of the positions repository (splits, delistings, transfers in
 * `position_adjustments`), applied to the position through the shared writer.
 */
export function createPositionAdjustments(context: RepositoryContext, writer: PositionWriter) {
  const { db, now } = context
  // The row as read, but for what the table fills itself, with the PnL the fold realized.
  const insertAdjustment = db.prepare<
    [Omit<AdjustmentRow, 'id' | 'recorded_at_ms'> & { realized_pnl: string; now: number }]
  >(
    `INSERT INTO position_adjustments (seq, chain_id, token_address, kind, ratio_numerator, ratio_denominator,
       quantity, amount, ticker, exchange, token_kind, asset_token, asset_decimals, reference, reason, realized_pnl,
       recorded_at_ms)
     VALUES (@seq, @chain_id, @token_address, @kind, @ratio_numerator, @ratio_denominator, @quantity, @amount,
       @ticker, @exchange, @token_kind, @asset_token, @asset_decimals, @reference, @reason, @realized_pnl, @now)`,
  )
  const selectAdjustmentByReference = db.prepare<[string], AdjustmentRow>(
    'SELECT * FROM position_adjustments WHERE reference = ?',
  )

  const adjust = db.transaction((adjustment: PositionAdjustment): ApplyPositionAdjustmentResult => {
    const chainId = safeInteger(adjustment.chainId, 'chainId', 1)
    const tokenAddress = canonicalAddress(adjustment.tokenAddress, 'tokenAddress')
    if (typeof adjustment.reason !== 'string' || adjustment.reason === '')
      throw new LedgerInputError('reason', adjustment.reason, 'is empty: say why the position changes.')
    const reference = adjustment.reference ?? null
    if (reference !== null) {
      const existing = selectAdjustmentByReference.get(reference)
      if (existing) return { status: 'duplicate', adjustmentId: existing.id }
    }
    const seq = writer.nextSeq()
    const at = { seq, chainId, tokenAddress }
    let entry: PositionEntry
    let columns: {
      ratio_numerator: string | null
      ratio_denominator: string | null
      quantity: string | null
      amount: string | null
      token: PositionTokenInfo | undefined
    }
    switch (adjustment.kind) {
      case 'split':
        entry = { ...at, kind: 'split', numerator: adjustment.numerator, denominator: adjustment.denominator }
        columns = {
          ratio_numerator: uintToText(adjustment.numerator, 'numerator'),
          ratio_denominator: uintToText(adjustment.denominator, 'denominator'),
          quantity: null,
          amount: null,
          token: undefined,
        }
        break
      case 'delisting': {
        const compensation = adjustment.compensation ?? 0n
        entry = { ...at, kind: 'delisting', compensation }
        columns = {
          ratio_numerator: null,
          ratio_denominator: null,
          quantity: null,
          amount: uintToText(compensation, 'compensation'),
          token: undefined,
        }
        break
      }
      case 'transfer': {
        const token = adjustment.token ? checkTokenInfo(adjustment.token, 'token') : undefined
        const cost = adjustment.cost ?? 0n
        entry = { ...at, kind: 'transfer', quantity: adjustment.quantity, cost, token }
        columns = {
          ratio_numerator: null,
          ratio_denominator: null,
          quantity: intToText(adjustment.quantity, 'quantity'),
          amount: uintToText(cost, 'cost'),
          token,
        }
        break
      }
      default:
        throw new LedgerInputError(
          'kind',
          (adjustment as { kind: unknown }).kind,
          'must be split, delisting or transfer.',
        )
    }
    const recordedAt = now()
    const { record: position, realized } = writer.apply(entry, corporateActionAttribution(recordedAt))
    const result = insertAdjustment.run({
      seq,
      chain_id: chainId,
      token_address: tokenAddress,
      kind: adjustment.kind,
      ratio_numerator: columns.ratio_numerator,
      ratio_denominator: columns.ratio_denominator,
      quantity: columns.quantity,
      amount: columns.amount,
      ticker: columns.token?.ticker ?? null,
      exchange: columns.token?.exchange ?? null,
      token_kind: columns.token?.tokenKind ?? null,
      asset_token: columns.token?.assetToken ?? null,
      asset_decimals: columns.token?.assetDecimals ?? null,
      reference,
      reason: adjustment.reason,
      realized_pnl: realized.toString(),
      now: recordedAt,
    })
    return { status: 'recorded', adjustmentId: Number(result.lastInsertRowid), position }
  })

  return {
    applyPositionAdjustment: (adjustment: PositionAdjustment) => adjust.immediate(adjustment),
    /** The adjustment recorded under `reference`, if any. */
    findAdjustmentByReference: (reference: string) => selectAdjustmentByReference.get(reference),
  }
}
