import type { Address, Hex } from 'viem'
import { z } from 'zod'
import { type ExchangeCode, isExchangeCode, type TokenKind } from '../../domain/markets.js'
import { type AssetAmount, toAssetAmount } from '../../domain/units.js'
import { checkNaturalAmount, RouterQuoteParameterError } from '../routerQuoteParameterError.js'
import { addressSchema, baseUnitsSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { type QuantityOf, tokenKindOfTicker, toQuantity } from '../tokenQuantity.js'

export {
  checkNaturalAmount,
  RouterQuoteParameterError,
  type RouterQuoteParameterErrorCode,
} from '../routerQuoteParameterError.js'

/** How the amount of a quote was given: the reply's `amount_type`. */
export type RouterQuoteAmountType = 'stablecoin_in' | 'stocktoken_in'

type RouterQuoteCommon<Kind extends TokenKind> = {
  /** bytes32 identifier, single use on chain. */
  quoteId: Hex
  ticker: string
  exchange: number
  chainId: number
  /** StockToken (whole shares) or ShareToken (1e18 units): the unit of every stock quantity below. */
  tokenKind: Kind
  /** The StockToken or ShareToken traded. */
  stockToken: Address
  /** The payment token every asset amount below is in (its decimals are the chain's, not in the reply). */
  assetToken: Address
  /** Asset base units, always in the asset. */
  feeAmount: AssetAmount
  /** Asset base units per whole share. */
  price: AssetAmount
  /** Unix seconds; the quote executes while `block.timestamp <= expiresAt`. */
  expiresAt: number
}

/**
 * The amounts, by side and amount type (docs/sandbox.md, "Router quote", "Amount fields"):
 * - stablecoin-in buy: `amountIn` asset offered, `amountInUsed` asset charged (fee included), `amountOut` stock;
 * - stocktoken-in buy: `amountIn` stock asked, `amountInUsed` asset charged (fee included), `amountOut` stock;
 * - sell: `amountIn` = `amountInUsed` stock delivered, `amountOut` asset received net of the fee.
 */
type RouterQuoteAmounts<Kind extends TokenKind> =
  | {
      isBuy: true
      amountType: 'stablecoin_in'
      amountIn: AssetAmount
      amountInUsed: AssetAmount
      amountOut: QuantityOf<Kind>
    }
  | {
      isBuy: true
      amountType: 'stocktoken_in'
      amountIn: QuantityOf<Kind>
      amountInUsed: AssetAmount
      amountOut: QuantityOf<Kind>
    }
  | {
      isBuy: false
      amountType: RouterQuoteAmountType
      amountIn: QuantityOf<Kind>
      amountInUsed: QuantityOf<Kind>
      amountOut: AssetAmount
    }

/** A router quote of a token of kind `Kind`. */
export type RouterQuoteOf<Kind extends TokenKind> = RouterQuoteCommon<Kind> & RouterQuoteAmounts<Kind>

/**
 * A router quote, amounts in base units typed by unit: narrow on `tokenKind`, `isBuy` and
 * `amountType` to get the exact type of each amount.
 */
export type RouterQuote = RouterQuoteOf<'stock'> | RouterQuoteOf<'share'>

/** One approval the taker must have given before `execute`. */
export type RequiredApproval = {
  tokenAddress: Address
  /** The executor (router or settlement contract). */
  spender: Address
  /** Base units of `tokenAddress`: the asset on a buy, the stock token on a sell. */
  amount: bigint
  description: string
}

const quoteReplySchema = z.object({
  quote: z.object({
    quote_id: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a bytes32 hex id'),
    ticker: z.string().min(1),
    exchange: z.number().int(),
    is_buy: z.boolean(),
    chain_id: z.number().int(),
    amount_type: z.enum(['stablecoin_in', 'stocktoken_in']),
    amount_in: baseUnitsSchema,
    amount_in_used: baseUnitsSchema,
    amount_out: baseUnitsSchema,
    fee_amount: baseUnitsSchema,
    stock_token: addressSchema,
    asset_token: addressSchema,
    price: baseUnitsSchema,
    expires_at: z.number().int().nonnegative(),
  }),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected a hex signature'),
  required_approvals: z.array(
    z.object({
      token_address: addressSchema,
      spender: addressSchema,
      amount: baseUnitsSchema,
      description: z.string(),
    }),
  ),
})
type QuoteReply = z.output<typeof quoteReplySchema>

/** The reply schema, with the token kind given by the caller or derived from the reply's ticker. */
function getRouterQuoteSchema(tokenKind: TokenKind | undefined) {
  return quoteReplySchema.transform((reply) => {
    const kind = tokenKind ?? tokenKindOfTicker(reply.quote.ticker)
    const quote: RouterQuote =
      kind === 'stock' ? quoteOf('stock', reply.quote) : quoteOf('share', reply.quote)
    const requiredApprovals: RequiredApproval[] = reply.required_approvals.map((approval) => ({
      tokenAddress: approval.token_address,
      spender: approval.spender,
      amount: approval.amount,
      description: approval.description,
    }))
    return { quote, signature: reply.signature as Hex, requiredApprovals }
  })
}

function quoteOf<Kind extends TokenKind>(kind: Kind, raw: QuoteReply['quote']): RouterQuoteOf<Kind> {
  const common: RouterQuoteCommon<Kind> = {
    quoteId: raw.quote_id as Hex,
    ticker: raw.ticker,
    exchange: raw.exchange,
    chainId: raw.chain_id,
    tokenKind: kind,
    stockToken: raw.stock_token,
    assetToken: raw.asset_token,
    feeAmount: toAssetAmount(raw.fee_amount),
    price: toAssetAmount(raw.price),
    expiresAt: raw.expires_at,
  }
  const quantity = (value: bigint) => toQuantity(kind, value)
  if (!raw.is_buy) {
    return {
      ...common,
      isBuy: false,
      amountType: raw.amount_type,
      amountIn: quantity(raw.amount_in),
      amountInUsed: quantity(raw.amount_in_used),
      amountOut: toAssetAmount(raw.amount_out),
    }
  }
  if (raw.amount_type === 'stocktoken_in') {
    return {
      ...common,
      isBuy: true,
      amountType: 'stocktoken_in',
      amountIn: quantity(raw.amount_in),
      amountInUsed: toAssetAmount(raw.amount_in_used),
      amountOut: quantity(raw.amount_out),
    }
  }
  return {
    ...common,
    isBuy: true,
    amountType: 'stablecoin_in',
    amountIn: toAssetAmount(raw.amount_in),
    amountInUsed: toAssetAmount(raw.amount_in_used),
    amountOut: quantity(raw.amount_out),
  }
}

export type GetRouterQuoteParameters = {
  /** StockToken ticker, or ShareToken ticker with the `s` suffix. */
  ticker: string
  exchange: ExchangeCode
  isBuy: boolean
  chainId: number
  /** The payment token: must be the chain's default asset (`getChains` → `defaultAssetAddress`). */
  asset: Address
  /**
   * Natural (human) units as a plain decimal string: the asset amount of a stablecoin buy ("1000"),
   * else a share quantity ("100", "0.5"). Checked here (no sign, no exponent, not zero) before any
   * request; the service checks the decimals against the token.
   */
  amountIn: string
  /** Buys only: `stablecoin` (default: amountIn is asset) or `stocktoken` (amountIn is shares). */
  amountType?: 'stablecoin' | 'stocktoken' | undefined
  /**
   * The kind of `ticker`'s token, which types the stock quantities of the quote. Default: derived
   * from the reply's ticker (a lowercase `s` suffix is a ShareToken), the reference's naming rule.
   */
  tokenKind?: TokenKind | undefined
}

export type GetRouterQuoteReturnType = {
  quote: RouterQuote
  /** EIP-712 signature of the chain's operator over `toSignedQuoteStruct(quote)`. */
  signature: Hex
  requiredApprovals: RequiredApproval[]
}

/**
 * A signed, executable quote (GET /api/v1/router/quote, institution key), valid 10 seconds.
 * Amounts come back in base units typed by unit; `toSignedQuoteStruct(quote)` (api/quoteStruct.ts)
 * gives the struct to verify and pass to `execute(quote, signature)` after `requiredApprovals`.
 * Bad `amountIn` or a stablecoin sell throw {@link RouterQuoteParameterError} before any request;
 * the service's refusals (lot size, unknown ticker, unsupported asset, …) are
 * `ServiceBadRequestError` / `ServiceNotFoundError` carrying its message.
 *
 * @example
 * const { quote, signature, requiredApprovals } = await getRouterQuote(client, {
 *   ticker: 'AAPL', exchange: 0, isBuy: true, chainId: 31337, asset: usdc, amountIn: '1000',
 * })
 * if (quote.tokenKind === 'stock' && quote.isBuy) quote.amountOut // StockQuantity
 */
export async function getRouterQuote(
  // Only `request` is called: an engine's narrow quote source is a client here.
  client: Pick<ServiceClient, 'request'>,
  parameters: GetRouterQuoteParameters,
  options?: CallOptions,
): Promise<GetRouterQuoteReturnType> {
  const { ticker, exchange, isBuy, chainId, asset, amountIn, amountType, tokenKind } = parameters
  checkNaturalAmount(amountIn)
  if (!isExchangeCode(exchange)) {
    throw new RouterQuoteParameterError(
      'exchange',
      exchange,
      'is not an exchange code: use 0 (US), 1 (HK) or 3 (KR)',
    )
  }
  if (!isBuy && amountType === 'stablecoin') {
    throw new RouterQuoteParameterError(
      'amountType',
      amountType,
      "applies to buys only: a sell's amountIn is a share quantity (omit amountType or use 'stocktoken')",
    )
  }
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/router/quote',
      query: {
        ticker,
        exchange,
        is_buy: isBuy,
        chain_id: chainId,
        asset,
        amount_in: amountIn,
        amount_type: amountType,
      },
      auth: 'institution',
      schema: getRouterQuoteSchema(tokenKind),
    },
    options,
  )
}
