import type { CorporateActionRecord } from '@stockroute/client/api/actions/getCorporateActions.js'
import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import { isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { formatUnits, getAddress, parseUnits, zeroAddress } from 'viem'
import { readDecimals } from '../../../chain/erc20.js'
import type { IncomeOriginal, PositionRecord } from '../../../store/index.js'
import { readReceipt, sameAddress, transfersTo } from './receipts.js'
import { decimalOrUndefined, quantityOf } from './recordQuantities.js'
import { type Outcome, type Step, skip } from './runContext.js'

// A processed dividend, recorded as income: the amount the chain minted to the maker, the gross,
// tax, fee and net in the market currency from the record.

export async function recordDividend({ record, position, client, context }: Step): Promise<Outcome> {
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
