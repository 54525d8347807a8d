import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { ExchangeCode, TokenKind } from '../../domain/markets.js'
import { type AssetAmount, toAssetAmount } from '../../domain/units.js'
import { walkPages } from '../pages.js'
import { addressSchema, baseUnitsSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { type QuantityOf, tokenKindOfTicker, toQuantity } from '../tokenQuantity.js'

/** Order statuses the reference shows; others may exist (not shown), so any text is accepted. */
export type OrderStatus = 'pending' | 'locked' | 'partially_filled' | 'filled'

const hashSchema = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x hash of 64 hex digits')
const hexSchema = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex')
const isoSchema = z.iso.datetime({ offset: true })

const fillSchema = z.object({
  id: z.string(),
  order_id: z.string(),
  order_hash: hashSchema,
  taker: addressSchema,
  fill_quantity: baseUnitsSchema,
  fill_amount: baseUnitsSchema,
  fee_amount: baseUnitsSchema,
  incentive_amount: baseUnitsSchema,
  taker_incentive: baseUnitsSchema,
  tx_hash: hashSchema,
  block_number: z.number().int().nonnegative(),
  status: z.string(),
  reference_id: z.string().nullable().optional(),
  created_at: isoSchema,
})

const orderSchema = z.object({
  id: z.string(),
  maker: addressSchema,
  principal: addressSchema,
  is_buy: z.boolean(),
  ticker: z.string().min(1),
  exchange: z.number().int(),
  asset: addressSchema,
  price: baseUnitsSchema,
  quantity: baseUnitsSchema,
  incentive: baseUnitsSchema,
  deadline: z.number().int(),
  nonce: z.number().int(),
  signature: hexSchema,
  order_hash: hashSchema,
  status: z.string(),
  filled_quantity: baseUnitsSchema,
  notes: z.string().nullable().optional(),
  created_at: isoSchema,
  updated_at: isoSchema,
  fills: z.array(fillSchema).optional(),
})
type OrderJson = z.output<typeof orderSchema>

/** A fill of an order; quantities in the order's token units, amounts in its asset's base units. */
export type OrderFillOf<Kind extends TokenKind> = {
  id: string
  orderId: string
  orderHash: Hex
  taker: Address
  fillQuantity: QuantityOf<Kind>
  /** Gross asset amount of the fill. */
  fillAmount: AssetAmount
  feeAmount: AssetAmount
  incentiveAmount: AssetAmount
  takerIncentive: AssetAmount
  txHash: Hex
  blockNumber: number
  /** `confirmed` is the value shown; others are possible. */
  status: 'confirmed' | (string & {})
  referenceId: string | null
  /** ISO 8601. */
  createdAt: string
}

/** An order of a token of kind `Kind`. */
export type OrderOf<Kind extends TokenKind> = {
  id: string
  maker: Address
  /** Recipient. */
  principal: Address
  isBuy: boolean
  ticker: string
  /** The kind of the order's token, from its ticker: the unit of `quantity` and `filledQuantity`. */
  tokenKind: Kind
  exchange: number
  /** The asset token every asset amount of the order is in. */
  asset: Address
  /** Asset base units per whole share. */
  price: AssetAmount
  quantity: QuantityOf<Kind>
  incentive: AssetAmount
  /** Unix seconds. */
  deadline: number
  nonce: number
  signature: Hex
  orderHash: Hex
  status: OrderStatus | (string & {})
  filledQuantity: QuantityOf<Kind>
  notes: string | null
  /** ISO 8601. */
  createdAt: string
  updatedAt: string
  /** Empty unless the order is partially filled or filled. */
  fills: OrderFillOf<Kind>[]
}

/** An order; narrow on `tokenKind` for the quantity type. */
export type Order = OrderOf<'stock'> | OrderOf<'share'>

function orderOf<Kind extends TokenKind>(kind: Kind, order: OrderJson): OrderOf<Kind> {
  return {
    id: order.id,
    maker: order.maker,
    principal: order.principal,
    isBuy: order.is_buy,
    ticker: order.ticker,
    tokenKind: kind,
    exchange: order.exchange,
    asset: order.asset,
    price: toAssetAmount(order.price),
    quantity: toQuantity(kind, order.quantity),
    incentive: toAssetAmount(order.incentive),
    deadline: order.deadline,
    nonce: order.nonce,
    signature: order.signature as Hex,
    orderHash: order.order_hash as Hex,
    status: order.status,
    filledQuantity: toQuantity(kind, order.filled_quantity),
    notes: order.notes ?? null,
    createdAt: order.created_at,
    updatedAt: order.updated_at,
    fills: (order.fills ?? []).map((fill) => ({
      id: fill.id,
      orderId: fill.order_id,
      orderHash: fill.order_hash as Hex,
      taker: fill.taker,
      fillQuantity: toQuantity(kind, fill.fill_quantity),
      fillAmount: toAssetAmount(fill.fill_amount),
      feeAmount: toAssetAmount(fill.fee_amount),
      incentiveAmount: toAssetAmount(fill.incentive_amount),
      takerIncentive: toAssetAmount(fill.taker_incentive),
      txHash: fill.tx_hash as Hex,
      blockNumber: fill.block_number,
      status: fill.status,
      referenceId: fill.reference_id ?? null,
      createdAt: fill.created_at,
    })),
  }
}

const getOrdersSchema = z
  .object({
    total: z.number().int().nonnegative(),
    page: z.number().int(),
    page_size: z.number().int(),
    total_pages: z.number().int(),
    orders: z.array(orderSchema),
  })
  .transform((reply) => ({
    total: reply.total,
    page: reply.page,
    pageSize: reply.page_size,
    totalPages: reply.total_pages,
    orders: reply.orders.map((order): Order => {
      const kind = tokenKindOfTicker(order.ticker)
      return kind === 'stock' ? orderOf('stock', order) : orderOf('share', order)
    }),
  }))

/** Sort keys of the order list. */
export type OrderSortBy = 'price' | 'quantity' | 'incentive' | 'deadline' | 'createdAt'

export type GetOrdersParameters = {
  orderHash?: Hex | undefined
  /** Recipient address. */
  principal?: Address | undefined
  /** Exact, or a substring with `tickerLike`. */
  ticker?: string | undefined
  tickerLike?: boolean | undefined
  exchange?: ExchangeCode | undefined
  /** Default: every chain. */
  chainId?: number | undefined
  asset?: Address | undefined
  isBuy?: boolean | undefined
  nonce?: number | undefined
  /** Ranges in base units (asset for price and incentive, token for quantities), inclusive. */
  priceMin?: bigint | undefined
  priceMax?: bigint | undefined
  quantityMin?: bigint | undefined
  quantityMax?: bigint | undefined
  incentiveMin?: bigint | undefined
  incentiveMax?: bigint | undefined
  filledQuantityMin?: bigint | undefined
  filledQuantityMax?: bigint | undefined
  /** One status or several (sent comma-separated). */
  status?: OrderStatus | (string & {}) | readonly (OrderStatus | (string & {}))[] | undefined
  /** Unix seconds. */
  deadlineAfter?: number | undefined
  deadlineBefore?: number | undefined
  createdAfter?: number | undefined
  createdBefore?: number | undefined
  /** Default `createdAt`. */
  sortBy?: OrderSortBy | undefined
  /** Default `desc`. */
  sortOrder?: 'asc' | 'desc' | undefined
  /** 1-based; default 1. */
  page?: number | undefined
  /** Default 20, at most 100. */
  pageSize?: number | undefined
}

export type GetOrdersReturnType = z.output<typeof getOrdersSchema>

const sortKeys: Record<OrderSortBy, string> = {
  price: 'price',
  quantity: 'quantity',
  incentive: 'incentive',
  deadline: 'deadline',
  createdAt: 'created_at',
}

/**
 * One page of the maker's orders with the reference's filters (GET /api/v1/orders, maker: API key
 * with the client's `makerAddress`, or the wallet's JWT). Quantities are typed by the order's token
 * kind (from its ticker), prices and amounts are asset base units of the order's `asset`.
 *
 * @example
 * const { orders, total } = await getOrders(client, { chainId: 31337, status: ['filled'], pageSize: 50 })
 * for (const order of orders) if (order.tokenKind === 'stock') order.quantity // StockQuantity
 */
export function getOrders(
  client: ServiceClient,
  parameters: GetOrdersParameters = {},
  options?: CallOptions,
): Promise<GetOrdersReturnType> {
  const p = parameters
  const status = typeof p.status === 'string' || p.status === undefined ? p.status : p.status.join(',')
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/orders',
      query: {
        order_hash: p.orderHash,
        principal: p.principal,
        ticker: p.ticker,
        ticker_like: p.tickerLike,
        exchange: p.exchange,
        chain_id: p.chainId,
        asset: p.asset,
        is_buy: p.isBuy,
        nonce: p.nonce,
        price_min: p.priceMin,
        price_max: p.priceMax,
        quantity_min: p.quantityMin,
        quantity_max: p.quantityMax,
        incentive_min: p.incentiveMin,
        incentive_max: p.incentiveMax,
        filled_quantity_min: p.filledQuantityMin,
        filled_quantity_max: p.filledQuantityMax,
        status,
        deadline_after: p.deadlineAfter,
        deadline_before: p.deadlineBefore,
        created_after: p.createdAfter,
        created_before: p.createdBefore,
        sort_by: p.sortBy === undefined ? undefined : sortKeys[p.sortBy],
        sort_order: p.sortOrder,
        page: p.page,
        page_size: p.pageSize,
      },
      auth: 'maker',
      schema: getOrdersSchema,
    },
    options,
  )
}

/**
 * Every order matching the filters, page after page (default 100 a page, the reference's maximum)
 * until the list's `total` is exhausted; each order is yielded once even if the list shifts while
 * it is walked. Stops with the signal of `options`.
 *
 * @example
 * for await (const order of iterateOrders(client, { chainId: 31337 })) console.log(order.orderHash)
 */
export function iterateOrders(
  client: ServiceClient,
  parameters: Omit<GetOrdersParameters, 'page'> = {},
  options?: CallOptions,
): AsyncGenerator<Order, void, undefined> {
  const pageSize = parameters.pageSize ?? 100
  return walkPages({
    fetchPage: async (page) => {
      const reply = await getOrders(client, { ...parameters, page, pageSize }, options)
      return { items: reply.orders, total: reply.total }
    },
    keyOf: (order) => order.id,
    signal: options?.signal,
  })
}
