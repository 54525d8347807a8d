import type { GetRouterQuoteReturnType } from '@stockroute/client/api/actions/getRouterQuote.js'
import { addressSchema } from '@stockroute/client/api/schemas.js'
import type { TokenKind } from '@stockroute/client/domain/markets.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { SettlementFill } from '../chain/settlementEvents.js'
import type { ExecutionRecord } from '../store/executions.js'
import type { NewFill } from '../store/fills.js'

/** What an execution keeps of its current quote in the ledger (`quote_json`): enough to settle and recover. */
export type StoredQuote = {
  quoteId: Hex
  ticker: string
  exchange: number
  tokenKind: TokenKind
  stockToken: Address
  assetToken: Address
  assetDecimals: number
  isBuy: boolean
  amountType: 'stablecoin_in' | 'stocktoken_in'
  amountIn: bigint
  amountInUsed: bigint
  amountOut: bigint
  feeAmount: bigint
  price: bigint
  expiresAt: number
  signature: Hex
}

const uint = z
  .string()
  .regex(/^\d+$/)
  .transform((text) => BigInt(text))
const storedQuoteSchema = z.object({
  quoteId: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .transform((text) => text as Hex),
  ticker: z.string(),
  exchange: z.number().int(),
  tokenKind: z.enum(['stock', 'share']),
  stockToken: addressSchema,
  assetToken: addressSchema,
  assetDecimals: z.number().int().min(0).max(36),
  isBuy: z.boolean(),
  amountType: z.enum(['stablecoin_in', 'stocktoken_in']),
  amountIn: uint,
  amountInUsed: uint,
  amountOut: uint,
  feeAmount: uint,
  price: uint,
  expiresAt: z.number().int(),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/)
    .transform((text) => text as Hex),
})

/**
 * The ledger form of a router quote reply.
 *
 * @example
 * ledger.executions.transition(id, 'quoting', 'quoted', 'quote received', { quote: storedQuoteOf(reply, 6) })
 */
export function storedQuoteOf(reply: GetRouterQuoteReturnType, assetDecimals: number): StoredQuote {
  const { quote } = reply
  return {
    quoteId: quote.quoteId,
    ticker: quote.ticker,
    exchange: quote.exchange,
    tokenKind: quote.tokenKind,
    stockToken: quote.stockToken,
    assetToken: quote.assetToken,
    assetDecimals,
    isBuy: quote.isBuy,
    amountType: quote.amountType,
    amountIn: quote.amountIn,
    amountInUsed: quote.amountInUsed,
    amountOut: quote.amountOut,
    feeAmount: quote.feeAmount,
    price: quote.price,
    expiresAt: quote.expiresAt,
    signature: reply.signature,
  }
}

/**
 * The quote an execution holds, read back from the ledger; undefined when it holds none.
 *
 * @example
 * readStoredQuote(ledger.executions.getExecution(id)!)?.expiresAt
 */
export function readStoredQuote(execution: ExecutionRecord): StoredQuote | undefined {
  if (execution.quote === null) return undefined
  return storedQuoteSchema.parse(execution.quote)
}

/**
 * The ledger fill of a settlement of `execution`'s quote: the event's amounts with the execution's
 * ticker and exchange and the quote's token kind and asset decimals.
 *
 * @example
 * ledger.fills.recordFill(fillOf(settlement, execution, quote, block.timestamp))
 */
export function fillOf(
  fill: SettlementFill,
  execution: ExecutionRecord,
  quote: StoredQuote,
  blockTime: bigint,
): NewFill {
  return {
    chainId: fill.chainId,
    txHash: fill.txHash,
    logIndex: fill.logIndex,
    executionId: execution.id,
    quoteId: fill.quoteId,
    taker: fill.taker,
    stockToken: fill.stockToken,
    assetToken: fill.assetToken,
    isBuy: fill.isBuy,
    amountIn: fill.amountIn,
    amountOut: fill.amountOut,
    feeAmount: toAssetAmount(fill.feeAmount),
    blockNumber: fill.blockNumber,
    blockHash: fill.blockHash,
    blockTime,
    ticker: execution.ticker,
    exchange: execution.exchange,
    tokenKind: quote.tokenKind,
    assetDecimals: quote.assetDecimals,
  }
}
