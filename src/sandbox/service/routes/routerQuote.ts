import { randomBytes } from 'node:crypto'
import { erc20Abi, formatUnits } from 'viem'
import { z } from 'zod'
import { DomainRuleError } from '../../../domain/domainRuleError.js'
import { isExchangeCode, marketCodes } from '../../../domain/markets.js'
import { parsePrice } from '../../../domain/unitStrings.js'
import { publicClientFor } from '../../chainClients.js'
import type { LocalChain } from '../../localChains.js'
import { findChain, findListing } from '../context.js'
import type { IssuedQuote } from '../contextTypes.js'
import { httpError } from '../errors.js'
import { takeFault } from '../faultSwitch.js'
import { computeQuoteAmounts } from '../quotes/computeQuoteAmounts.js'
import { signQuoteWithFault } from '../quotes/quoteFaults.js'
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

/** GET /api/v1/router/quote: a signed, 10-second quote executable through the chain's executor. */
export const routerQuoteRoute: Route = {
  method: 'GET',
  path: '/api/v1/router/quote',
  auth: 'institution',
  async handle(request, context) {
    const query = parseQuery(request, routerQuoteQuery)
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

    const nowMs = context.clock.now()
    const market = marketCodes[query.exchange]
    const marketPrice = parsePrice(context.prices.lastPrice(listing.stock.ticker, query.exchange, nowMs))
    const pricePerShare = assetPricePerShare({
      marketPrice,
      market,
      assetDecimals: asset.decimals,
      direction: query.is_buy ? 'up' : 'down',
    })
    const amountType = query.is_buy ? (query.amount_type ?? 'stablecoin') : 'stocktoken'
    // A function, because a TEST-ONLY `wrong-amount` fault quotes another amount the same way.
    const quoteAmounts = async (amountIn: string) => {
      let amounts: ReturnType<typeof computeQuoteAmounts>
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
    const amounts = await quoteAmounts(query.amount_in)

    const quoteId = `0x${randomBytes(32).toString('hex')}` as const
    const { signed, signature, replied, amountIn, stock, spender } = await signQuoteWithFault({
      fault: takeFault(context.faults),
      chain,
      listing,
      listings: context.listings.get(chain.chainId) ?? [],
      struct: {
        quoteId,
        stockToken: listing.address,
        assetToken: asset.address,
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
    const issued: IssuedQuote = {
      quoteId,
      chainId: chain.chainId,
      ticker: listing.ticker,
      exchange: query.exchange,
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
    context.quotes.set(quoteId, issued)

    const executor = chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'
    const approvalToken = query.is_buy ? asset.address : stock.address
    const approvalDecimals = query.is_buy ? asset.decimals : stock.decimals
    const approvalSymbol = query.is_buy ? asset.symbol : stock.ticker
    return ok({
      quote: {
        quote_id: quoteId,
        ticker: listing.ticker,
        exchange: query.exchange,
        is_buy: query.is_buy,
        chain_id: chain.chainId,
        amount_type: issued.amountType,
        amount_in: amountIn.toString(),
        amount_in_used: replied.amountIn.toString(),
        amount_out: replied.amountOut.toString(),
        fee_amount: replied.feeAmount.toString(),
        stock_token: replied.stockToken,
        asset_token: replied.assetToken,
        price: pricePerShare.toString(),
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
    })
  },
}

/** The payer must hold what the quote promises: stock for a buy, the asset (with the fee) for a sell. */
async function assertPayerCanSettle(
  chain: LocalChain,
  stockToken: `0x${string}`,
  isBuy: boolean,
  amounts: ReturnType<typeof computeQuoteAmounts>,
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
