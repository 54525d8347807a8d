import { type AssetAmount, toAssetAmount } from '@stockroute/client/domain/units.js'
import type { Address, Hex } from 'viem'
import {
  canonicalAddress,
  canonicalBytes32,
  LedgerInputError,
  safeInteger,
  textToUint,
  uintToText,
} from './codec.js'
import type { RepositoryContext } from './context.js'

// Income a holding earns without a trade: dividends paid by corporate actions. Kept beside the
// positions, never folded into them (cost basis and realized PnL stay the fold of fills and
// adjustments), each recorded once by its reference (the corporate action record's id).

/** Kinds of income the ledger records. */
export const incomeKinds = ['dividend'] as const
export type IncomeKind = (typeof incomeKinds)[number]

/**
 * The service's numbers of an income, in the stock's market currency and natural units (decimal
 * strings such as `"224"` or `"0.5"`), when known. They explain `amount`; they are not asset units.
 */
export type IncomeOriginal = {
  /** ISO code of the market currency: `USD`, `HKD`, `KRW`. */
  currency?: string | undefined
  gross?: string | undefined
  tax?: string | undefined
  fee?: string | undefined
  net?: string | undefined
  /** Integer percentage, 0 to 100. */
  taxRate?: number | undefined
}

/** An income to record. */
export type NewIncome = {
  chainId: number
  /** The token whose holding earned it. */
  tokenAddress: Address
  ticker: string
  kind: IncomeKind
  /** What the holder received, in base units of `assetToken` (0 when tax and fees took it all). */
  amount: AssetAmount
  assetToken: Address
  assetDecimals: number
  /** The holding that earned it, in the token's base units, when known. */
  quantity?: bigint | undefined
  original?: IncomeOriginal | undefined
  /** The transaction (and log) that paid it, when known. */
  txHash?: Hex | undefined
  logIndex?: number | undefined
  /** An external id (the corporate action record's id): an income with the same reference is recorded once. */
  reference: string
  /** Why (shown in reports). */
  reason: string
}

/** A stored income. */
export type IncomeRecord = {
  /** Recorded order. */
  id: number
  chainId: number
  tokenAddress: Address
  ticker: string
  kind: IncomeKind
  amount: AssetAmount
  assetToken: Address
  assetDecimals: number
  quantity: bigint | null
  original: {
    currency: string | null
    gross: string | null
    tax: string | null
    fee: string | null
    net: string | null
    taxRate: number | null
  }
  txHash: Hex | null
  logIndex: number | null
  reference: string
  reason: string
  recordedAtMs: number
}

/** What {@link IncomeRepository.recordIncome} did. */
export type RecordIncomeResult =
  | { status: 'recorded'; income: IncomeRecord }
  /** An income with this reference was recorded before; nothing changed. `income` is the stored one. */
  | { status: 'duplicate'; income: IncomeRecord }

/** The income of one asset on one chain, summed. */
export type IncomeTotal = {
  chainId: number
  assetToken: Address
  assetDecimals: number
  /** Base units of the asset. */
  total: AssetAmount
  count: number
}

export type IncomeFilter = {
  chainId?: number | undefined
  tokenAddress?: Address | undefined
  kind?: IncomeKind | undefined
  /** Recorded at or after (Unix ms). */
  sinceMs?: number | undefined
}

/** An `income` row as SQLite returns it (reports read the table with it). */
export type IncomeRow = {
  id: number
  chain_id: number
  token_address: string
  ticker: string
  kind: IncomeKind
  quantity: string | null
  amount: string
  asset_token: string
  asset_decimals: number
  original_currency: string | null
  original_gross: string | null
  original_tax: string | null
  original_fee: string | null
  original_net: string | null
  tax_rate: number | null
  tx_hash: string | null
  log_index: number | null
  reference: string
  reason: string
  recorded_at_ms: number
}

function recordOfRow(row: IncomeRow): IncomeRecord {
  return {
    id: row.id,
    chainId: row.chain_id,
    tokenAddress: row.token_address as Address,
    ticker: row.ticker,
    kind: row.kind,
    amount: toAssetAmount(textToUint(row.amount, 'income.amount')),
    assetToken: row.asset_token as Address,
    assetDecimals: row.asset_decimals,
    quantity: row.quantity === null ? null : textToUint(row.quantity, 'income.quantity'),
    original: {
      currency: row.original_currency,
      gross: row.original_gross,
      tax: row.original_tax,
      fee: row.original_fee,
      net: row.original_net,
      taxRate: row.tax_rate,
    },
    txHash: row.tx_hash as Hex | null,
    logIndex: row.log_index,
    reference: row.reference,
    reason: row.reason,
    recordedAtMs: row.recorded_at_ms,
  }
}

const decimalInput = /^(\d+)(?:\.(\d+))?$/

/**
 * A non-negative decimal string in canonical form (no leading zeros, no trailing fraction zeros).
 *
 * @example
 * canonicalDecimal('0224.50', 'original.net') // '224.5'
 */
export function canonicalDecimal(value: string, field: string): string {
  const match = typeof value === 'string' ? decimalInput.exec(value) : null
  if (!match)
    throw new LedgerInputError(field, value, 'is not a non-negative decimal such as "224" or "0.5".')
  const whole = (match[1] ?? '0').replace(/^0+(?=\d)/, '')
  const fraction = (match[2] ?? '').replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

/** The income repository: dividends and other income, each recorded once, with totals per asset. */
export type IncomeRepository = {
  /**
   * Stores an income. Idempotent by `reference`: the same reference again changes nothing and
   * returns `duplicate` with the stored income. Throws {@link LedgerInputError} for values that
   * cannot be stored (negative amount, empty ticker, malformed decimal…).
   *
   * @example
   * ledger.income.recordIncome({ chainId: 31337, tokenAddress: aapl, ticker: 'AAPL', kind: 'dividend',
   *   amount: 28_784_000n, assetToken: usdc, assetDecimals: 6, reference: record.id, reason: 'dividend 0.25 USD' })
   */
  recordIncome(income: NewIncome): RecordIncomeResult
  /**
   * @example
   * ledger.income.getIncomeByReference(record.id)?.amount
   */
  getIncomeByReference(reference: string): IncomeRecord | undefined
  /**
   * Incomes in recorded order, optionally of one chain, token or kind, or since a time.
   *
   * @example
   * ledger.income.listIncome({ chainId: 31337, kind: 'dividend' })
   */
  listIncome(filter?: IncomeFilter): IncomeRecord[]
  /**
   * The income summed per chain and asset (exact bigint sums), by chain then asset.
   *
   * @example
   * ledger.income.incomeTotals({ chainId: 31337 }) // [{ chainId: 31337, assetToken: usdc, assetDecimals: 6, total: 28784000n, count: 1 }]
   */
  incomeTotals(filter?: IncomeFilter): IncomeTotal[]
}

/** Builds the income repository over an open database (see `openLedger`). */
export function createIncomeRepository({ db, now }: RepositoryContext): IncomeRepository {
  const selectByReference = db.prepare<[string], IncomeRow>('SELECT * FROM income WHERE reference = ?')
  const insert = db.prepare<[Omit<IncomeRow, 'id'>]>(
    `INSERT INTO income (chain_id, token_address, ticker, kind, quantity, amount, asset_token, asset_decimals,
       original_currency, original_gross, original_tax, original_fee, original_net, tax_rate, tx_hash, log_index,
       reference, reason, recorded_at_ms)
     VALUES (@chain_id, @token_address, @ticker, @kind, @quantity, @amount, @asset_token, @asset_decimals,
       @original_currency, @original_gross, @original_tax, @original_fee, @original_net, @tax_rate, @tx_hash,
       @log_index, @reference, @reason, @recorded_at_ms)`,
  )
  const selectMany = db.prepare<
    [number | null, number | null, string | null, string | null, string | null, string | null, number | null],
    IncomeRow
  >(
    `SELECT * FROM income WHERE (? IS NULL OR chain_id = ?) AND (? IS NULL OR token_address = ?)
       AND (? IS NULL OR kind = ?) AND recorded_at_ms >= coalesce(?, 0) ORDER BY id`,
  )

  const list = (filter: IncomeFilter = {}): IncomeRecord[] => {
    const chainId = filter.chainId ?? null
    const token =
      filter.tokenAddress === undefined ? null : canonicalAddress(filter.tokenAddress, 'tokenAddress')
    const kind = filter.kind ?? null
    return selectMany.all(chainId, chainId, token, token, kind, kind, filter.sinceMs ?? null).map(recordOfRow)
  }

  const record = db.transaction((income: NewIncome): RecordIncomeResult => {
    const reference = income.reference
    if (typeof reference !== 'string' || reference === '')
      throw new LedgerInputError(
        'reference',
        reference,
        'must be a non-empty string: income is recorded once per reference.',
      )
    const existing = selectByReference.get(reference)
    if (existing) return { status: 'duplicate', income: recordOfRow(existing) }
    if (!incomeKinds.includes(income.kind))
      throw new LedgerInputError('kind', income.kind, `must be one of ${incomeKinds.join(', ')}.`)
    if (typeof income.ticker !== 'string' || income.ticker === '')
      throw new LedgerInputError('ticker', income.ticker, 'must be a non-empty string.')
    if (typeof income.reason !== 'string' || income.reason === '')
      throw new LedgerInputError('reason', income.reason, 'is empty: say where the income comes from.')
    const assetDecimals = safeInteger(income.assetDecimals, 'assetDecimals')
    if (assetDecimals > 36) throw new LedgerInputError('assetDecimals', assetDecimals, 'must be at most 36.')
    const original = income.original ?? {}
    const decimalOrNull = (value: string | undefined, field: string) =>
      value === undefined ? null : canonicalDecimal(value, field)
    const currency = original.currency ?? null
    if (currency !== null && !/^[A-Z]{3}$/.test(currency))
      throw new LedgerInputError('original.currency', currency, 'must be a 3-letter ISO code such as USD.')
    const taxRate = original.taxRate ?? null
    if (taxRate !== null && (!Number.isInteger(taxRate) || taxRate < 0 || taxRate > 100))
      throw new LedgerInputError('original.taxRate', taxRate, 'must be an integer percentage from 0 to 100.')
    const logIndex = income.logIndex === undefined ? null : safeInteger(income.logIndex, 'logIndex')
    const txHash = income.txHash === undefined ? null : canonicalBytes32(income.txHash, 'txHash')
    if (logIndex !== null && txHash === null)
      throw new LedgerInputError('logIndex', logIndex, 'needs the txHash of its transaction.')
    insert.run({
      chain_id: safeInteger(income.chainId, 'chainId', 1),
      token_address: canonicalAddress(income.tokenAddress, 'tokenAddress'),
      ticker: income.ticker,
      kind: income.kind,
      quantity: income.quantity === undefined ? null : uintToText(income.quantity, 'quantity'),
      amount: uintToText(income.amount, 'amount'),
      asset_token: canonicalAddress(income.assetToken, 'assetToken'),
      asset_decimals: assetDecimals,
      original_currency: currency,
      original_gross: decimalOrNull(original.gross, 'original.gross'),
      original_tax: decimalOrNull(original.tax, 'original.tax'),
      original_fee: decimalOrNull(original.fee, 'original.fee'),
      original_net: decimalOrNull(original.net, 'original.net'),
      tax_rate: taxRate,
      tx_hash: txHash,
      log_index: logIndex,
      reference,
      reason: income.reason,
      recorded_at_ms: now(),
    })
    return { status: 'recorded', income: recordOfRow(selectByReference.get(reference) as IncomeRow) }
  })

  return {
    recordIncome: (income) => record.immediate(income),
    getIncomeByReference(reference) {
      const row = selectByReference.get(reference)
      return row ? recordOfRow(row) : undefined
    },
    listIncome: list,
    incomeTotals(filter = {}) {
      const totals = new Map<string, IncomeTotal>()
      for (const income of list(filter)) {
        const key = `${income.chainId}:${income.assetToken}:${income.assetDecimals}`
        const total = totals.get(key)
        if (total) {
          total.total = toAssetAmount(total.total + income.amount)
          total.count += 1
        } else
          totals.set(key, {
            chainId: income.chainId,
            assetToken: income.assetToken,
            assetDecimals: income.assetDecimals,
            total: income.amount,
            count: 1,
          })
      }
      return [...totals.values()].sort(
        (a, b) =>
          a.chainId - b.chainId || (a.assetToken < b.assetToken ? -1 : a.assetToken > b.assetToken ? 1 : 0),
      )
    },
  }
}
