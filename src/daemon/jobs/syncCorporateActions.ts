import {
  type Address,
  type Client,
  erc20Abi,
  formatUnits,
  getAddress,
  type Hex,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
  zeroAddress,
} from 'viem'
import { getTransactionReceipt } from 'viem/actions'
import { getChains } from '../../api/actions/getChains.js'
import { type CorporateActionRecord, iterateCorporateActions } from '../../api/actions/getCorporateActions.js'
import type { ServiceClient } from '../../api/createServiceClient.js'
import { readDecimals } from '../../chain/erc20.js'
import { rpcCall } from '../../chain/rpcCall.js'
import { marketCurrencies } from '../../domain/marketRules.js'
import { isExchangeCode, marketCodes, tokenKinds } from '../../domain/markets.js'
import { toAssetAmount } from '../../domain/units.js'
import type { IncomeOriginal, Ledger, PositionRecord } from '../../store/index.js'
import { type JobChain, type JobLogger, messageOf } from './jobTypes.js'

// Cron job: the maker's corporate actions, applied to the ledger once each. The service's records
// say what happened; the chain says how much (the processing transaction's receipt): a split's
// ratio comes from the record, a dividend's amount from the mint to the maker in that receipt.

export type SyncCorporateActionsParameters = {
  ledger: Ledger
  /** A client for the maker (`makerAddress`, or a wallet login): the records read are the maker's. */
  service: ServiceClient
  /**
   * The configured chains. Records are read per chain (other chains' are never read); each client
   * reads processing receipts (a dividend's payout, a delisting's compensation, trades after a split).
   */
  chains: readonly JobChain[]
  logger?: JobLogger | undefined
  /** Stops the job between records (it then rejects with the signal's reason). */
  signal?: AbortSignal | undefined
}

/** A record that was not applied, and why; it is looked at again on the next run. */
export type SkippedCorporateAction = { id: string; why: string }

export type SyncCorporateActionsReport = {
  /** Records read, every page of every configured chain. */
  seen: number
  /** Records applied to positions by this run: splits, reverse splits, delistings, ticker changes. */
  applied: number
  /** Records applied by an earlier run (found by reference): nothing changed. */
  alreadyApplied: number
  /** Dividends recorded as income by this run. */
  income: number
  /** Records not applied: not processed yet, no position in the token, a bad record… */
  skipped: SkippedCorporateAction[]
  /** Chains whose records could not be read (the other chains' records were still applied). */
  errors: { chainId: number; why: string }[]
}

type Outcome = { kind: 'applied' | 'already' | 'income' } | { kind: 'skipped'; why: string }

type RunContext = {
  ledger: Ledger
  service: ServiceClient
  clients: Map<number, Client>
  logger: JobLogger | undefined
  signal: AbortSignal | undefined
  defaultAssetOf: (chainId: number) => Promise<Address | undefined>
}

/**
 * Reads the maker's corporate action records of every configured chain (all pages) and applies
 * each `processed` one whose token the ledger holds a position in, exactly once (the record id is
 * the reference):
 *
 * - `stock_split`, `reverse_stock_split`: a `split` adjustment with the record's ratio (`params`
 *   numerator/denominator, else action_qty/holding_qty): the balance scales, the cost basis stays, so
 *   the average price scales inversely. Trades the ledger holds that were mined after the
 *   processing transaction are kept out of the scaling (the ratio applied is adjusted so that the
 *   result equals the chain's);
 * - `delisting`: a `delisting` adjustment, compensated by what the processing transaction paid the
 *   maker in the position's asset (0 when nothing);
 * - `ticker_change`: the position is renamed (`params.new_ticker`, else the record's ticker);
 * - `dividend`: income equal to the chain's mint of the default asset to the maker in the
 *   processing transaction (the service converts the net dividend at its FX rates, which the record
 *   does not carry), with gross, tax, fee and net in the market currency from the record.
 *
 * Never throws for one record: a record that cannot be applied is reported in `skipped` (and tried
 * again next run); a chain whose records cannot be read is reported in `errors`.
 *
 * @example
 * const report = await syncCorporateActions({ ledger, service, chains: [{ chainId, publicClient }], logger })
 * logger.info(report, 'corporate actions synced')
 */
export async function syncCorporateActions(
  parameters: SyncCorporateActionsParameters,
): Promise<SyncCorporateActionsReport> {
  const { ledger, service, chains, logger, signal } = parameters
  const report: SyncCorporateActionsReport = {
    seen: 0,
    applied: 0,
    alreadyApplied: 0,
    income: 0,
    skipped: [],
    errors: [],
  }
  const options = signal ? { signal } : {}

  const records: CorporateActionRecord[] = []
  for (const chain of chains) {
    try {
      for await (const record of iterateCorporateActions(service, { chainId: chain.chainId }, options))
        records.push(record)
    } catch (error) {
      signal?.throwIfAborted()
      const why = messageOf(error)
      report.errors.push({ chainId: chain.chainId, why })
      logger?.warn(
        { chainId: chain.chainId, err: why },
        'corporate actions: cannot read the records of a chain',
      )
    }
  }
  report.seen = records.length
  // Oldest first: actions on one token apply in the order they happened.
  records.sort(
    (a, b) => timeOf(a) - timeOf(b) || compareText(a.createdAt, b.createdAt) || compareText(a.id, b.id),
  )

  let chainList: Promise<Map<number, Address>> | undefined
  const context: RunContext = {
    ledger,
    service,
    clients: new Map(chains.map((chain) => [chain.chainId, chain.publicClient])),
    logger,
    signal,
    async defaultAssetOf(chainId) {
      chainList ??= getChains(service, {}, options).then(
        (reply) =>
          new Map(
            reply.chains.flatMap((chain) =>
              chain.defaultAssetAddress
                ? [[chain.chainId, getAddress(chain.defaultAssetAddress)] as const]
                : [],
            ),
          ),
      )
      try {
        return (await chainList).get(chainId)
      } catch (error) {
        chainList = undefined
        logger?.warn({ chainId, err: messageOf(error) }, 'corporate actions: cannot read the chain list')
        return undefined
      }
    },
  }

  for (const record of records) {
    signal?.throwIfAborted()
    let outcome: Outcome
    try {
      outcome = await applyRecord(record, context)
    } catch (error) {
      signal?.throwIfAborted()
      outcome = { kind: 'skipped', why: messageOf(error) }
    }
    const fields = {
      corporateActionId: record.id,
      chainId: record.chainId,
      actionType: record.actionType,
      ticker: record.ticker,
      tokenAddress: record.tokenAddress,
    }
    switch (outcome.kind) {
      case 'applied':
        report.applied += 1
        logger?.info(fields, 'corporate action applied to the ledger')
        break
      case 'income':
        report.income += 1
        logger?.info(fields, 'dividend recorded as income')
        break
      case 'already':
        report.alreadyApplied += 1
        break
      case 'skipped':
        report.skipped.push({ id: record.id, why: outcome.why })
        logger?.debug({ ...fields, why: outcome.why }, 'corporate action not applied')
        break
    }
  }
  return report
}

async function applyRecord(record: CorporateActionRecord, context: RunContext): Promise<Outcome> {
  const { ledger } = context
  const client = context.clients.get(record.chainId)
  if (!client) return skip(`chain ${record.chainId} is not configured`)
  if (record.status !== 'processed') return skip(`status ${record.status}: not processed yet`)
  if (!record.tokenAddress) return skip('the record names no token address')
  if (ledger.positions.findAppliedReference(record.id) || ledger.income.getIncomeByReference(record.id))
    return { kind: 'already' }
  const position = ledger.positions.getPosition(record.chainId, record.tokenAddress)
  if (!position)
    return skip(
      `the ledger has no position in ${record.ticker ?? '?'} (${record.tokenAddress}) on chain ${record.chainId}`,
    )
  const step = { record, position, client, context }
  switch (record.actionType) {
    case 'stock_split':
    case 'reverse_stock_split':
      return applySplit(step)
    case 'delisting':
      return applyDelisting(step)
    case 'ticker_change':
      return applyTickerChange(step)
    case 'dividend':
      return recordDividend(step)
    default:
      return skip(`unknown action type ${String(record.actionType)}`)
  }
}

type Step = {
  record: CorporateActionRecord
  position: PositionRecord
  client: Client
  context: RunContext
}

async function applySplit({ record, position, client, context }: Step): Promise<Outcome> {
  const ratio = splitRatio(record)
  if (!ratio)
    return skip('the record gives no split ratio (params numerator/denominator, or action_qty/holding_qty)')
  const receipt = record.processedHash
    ? await readReceipt(client, record.processedHash, context.signal)
    : undefined
  if (receipt?.status === 'reverted')
    return skip(`the processing transaction ${receipt.transactionHash} reverted`)
  // Trades the ledger holds that the chain settled after the split: the split did not scale them.
  const after = receipt ? quantityTradedAfter(context.ledger, position, receipt) : 0n
  let { numerator, denominator } = ratio
  let note = ''
  if (after !== 0n) {
    const before = position.balance - after
    const target = (before * ratio.numerator) / ratio.denominator + after
    if (position.balance <= 0n || target <= 0n)
      return skip(
        `${after} of ${position.ticker} was traded after the split (balance now ${position.balance}): the split cannot be applied as a ratio; adjust the position by hand`,
      )
    const divisor = gcd(target, position.balance)
    numerator = target / divisor
    denominator = position.balance / divisor
    note = `, applied as ${numerator}/${denominator} since ${after} was traded after it`
  }
  const holding = quantityOf(record.holdingQty, position)
  if (after === 0n && holding !== undefined && holding !== position.balance)
    context.logger?.warn(
      {
        corporateActionId: record.id,
        chainId: position.chainId,
        ticker: position.ticker,
        ledger: position.balance.toString(),
        holding: holding.toString(),
      },
      'corporate actions: the ledger balance before the split differs from the holding the service split',
    )
  const label = record.actionType === 'reverse_stock_split' ? 'reverse stock split' : 'stock split'
  const result = context.ledger.positions.applyPositionAdjustment({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    kind: 'split',
    numerator,
    denominator,
    reason: `${ratio.numerator}-for-${ratio.denominator} ${label} of ${position.ticker}${note}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}

async function applyDelisting({ record, position, client, context }: Step): Promise<Outcome> {
  let compensation = 0n
  if (record.processedHash) {
    const receipt = await readReceipt(client, record.processedHash, context.signal)
    if (receipt.status === 'reverted')
      return skip(`the processing transaction ${receipt.transactionHash} reverted`)
    compensation = transfersTo(receipt, record.maker)
      .filter((log) => sameAddress(log.address, position.assetToken))
      .reduce((sum, log) => sum + log.args.value, 0n)
  }
  const result = context.ledger.positions.applyPositionAdjustment({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    kind: 'delisting',
    compensation: toAssetAmount(compensation),
    reason: `delisting of ${position.ticker}${compensation > 0n ? `, compensation ${formatUnits(compensation, position.assetDecimals)}` : ''}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}

function applyTickerChange({ record, position, context }: Step): Outcome {
  const fromParams = record.params?.new_ticker
  const ticker =
    typeof fromParams === 'string' && fromParams.trim() !== '' ? fromParams.trim() : record.ticker
  if (!ticker) return skip('the ticker change names no new ticker (params.new_ticker or ticker)')
  const result = context.ledger.positions.renamePosition({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    ticker,
    reason: `ticker change ${position.ticker} → ${ticker}`,
    reference: record.id,
  })
  return { kind: result.status === 'recorded' ? 'applied' : 'already' }
}

async function recordDividend({ record, position, client, context }: Step): Promise<Outcome> {
  if (!record.processedHash)
    return skip('the processed dividend names no processed_hash: its payout cannot be read from the chain')
  const receipt = await readReceipt(client, record.processedHash, context.signal)
  if (receipt.status === 'reverted')
    return skip(`the processing transaction ${receipt.transactionHash} reverted`)
  const defaultAsset = await context.defaultAssetOf(position.chainId)
  const mints = transfersTo(receipt, record.maker).filter(
    (log) =>
      sameAddress(log.args.from, zeroAddress) &&
      !sameAddress(log.address, position.tokenAddress) &&
      (defaultAsset === undefined || sameAddress(log.address, defaultAsset)),
  )
  const assets = [...new Set(mints.map((log) => getAddress(log.address)))]
  if (assets.length > 1)
    return skip(`the processing transaction mints several assets to the maker (${assets.join(', ')})`)
  const net = record.originalNetAmount
  if (mints.length === 0 && net !== null && decimalOrUndefined(net) !== undefined && parseUnits(net, 18) > 0n)
    return skip(
      `no payout to the maker in ${receipt.transactionHash} although the net dividend is ${net}: tried again next run`,
    )
  const assetToken = assets[0] ?? defaultAsset ?? position.assetToken
  const assetDecimals = sameAddress(assetToken, position.assetToken)
    ? position.assetDecimals
    : await readDecimals(client, assetToken, context.signal ? { signal: context.signal } : {})
  const amount = mints.reduce((sum, log) => sum + log.args.value, 0n)
  const original = dividendOriginal(record, position)
  const perShare = record.dividend?.dividendPerShare
  const result = context.ledger.income.recordIncome({
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    ticker: position.ticker,
    kind: 'dividend',
    amount: toAssetAmount(amount),
    assetToken,
    assetDecimals,
    quantity: quantityOf(record.holdingQty, position),
    original,
    txHash: receipt.transactionHash,
    logIndex: mints[0]?.logIndex ?? undefined,
    reference: record.id,
    reason: `dividend of ${position.ticker}${perShare ? ` ${perShare} ${original.currency ?? ''} a share`.trimEnd() : ''} on ${record.holdingQty}`,
  })
  return { kind: result.status === 'recorded' ? 'income' : 'already' }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function skip(why: string): Outcome {
  return { kind: 'skipped', why }
}

function readReceipt(
  client: Client,
  hash: Hex,
  signal: AbortSignal | undefined,
): Promise<TransactionReceipt> {
  return rpcCall(
    client,
    `receipt of the corporate action transaction ${hash}`,
    () => getTransactionReceipt(client, { hash }),
    signal ? { signal } : {},
  )
}

function transfersTo(receipt: TransactionReceipt, owner: Address) {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).filter((log) =>
    sameAddress(log.args.to, owner),
  )
}

/** Net stock quantity of the ledger's fills in the position's token mined after the receipt's transaction. */
function quantityTradedAfter(ledger: Ledger, position: PositionRecord, receipt: TransactionReceipt): bigint {
  const lastLogIndex = receipt.logs.reduce((max, log) => Math.max(max, log.logIndex ?? -1), -1)
  return ledger.fills
    .listFills({ chainId: position.chainId })
    .filter(
      (fill) =>
        sameAddress(fill.stockToken, position.tokenAddress) &&
        (fill.blockNumber > receipt.blockNumber ||
          (fill.blockNumber === receipt.blockNumber && lastLogIndex >= 0 && fill.logIndex > lastLogIndex)),
    )
    .reduce((sum, fill) => sum + (fill.isBuy ? fill.stockAmount : -fill.stockAmount), 0n)
}

/** The split ratio of a record: `params` numerator/denominator, else action_qty/holding_qty. */
export function splitRatio(
  record: Pick<CorporateActionRecord, 'params' | 'actionQty' | 'holdingQty'>,
): { numerator: bigint; denominator: bigint } | undefined {
  const numerator = positiveInteger(record.params?.numerator)
  const denominator = positiveInteger(record.params?.denominator)
  if (numerator !== undefined && denominator !== undefined) return { numerator, denominator }
  const after = decimalOrUndefined(record.actionQty)
  const before = decimalOrUndefined(record.holdingQty)
  if (after === undefined || before === undefined) return undefined
  const a = parseUnits(after, 18)
  const b = parseUnits(before, 18)
  if (a <= 0n || b <= 0n) return undefined
  const divisor = gcd(a, b)
  return { numerator: a / divisor, denominator: b / divisor }
}

function positiveInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return BigInt(value)
  if (typeof value === 'string' && /^[1-9]\d*$/.test(value)) return BigInt(value)
  return undefined
}

function decimalOrUndefined(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? value : undefined
}

/** A record quantity (natural units) in the position token's base units. */
function quantityOf(text: string, position: PositionRecord): bigint | undefined {
  const value = decimalOrUndefined(text)
  return value === undefined ? undefined : parseUnits(value, tokenKinds[position.tokenKind].decimals)
}

/**
 * A dividend's numbers in the market currency: gross = holding × dividend per share (as the service
 * computes it, at 18 decimals); fee, net and tax rate from the record; tax = gross − fee − net when
 * the net is positive, else the tax rate of the gross rounded up.
 */
function dividendOriginal(record: CorporateActionRecord, position: PositionRecord): IncomeOriginal {
  const exchange = record.exchange ?? position.exchange
  const currency = isExchangeCode(exchange) ? marketCurrencies[marketCodes[exchange]] : undefined
  const scale = 10n ** 18n
  const holding = decimalOrUndefined(record.holdingQty)
  const perShare = decimalOrUndefined(record.dividend?.dividendPerShare)
  const fee = decimalOrUndefined(record.originalFeeAmount ?? record.dividend?.feeAmount)
  const net = decimalOrUndefined(record.originalNetAmount)
  const rateText = record.taxRate ?? (record.dividend ? String(record.dividend.taxRate) : undefined)
  const taxRate = rateText !== undefined && /^\d{1,3}$/.test(rateText) ? Number(rateText) : undefined
  const gross =
    holding !== undefined && perShare !== undefined
      ? (parseUnits(holding, 18) * parseUnits(perShare, 18)) / scale
      : undefined
  let tax: bigint | undefined
  if (gross !== undefined && fee !== undefined && net !== undefined && parseUnits(net, 18) > 0n) {
    const derived = gross - parseUnits(fee, 18) - parseUnits(net, 18)
    if (derived >= 0n) tax = derived
  }
  if (tax === undefined && gross !== undefined && taxRate !== undefined && taxRate <= 100)
    tax = (gross * BigInt(taxRate) + 99n) / 100n
  const text = (value: bigint | undefined) => (value === undefined ? undefined : formatUnits(value, 18))
  return {
    currency,
    gross: text(gross),
    tax: text(tax),
    fee,
    net,
    taxRate: taxRate !== undefined && taxRate <= 100 ? taxRate : undefined,
  }
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a
  let y = b < 0n ? -b : b
  while (y !== 0n) [x, y] = [y, x % y]
  return x === 0n ? 1n : x
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function timeOf(record: CorporateActionRecord): number {
  const at = Date.parse(record.processedAt ?? record.createdAt ?? '')
  return Number.isNaN(at) ? Number.MAX_SAFE_INTEGER : at
}

function compareText(a: string | null, b: string | null): number {
  return (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0
}
