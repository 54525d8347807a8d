import type { Address } from 'viem'
import { z } from 'zod'
import type { TokenKind } from '../../domain/markets.js'
import { type AssetAmount, toAssetAmount } from '../../domain/units.js'
import { walkPages } from '../pages.js'
import { addressSchema, baseUnitsSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { type QuantityOf, tokenKindOfTicker, toQuantity } from '../tokenQuantity.js'

const positionSchema = z.object({
  ticker: z.string().min(1),
  exchange: z.number().int(),
  chain_id: z.number().int(),
  token_address: addressSchema,
  balance: baseUnitsSchema,
  locked_balance: baseUnitsSchema,
  available_balance: baseUnitsSchema,
  avg_price: baseUnitsSchema,
})
type PositionJson = z.output<typeof positionSchema>

/** A holding of a token of kind `Kind`: quantities in the token's base units. */
export type PositionOf<Kind extends TokenKind> = {
  ticker: string
  /** From the ticker (a lowercase `s` suffix is a ShareToken): the unit of the balances. */
  tokenKind: Kind
  exchange: number
  chainId: number
  tokenAddress: Address
  balance: QuantityOf<Kind>
  /** Held by pending corporate actions that lock the token. */
  lockedBalance: QuantityOf<Kind>
  availableBalance: QuantityOf<Kind>
  /** Average buy price of what is held, in base units of the chain's default asset per whole share. */
  avgPrice: AssetAmount
}

/** A position; narrow on `tokenKind` for the quantity type. */
export type Position = PositionOf<'stock'> | PositionOf<'share'>

function positionOf<Kind extends TokenKind>(kind: Kind, position: PositionJson): PositionOf<Kind> {
  return {
    ticker: position.ticker,
    tokenKind: kind,
    exchange: position.exchange,
    chainId: position.chain_id,
    tokenAddress: position.token_address,
    balance: toQuantity(kind, position.balance),
    lockedBalance: toQuantity(kind, position.locked_balance),
    availableBalance: toQuantity(kind, position.available_balance),
    avgPrice: toAssetAmount(position.avg_price),
  }
}

const getPositionsSchema = z
  .object({
    positions: z.array(positionSchema),
    total: z.number().int().nonnegative(),
    page: z.number().int(),
    page_size: z.number().int(),
    total_pages: z.number().int(),
  })
  .transform((reply) => ({
    positions: reply.positions.map((position): Position => {
      const kind = tokenKindOfTicker(position.ticker)
      return kind === 'stock' ? positionOf('stock', position) : positionOf('share', position)
    }),
    total: reply.total,
    page: reply.page,
    pageSize: reply.page_size,
    totalPages: reply.total_pages,
  }))

export type GetPositionsParameters = {
  /** Default: every chain. */
  chainId?: number | undefined
  /** Exact, or a substring with `tickerLike`. */
  ticker?: string | undefined
  tickerLike?: boolean | undefined
  /** 1-based; default 1. */
  page?: number | undefined
  /** Default 20, at most 100. */
  pageSize?: number | undefined
}

export type GetPositionsReturnType = z.output<typeof getPositionsSchema>

/**
 * One page of the maker's positions (GET /api/v1/positions, maker: API key with the client's
 * `makerAddress`, or the wallet's JWT), balances typed by the token's kind.
 *
 * @example
 * const { positions } = await getPositions(client, { chainId: 31337, ticker: 'AAPL' })
 * positions[0]?.availableBalance
 */
export function getPositions(
  client: ServiceClient,
  parameters: GetPositionsParameters = {},
  options?: CallOptions,
): Promise<GetPositionsReturnType> {
  const { chainId, ticker, tickerLike, page, pageSize } = parameters
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/positions',
      query: { chain_id: chainId, ticker, ticker_like: tickerLike, page, page_size: pageSize },
      auth: 'maker',
      schema: getPositionsSchema,
    },
    options,
  )
}

/**
 * Every position matching the filters, page after page (default 100 a page, the reference's
 * maximum) until the list's `total` is exhausted; each (chain, token) is yielded once.
 *
 * @example
 * for await (const position of iteratePositions(client)) console.log(position.ticker, position.balance)
 */
export function iteratePositions(
  client: ServiceClient,
  parameters: Omit<GetPositionsParameters, 'page'> = {},
  options?: CallOptions,
): AsyncGenerator<Position, void, undefined> {
  const pageSize = parameters.pageSize ?? 100
  return walkPages({
    fetchPage: async (page) => {
      const reply = await getPositions(client, { ...parameters, page, pageSize }, options)
      return { items: reply.positions, total: reply.total }
    },
    keyOf: (position) => `${position.chainId}:${position.tokenAddress.toLowerCase()}`,
    signal: options?.signal,
  })
}
