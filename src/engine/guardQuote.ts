import type { GetRouterQuoteReturnType } from '@stockroute/client/api/actions/getRouterQuote.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import { closedMarketPriceNote } from '@stockroute/client/domain/marketSessions.js'
import { exchangeNames } from '@stockroute/client/domain/markets.js'
import { assertOrderQuantity } from '@stockroute/client/domain/quantityRules.js'
import {
  deviationBps,
  effectivePricePerShare,
  marketPriceInAsset,
} from '@stockroute/client/domain/quotePrice.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import {
  type AssetAmount,
  type Price,
  toShareQuantity,
  toStockQuantity,
} from '@stockroute/client/domain/units.js'
import { type Address, isAddressEqual } from 'viem'
import { type RouterQuoteRule, verifyRouterQuote } from '../chain/verifyRouterQuote.js'
import { approvalTooLargeMessage, limitPriceMessage, priceDeviationMessage } from './guardMessages.js'
import type { CheckedIntent } from './intent.js'
import type { EngineSettings } from './settings.js'
import type { GuardChain, Instrument } from './types.js'

/** The rule a quote broke. The first four are the cryptographic and time rules of verifyRouterQuote. */
export type GuardRule =
  | RouterQuoteRule
  /** Ticker, exchange, side, chain, asset, stock token, amount type or amounts differ from the request. */
  | 'request'
  /** HK lot multiples, KR whole shares, a positive quantity. */
  | 'market-rules'
  /** An approval names a spender that is not allow-listed. */
  | 'spender'
  /** An approval is for another token, or for more than the quote needs. */
  | 'approval'
  /** The effective price is beyond the intent's limit. */
  | 'limit-price'
  /** The effective price is too far from the market price. */
  | 'price-deviation'
  /** A buy while the instrument's latest market quote status is not `normal` (halted, suspended…). */
  | 'market-status'

/** The guard's verdict on one quote. */
export type GuardVerdict =
  | {
      ok: true
      /** Milliseconds left before the quote's expiry second starts. */
      remainingMs: number
      /** Asset base units per whole share the quote pays (buy, fee included) or fetches (sell, net of fee). */
      effectivePrice: AssetAmount
      /** The market price in asset base units per share. */
      marketPrice: AssetAmount
      /** Basis points between the two. */
      deviationBps: bigint
      /** Set when the market price was read while its exchange was closed: `price from a closed market (HKEX closed: lunch break)`. */
      marketNote?: string
    }
  | {
      ok: false
      rule: GuardRule
      /** What was wrong, with the values involved. */
      message: string
      details: Readonly<Record<string, string | number>>
    }

export type GuardQuoteParameters = {
  intent: CheckedIntent
  instrument: Instrument
  chain: GuardChain
  reply: GetRouterQuoteReturnType
  /** The latest market price (market currency per share). */
  marketPrice: Price
  /** When it was read (Unix ms; default now): a price read while its exchange was closed is noted so. */
  marketPriceAtMs?: number | undefined
  /** The status of the instrument's latest market quote, when known: a buy is refused unless `normal`. */
  marketStatus?: string | undefined
  settings: Pick<EngineSettings, 'fxRates' | 'maxPriceDeviationBps' | 'extraSpenders'>
  /** The chain's inclusion time plus the margin, ms. */
  minValidityMs: number
  now: () => number
}

/**
 * The guard: everything checked about a router quote before anything is signed. It stops at the
 * first broken rule, checking the rules that make a quote untrustworthy (request, signature and
 * domain, market rules, approvals, prices) before the time rules (`expired`, `validity`), so that
 * a quote that is both wrong and short-lived is rejected rather than re-quoted. Pure apart from
 * the clock.
 *
 * @example
 * const verdict = await guardQuote({ intent, instrument, chain, reply, marketPrice, settings, minValidityMs, now: Date.now })
 * if (!verdict.ok) console.log(verdict.rule, verdict.message) // 'spender', 'approval 0 names spender 0x…'
 */
export async function guardQuote(parameters: GuardQuoteParameters): Promise<GuardVerdict> {
  const { intent, instrument, chain, reply, settings, minValidityMs, now } = parameters
  const { quote } = reply
  const mismatch = requestMismatch(intent, instrument, chain, reply)
  if (mismatch) return mismatch
  const { marketStatus } = parameters
  if (intent.side === 'buy' && marketStatus !== undefined && marketStatus !== 'normal')
    return reject(
      'market-status',
      `market quote status ${JSON.stringify(marketStatus)} for ${instrument.marketSymbol} on ${exchangeNames[instrument.exchange]}: no new entries`,
      { status: marketStatus, symbol: instrument.marketSymbol, market: instrument.market },
    )

  const signed = await verifyRouterQuote({
    quote: toSignedQuoteStruct(quote),
    signature: reply.signature,
    executorDomain: chain.executorDomain,
    pinned: {
      chainId: chain.chainId,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
    },
    minValidityMs,
    now,
    knownExecutors: chain.knownExecutors,
  })
  if (!signed.ok && (signed.rule === 'signer' || signed.rule === 'domain' || signed.rule === 'horizon'))
    return signed

  const stockAmount = quote.isBuy ? quote.amountOut : quote.amountIn
  try {
    assertOrderQuantity(
      quote.tokenKind === 'stock'
        ? {
            market: instrument.market,
            lotSize: instrument.lotSize,
            token: 'stock',
            quantity: toStockQuantity(stockAmount),
          }
        : { market: instrument.market, token: 'share', quantity: toShareQuantity(stockAmount) },
    )
  } catch (error) {
    if (error instanceof DomainRuleError)
      return reject('market-rules', `the quote's quantity breaks a market rule: ${error.shortMessage}`, {
        quantity: stockAmount.toString(),
      })
    throw error
  }

  const approvalProblem = checkApprovals(reply, chain, instrument, settings.extraSpenders)
  if (approvalProblem) return approvalProblem

  const priceCheck = checkPrices(parameters)
  if (!priceCheck.ok) return priceCheck
  if (!signed.ok) return signed
  return { ...priceCheck, remainingMs: signed.remainingMs }
}

function requestMismatch(
  intent: CheckedIntent,
  instrument: Instrument,
  chain: GuardChain,
  reply: GetRouterQuoteReturnType,
): GuardVerdict | undefined {
  const { quote } = reply
  const isBuy = intent.side === 'buy'
  const field = (name: string, got: unknown, expected: unknown) =>
    reject(
      'request',
      `the quote's ${name} is ${String(got)}, but the request asked for ${String(expected)}`,
      {
        field: name,
        got: String(got),
        expected: String(expected),
      },
    )
  if (quote.chainId !== intent.chainId) return field('chain_id', quote.chainId, intent.chainId)
  if (quote.ticker !== intent.ticker) return field('ticker', quote.ticker, intent.ticker)
  if (quote.exchange !== intent.exchange) return field('exchange', quote.exchange, intent.exchange)
  if (quote.isBuy !== isBuy) return field('side', quote.isBuy ? 'buy' : 'sell', intent.side)
  if (!isAddressEqual(quote.assetToken, chain.asset.address))
    return field('asset_token', quote.assetToken, `${chain.asset.address} (the chain's default asset)`)
  if (!isAddressEqual(quote.stockToken, instrument.tokenAddress))
    return field(
      'stock_token',
      quote.stockToken,
      `${instrument.tokenAddress} (${instrument.ticker} on chain ${intent.chainId})`,
    )
  if (quote.tokenKind !== instrument.tokenKind)
    return field('token kind', quote.tokenKind, instrument.tokenKind)
  const expectedType = isBuy && intent.amountType === 'stablecoin' ? 'stablecoin_in' : 'stocktoken_in'
  if (isBuy && quote.amountType !== expectedType) return field('amount_type', quote.amountType, expectedType)
  if (quote.amountIn !== intent.amountInBaseUnits)
    return field(
      'amount_in',
      quote.amountIn,
      `${intent.amountInBaseUnits} (${intent.amountIn} in natural units)`,
    )
  if (quote.amountOut <= 0n) return field('amount_out', quote.amountOut, 'a positive amount')
  if (quote.isBuy) {
    if (quote.amountType === 'stablecoin_in' && quote.amountInUsed > quote.amountIn)
      return field('amount_in_used', quote.amountInUsed, `at most amount_in ${quote.amountIn}`)
    if (quote.amountType === 'stocktoken_in' && quote.amountOut !== quote.amountIn)
      return field('amount_out', quote.amountOut, `the quantity asked, ${quote.amountIn}`)
    if (quote.feeAmount >= quote.amountInUsed)
      return field('fee_amount', quote.feeAmount, `less than the amount charged ${quote.amountInUsed}`)
  } else if (quote.amountInUsed !== quote.amountIn) {
    return field('amount_in_used', quote.amountInUsed, `the quantity sold, ${quote.amountIn}`)
  }
  return undefined
}

function checkApprovals(
  reply: GetRouterQuoteReturnType,
  chain: GuardChain,
  instrument: Instrument,
  extraSpenders: readonly Address[],
): GuardVerdict | undefined {
  const { quote } = reply
  const given = quote.isBuy ? quote.assetToken : quote.stockToken
  const allowed = [chain.executorAddress, ...extraSpenders]
  for (const [index, approval] of reply.requiredApprovals.entries()) {
    if (!allowed.some((spender) => isAddressEqual(spender, approval.spender)))
      return reject(
        'spender',
        `approval ${index} names spender ${approval.spender}, which is not allow-listed (allowed: ${allowed.join(', ')}): nothing is approved to it`,
        { index, spender: approval.spender },
      )
    if (!isAddressEqual(approval.tokenAddress, given))
      return reject(
        'approval',
        `approval ${index} is for token ${approval.tokenAddress}, not ${given}, the token this trade gives`,
        {
          index,
          token: approval.tokenAddress,
        },
      )
    if (approval.amount > quote.amountInUsed)
      return reject(
        'approval',
        approvalTooLargeMessage({
          index,
          amount: approval.amount,
          needed: quote.amountInUsed,
          unit: quote.isBuy
            ? { kind: 'asset', asset: messageAssetOf(chain) }
            : { kind: 'stock', token: { tokenKind: quote.tokenKind, ticker: instrument.ticker } },
        }),
        { index, amount: approval.amount.toString(), needed: quote.amountInUsed.toString() },
      )
  }
  return undefined
}

function checkPrices(
  parameters: GuardQuoteParameters,
): Extract<GuardVerdict, { ok: false }> | Omit<Extract<GuardVerdict, { ok: true }>, 'remainingMs'> {
  const { intent, instrument, chain, reply, marketPrice, settings } = parameters
  const { quote } = reply
  const fxRate = settings.fxRates[instrument.market]
  const decimals = chain.asset.decimals
  // Buys are judged on what is paid, rounded up; sells on what is received, rounded down.
  const effectivePrice = quote.isBuy
    ? effectivePricePerShare({
        assetAmount: quote.amountInUsed,
        stockAmount: quote.amountOut,
        tokenKind: quote.tokenKind,
        direction: 'up',
      })
    : effectivePricePerShare({
        assetAmount: quote.amountOut,
        stockAmount: quote.amountIn,
        tokenKind: quote.tokenKind,
        direction: 'down',
      })
  if (intent.limitPrice !== undefined) {
    const limit = marketPriceInAsset({
      price: intent.limitPrice,
      fxRate,
      assetDecimals: decimals,
      direction: quote.isBuy ? 'down' : 'up',
    })
    if (quote.isBuy ? effectivePrice > limit : effectivePrice < limit)
      return reject(
        'limit-price',
        limitPriceMessage({
          isBuy: quote.isBuy,
          effectivePrice,
          limit,
          limitPrice: intent.limitPrice,
          market: instrument.market,
          asset: messageAssetOf(chain),
        }),
        { effectivePrice: effectivePrice.toString(), limit: limit.toString() },
      )
  }
  const market = marketPriceInAsset({
    price: marketPrice,
    fxRate,
    assetDecimals: decimals,
    direction: 'down',
  })
  // A price read while its exchange was closed (lunch, night, holiday) is the last one traded.
  const marketNote = closedMarketPriceNote(
    instrument.exchange,
    parameters.marketPriceAtMs ?? parameters.now(),
  )
  const noted = marketNote === undefined ? {} : { marketNote }
  if (market <= 0n)
    return reject(
      'price-deviation',
      `the market price ${formatPrice(marketPrice)} ${marketCurrencies[instrument.market]} converts to nothing in ${messageAssetOf(chain).symbol}`,
      {
        marketPrice: marketPrice.toString(),
        ...noted,
      },
    )
  const deviation = deviationBps(effectivePrice, market)
  if (deviation > BigInt(settings.maxPriceDeviationBps))
    return reject(
      'price-deviation',
      priceDeviationMessage({
        effectivePrice,
        marketPrice: market,
        marketPriceInCurrency: marketPrice,
        market: instrument.market,
        deviationBps: deviation,
        maxBps: settings.maxPriceDeviationBps,
        asset: messageAssetOf(chain),
      }),
      {
        effectivePrice: effectivePrice.toString(),
        marketPrice: market.toString(),
        deviationBps: deviation.toString(),
        ...noted,
      },
    )
  return { ok: true, effectivePrice, marketPrice: market, deviationBps: deviation, ...noted }
}

function messageAssetOf(chain: GuardChain) {
  return { symbol: chain.asset.symbol ?? 'asset', decimals: chain.asset.decimals }
}

function reject(
  rule: GuardRule,
  message: string,
  details: Readonly<Record<string, string | number>>,
): Extract<GuardVerdict, { ok: false }> {
  return { ok: false, rule, message, details }
}
