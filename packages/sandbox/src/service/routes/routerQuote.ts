import { randomBytes } from 'node:crypto'
import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import {
  type ExchangeCode,
  isExchangeCode,
  type MarketCode,
  marketCodes,
} from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { AssetAmount } from '@stockroute/client/domain/units.js'
import { erc20Abi, formatUnits } from 'viem'
import { z } from 'zod'
import { publicClientFor } from '../../chainClients.js'
import type { DeployedAsset } from '../../deploy.js'
import type { LocalChain } from '../../localChains.js'
import { findChain, findListing } from '../context.js'
import type { IssuedQuote, Listing, SandboxContext } from '../contextTypes.js'
import { httpError } from '../errors.js'
import { takeFault } from '../faultSwitch.js'
import { computeQuoteAmounts, type QuoteAmounts } from '../quotes/computeQuoteAmounts.js'
import { type SignedQuote, signQuoteWithFault } from '../quotes/quoteFaults.js'
import { assetPricePerShare } from '../quotes/quotePricing.js'
import { addressParam, boolParam, intParam, parseQuery, stringParam } from '../request.js'
import { ok, type Route } from '../route.js'

/** A router quote can be executed for this long after it is issued. */
export const routerQuoteValiditySeconds = 10

const routerQuoteQuery = z.object({
  ticker: stringParam().min(1, 'must not be empty').max(32, 'is too long'),
  exchange: intParam(),
  is_buy: boolParam,
  chain_id: intParam({ min: 0 }),
  asset: addressParam,
  amount_in: stringParam().min(1, 'must not be empty').max(80, 'is too long'),
  amount_type: z.enum(['stablecoin', 'stocktoken'], { error: 'must be stablecoin or stocktoken' }).optional(),
})

/** Domain rule codes as the quote endpoint reports them (message of the 400 body). */
const ruleMessages: Record<string, string> = {
  NOT_LOT_MULTIPLE: 'Lot size violation',
  BELOW_ONE_LOT: 'Amount below one lot',
  FRACTIONAL_SHARES: 'Fractional shares not allowed',
  ROUNDS_TO_ZERO: 'Amount too small',
  BAD_DECIMAL: 'Invalid parameter',
  NEGATIVE_AMOUNT: 'Invalid parameter',
}

type RouterQuoteQuery = z.infer<typeof routerQuoteQuery>

/** What a valid request quotes: a served chain, an active listing on it, and the chain's default asset. */
type QuoteTarget = { exchange: ExchangeCode; chain: LocalChain; listing: Listing; asset: DeployedAsset }

/** The request's price and how its `amount_in` reads. */
type QuotePricing = {
  market: MarketCode
  /** Asset base units per share, rounded up on buys and down on sells. */
  pricePerShare: AssetAmount
  amountType: 'stablecoin' | 'stocktoken'
}

/** GET /api/v1/router/quote: a signed, 10-second quote executable through the chain's executor. */
export const routerQuoteRoute: Route = {
  method: 'GET',
  path: '/api/v1/router/quote',
  auth: 'institution',
  async handle(request, context) {
    const query = parseQuery(request, routerQuoteQuery)
    const target = quoteTargetOf(query, context)
    const nowMs = context.clock.now()
    const lastPrice = context.prices.lastPrice(target.listing.stock.ticker, target.exchange, nowMs)
    const pricing = pricingOf(query, target, lastPrice)
    // A function, because a TEST-ONLY `wrong-amount` fault quotes another amount the same way.
    const quoteAmounts = (amountIn: string) => settleableAmounts(query, target, pricing, amountIn)
    const amounts = await quoteAmounts(query.amount_in)
    const quoteId = `0x${randomBytes(32).toString('hex')}` as const
    const signed = await signQuoteWithFault({
      fault: takeFault(context.faults),
      chain: target.chain,
      listing: target.listing,
      listings: context.listings.get(target.chain.chainId) ?? [],
      struct: {
        quoteId,
        stockToken: target.listing.address,
        assetToken: target.asset.address,
        isBuy: query.is_buy,
        amountIn: amounts.amountInUsed,
        amountOut: amounts.amountOut,
        feeAmount: amounts.feeAmount,
        expiresAt: BigInt(Math.floor(nowMs / 1000) + routerQuoteValiditySeconds),
      },
      amountIn: amounts.amountIn,
      requestedAmountIn: query.amount_in,
      nowMs,
      requote: quoteAmounts,
    })
    const issued = issuedQuoteOf(query, target, pricing, signed, nowMs)
    context.quotes.set(quoteId, issued)
    return ok(routerQuoteReply(query, target, issued, signed))
  },
}

/** The chain, listing and asset a request names, checked in the order the errors are documented. */
function quoteTargetOf(query: RouterQuoteQuery, context: SandboxContext): QuoteTarget {
  if (!isExchangeCode(query.exchange)) {
    throw httpError(400, 'Unsupported exchange', 'exchange: must be 0 (US), 1 (HK) or 3 (KR)')
  }
  const chain = findChain(context, query.chain_id)
  if (!chain) {
    const known = context.chains.map((c) => c.chainId).join(', ')
    throw httpError(400, 'Unsupported chain', `chain_id: ${query.chain_id} is not served; chains: ${known}`)
  }
  if (!query.is_buy && query.amount_type === 'stablecoin') {
    throw httpError(
      400,
      'Invalid parameter',
      "amount_type: stablecoin applies to buys only; a sell's amount_in is a share quantity",
    )
  }
  const listing = findListing(context, chain.chainId, query.ticker, query.exchange)
  if (!listing?.isActive) {
    throw httpError(
      404,
      'Unknown ticker',
      `no active token ${query.ticker} on exchange ${query.exchange} and chain ${chain.chainId}; list them with GET /api/v1/chains/${chain.chainId}/tokens`,
    )
  }
  const asset = chain.defaultAsset
  if (query.asset !== asset.address.toLowerCase()) {
    throw httpError(
      400,
      'Unsupported asset',
      `asset: must be the chain's default asset ${asset.symbol} (${asset.address}) on chain ${chain.chainId}`,
    )
  }
  return { exchange: query.exchange, chain, listing, asset }
}

/** The asset price per share of the stock's `lastPrice`, and the amount type the request means. */
function pricingOf(query: RouterQuoteQuery, target: QuoteTarget, lastPrice: string): QuotePricing {
  const market = marketCodes[target.exchange]
  const pricePerShare = assetPricePerShare({
    marketPrice: parsePrice(lastPrice),
    market,
    assetDecimals: target.asset.decimals,
    direction: query.is_buy ? 'up' : 'down',
  })
  const amountType = query.is_buy ? (query.amount_type ?? 'stablecoin') : 'stocktoken'
  return { market, pricePerShare, amountType }
}

/** The quote's amounts for `amountIn`, domain rule failures as 400s, checked against the payer's inventory. */
async function settleableAmounts(
  query: RouterQuoteQuery,
  { chain, listing, asset }: QuoteTarget,
  { market, pricePerShare, amountType }: QuotePricing,
  amountIn: string,
): Promise<QuoteAmounts> {
  let amounts: QuoteAmounts
  try {
    amounts = computeQuoteAmounts({
      market,
      tokenKind: listing.kind,
      lotSize: BigInt(listing.stock.lotSize),
      isBuy: query.is_buy,
      amountType,
      amountIn,
      assetDecimals: asset.decimals,
      pricePerShare,
    })
  } catch (error) {
    if (error instanceof DomainRuleError) {
      throw httpError(
        400,
        ruleMessages[error.code] ?? 'Invalid parameter',
        `amount_in: ${error.shortMessage}`,
      )
    }
    throw error
  }
  await assertPayerCanSettle(chain, listing.address, query.is_buy, amounts)
  return amounts
}

/** The quote as the service remembers it, to trace its execution back to this request. */
function issuedQuoteOf(
  query: RouterQuoteQuery,
  { exchange, chain, listing }: QuoteTarget,
  { pricePerShare, amountType }: QuotePricing,
  { signed, signature, amountIn }: SignedQuote,
  nowMs: number,
): IssuedQuote {
  return {
    quoteId: signed.quoteId,
    chainId: chain.chainId,
    ticker: listing.ticker,
    exchange,
    isBuy: query.is_buy,
    amountType: amountType === 'stablecoin' ? 'stablecoin_in' : 'stocktoken_in',
    stockToken: signed.stockToken,
    assetToken: signed.assetToken,
    amountIn,
    amountInUsed: signed.amountIn,
    amountOut: signed.amountOut,
    feeAmount: signed.feeAmount,
    price: pricePerShare,
    expiresAt: Number(signed.expiresAt),
    signature,
    issuedAtMs: nowMs,
  }
}

/** The reply body: the quote as replied, its signature, and the one approval it needs. */
function routerQuoteReply(
  query: RouterQuoteQuery,
  { exchange, chain, listing, asset }: QuoteTarget,
  issued: IssuedQuote,
  { signature, replied, amountIn, stock, spender }: SignedQuote,
) {
  const executor = chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'
  const approvalToken = query.is_buy ? asset.address : stock.address
  const approvalDecimals = query.is_buy ? asset.decimals : stock.decimals
  const approvalSymbol = query.is_buy ? asset.symbol : stock.ticker
  return {
    quote: {
      quote_id: issued.quoteId,
      ticker: listing.ticker,
      exchange,
      is_buy: query.is_buy,
      chain_id: chain.chainId,
      amount_type: issued.amountType,
      amount_in: amountIn.toString(),
      amount_in_used: replied.amountIn.toString(),
      amount_out: replied.amountOut.toString(),
      fee_amount: replied.feeAmount.toString(),
      stock_token: replied.stockToken,
      asset_token: replied.assetToken,
      price: issued.price.toString(),
      expires_at: Number(replied.expiresAt),
    },
    signature,
    required_approvals: [
      {
        token_address: approvalToken,
        spender,
        amount: replied.amountIn.toString(),
        description: `Approve ${formatUnits(replied.amountIn, approvalDecimals)} ${approvalSymbol} for the ${executor} (${chain.executorAddress}) to settle this ${query.is_buy ? 'buy' : 'sell'}`,
      },
    ],
  }
}

/** The payer must hold what the quote promises: stock for a buy, the asset (with the fee) for a sell. */
async function assertPayerCanSettle(
  chain: LocalChain,
  stockToken: `0x${string}`,
  isBuy: boolean,
  amounts: QuoteAmounts,
) {
  const [token, needed] = isBuy
    ? [stockToken, amounts.amountOut]
    : [chain.defaultAsset.address, amounts.amountOut + amounts.feeAmount]
  const balance = await publicClientFor(chain).readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [chain.payerAddress],
  })
  if (balance < needed) {
    throw httpError(
      400,
      'Insufficient liquidity',
      `the service cannot fill this size now (available: ${balance}); request less`,
    )
  }
}
