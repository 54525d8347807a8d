import type { Address } from 'viem'
import { canonicalAddress, LedgerInputError, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'
import { corporateActionAttribution } from './ledgerDays.js'
import { PositionError, type PositionRecord } from './positionAccounting.js'
import { type PositionWriter, type RenameRow, renameRecordOfRow } from './positionRows.js'

// ---------------------------------------------------------------------------------------------
// Ticker changes

/** A ticker change of a held token (a corporate action): the position keeps everything but its name. */
export type PositionRename = {
  chainId: number
  tokenAddress: Address
  /** The new ticker. */
  ticker: string
  /** Why (shown in reports); default `ticker change OLD → NEW`. */
  reason?: string | undefined
  /** An external id (the corporate action record's id): a rename with the same reference is applied once. */
  reference?: string | undefined
}

/** What {@link PositionsRepository.renamePosition} did. */
export type RenamePositionResult =
  | { status: 'recorded'; renameId: number; position: PositionRecord }
  /** A rename with this reference was applied before; nothing changed. */
  | { status: 'duplicate'; renameId: number }

/**
 * @internal The ticker-change part of the positions repository (`position_renames`), applied to the
 * position through the shared writer.
 */
export function createPositionRenames(context: RepositoryContext, writer: PositionWriter) {
  const { db, now } = context
  const selectRenames = db.prepare<[number | null, number | null, string | null, string | null], RenameRow>(
    `SELECT * FROM position_renames WHERE (? IS NULL OR chain_id = ?) AND (? IS NULL OR token_address = ?)
     ORDER BY seq`,
  )
  const selectRenameByReference = db.prepare<[string], RenameRow>(
    'SELECT * FROM position_renames WHERE reference = ?',
  )
  const insertRename = db.prepare<[Omit<RenameRow, 'id'>]>(
    `INSERT INTO position_renames (seq, chain_id, token_address, from_ticker, to_ticker, reference, reason,
       recorded_at_ms)
     VALUES (@seq, @chain_id, @token_address, @from_ticker, @to_ticker, @reference, @reason, @recorded_at_ms)`,
  )

  const rename = db.transaction((change: PositionRename): RenamePositionResult => {
    const chainId = safeInteger(change.chainId, 'chainId', 1)
    const tokenAddress = canonicalAddress(change.tokenAddress, 'tokenAddress')
    if (
      typeof change.ticker !== 'string' ||
      change.ticker.trim() === '' ||
      change.ticker !== change.ticker.trim()
    )
      throw new LedgerInputError(
        'ticker',
        change.ticker,
        'must be a non-empty ticker without surrounding spaces.',
      )
    if (change.reason !== undefined && (typeof change.reason !== 'string' || change.reason === ''))
      throw new LedgerInputError('reason', change.reason, 'is empty: say why the position is renamed.')
    const reference = change.reference ?? null
    if (reference !== null) {
      if (typeof reference !== 'string' || reference === '')
        throw new LedgerInputError('reference', reference, 'must be a non-empty string.')
      const existing = selectRenameByReference.get(reference)
      if (existing) return { status: 'duplicate', renameId: existing.id }
    }
    const current = writer.load(chainId, tokenAddress)
    if (!current)
      throw new PositionError({
        code: 'NO_POSITION',
        shortMessage: `No position in ${tokenAddress} on chain ${chainId} to rename to ${change.ticker}: nothing to do for a token the ledger never held.`,
        details: { chainId, tokenAddress },
      })
    const seq = writer.nextSeq()
    const recordedAt = now()
    const { record: position } = writer.apply(
      { seq, chainId, tokenAddress, kind: 'rename', ticker: change.ticker },
      corporateActionAttribution(recordedAt),
    )
    const result = insertRename.run({
      seq,
      chain_id: chainId,
      token_address: tokenAddress,
      from_ticker: current.ticker,
      to_ticker: change.ticker,
      reference,
      reason: change.reason ?? `ticker change ${current.ticker} → ${change.ticker}`,
      recorded_at_ms: recordedAt,
    })
    return { status: 'recorded', renameId: Number(result.lastInsertRowid), position }
  })

  return {
    renamePosition: (change: PositionRename) => rename.immediate(change),
    listRenames(filter: { chainId?: number | undefined; tokenAddress?: Address | undefined } = {}) {
      const chainId = filter.chainId ?? null
      const token =
        filter.tokenAddress === undefined ? null : canonicalAddress(filter.tokenAddress, 'tokenAddress')
      return selectRenames.all(chainId, chainId, token, token).map(renameRecordOfRow)
    },
    /** The rename recorded under `reference`, if any. */
    findRenameByReference: (reference: string) => selectRenameByReference.get(reference),
  }
}
