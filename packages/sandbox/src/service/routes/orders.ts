import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import { z } from 'zod'
import { type LedgerOrder, orderStatuses } from '../ledger/orderTypes.js'
import { assertServedChain, paginate } from '../ledger/queryHelpers.js'
import { addressParam, boolParam, intParam, listParam, parseQuery, stringParam } from '../request.js'
import { ok, type Route } from '../route.js'

/** Order list page size: default 20, maximum 100 (the reference's limits); above it is a 400. */
export const ordersPageSize = { default: 20, max: 100 } as const

/** A wei-unit amount: a non-negative integer in base units, compared as bigint. */
const baseUnits = stringParam()
  .regex(/^\d{1,78}$/, 'must be a non-negative integer in base units (wei unit), e.g. "1000000"')
  .transform(BigInt)
const unixSeconds = intParam({ min: 0 })

const ordersQuery = z
  .object({
    order_hash: stringParam().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x hash of 64 hex digits'),
    principal: addressParam,
    ticker: stringParam().min(1, 'must not be empty').max(32, 'is too long'),
    ticker_like: boolParam,
    exchange: intParam().refine(isExchangeCode, 'must be 0 (US), 1 (HK) or 3 (KR)'),
    chain_id: intParam({ min: 0 }),
    asset: addressParam,
    is_buy: boolParam,
    nonce: intParam({ min: 0 }),
    price_min: baseUnits,
    price_max: baseUnits,
    quantity_min: baseUnits,
    quantity_max: baseUnits,
    incentive_min: baseUnits,
    incentive_max: baseUnits,
    filled_quantity_min: baseUnits,
    filled_quantity_max: baseUnits,
    status: listParam(z.enum(orderStatuses, { error: `must be among ${orderStatuses.join(', ')}` }), 10),
    deadline_after: unixSeconds,
    deadline_before: unixSeconds,
    created_after: unixSeconds,
    created_before: unixSeconds,
    sort_by: z.enum(['price', 'quantity', 'incentive', 'deadline', 'created_at'], {
      error: 'must be price, quantity, incentive, deadline or created_at',
    }),
    sort_order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }),
    page: intParam({ min: 1 }),
    page_size: intParam({ min: 1, max: ordersPageSize.max }),
  })
  .partial()
  .superRefine((query, issues) => {
    for (const name of ['price', 'quantity', 'incentive', 'filled_quantity'] as const) {
      const min = query[`${name}_min`]
      const max = query[`${name}_max`]
      if (min !== undefined && max !== undefined && min > max) {
        issues.addIssue({ code: 'custom', path: [`${name}_min`], message: `must not exceed ${name}_max` })
      }
    }
  })
type OrdersQuery = z.output<typeof ordersQuery>

type RangeField = 'price' | 'quantity' | 'incentive' | 'filledQuantity'

/**
 * GET /api/v1/orders: the authenticated maker's orders (settled quotes read from the chains), with
 * every filter of the reference. Ranges and time bounds are inclusive; `ticker` is exact and
 * case-sensitive, or a case-insensitive substring with ticker_like=true; `status` takes one or
 * several comma-separated values. Sorted by sort_by (default created_at) in sort_order (default
 * desc), ties in execution order (same direction).
 */
export const ordersRoute: Route = {
  method: 'GET',
  path: '/api/v1/orders',
  auth: 'maker',
  async handle(request, context, caller) {
    const query = parseQuery(request, ordersQuery)
    if (caller.kind !== 'maker') throw new Error('orders route reached without a maker caller')
    if (query.chain_id !== undefined) assertServedChain(context, query.chain_id)
    await context.ledger.sync()
    const matching = context.ledger.ordersOf(caller.makerAddress).filter((order) => matches(order, query))
    const sorted = sortOrders(matching, query.sort_by ?? 'created_at', query.sort_order ?? 'desc')
    const { items, ...page } = paginate(sorted, query.page ?? 1, query.page_size ?? ordersPageSize.default)
    return ok({ ...page, orders: items.map(orderJson) })
  },
}

function matches(order: LedgerOrder, query: OrdersQuery): boolean {
  if (query.order_hash !== undefined && order.orderHash.toLowerCase() !== query.order_hash.toLowerCase())
    return false
  if (query.principal !== undefined && order.principal.toLowerCase() !== query.principal) return false
  if (query.ticker !== undefined) {
    const ok = query.ticker_like
      ? order.ticker.toLowerCase().includes(query.ticker.toLowerCase())
      : order.ticker === query.ticker
    if (!ok) return false
  }
  if (query.exchange !== undefined && order.exchange !== query.exchange) return false
  if (query.chain_id !== undefined && order.chainId !== query.chain_id) return false
  if (query.asset !== undefined && order.asset.toLowerCase() !== query.asset) return false
  if (query.is_buy !== undefined && order.isBuy !== query.is_buy) return false
  if (query.nonce !== undefined && order.nonce !== query.nonce) return false
  const ranges: [RangeField, bigint | undefined, bigint | undefined][] = [
    ['price', query.price_min, query.price_max],
    ['quantity', query.quantity_min, query.quantity_max],
    ['incentive', query.incentive_min, query.incentive_max],
    ['filledQuantity', query.filled_quantity_min, query.filled_quantity_max],
  ]
  for (const [field, min, max] of ranges) {
    if (min !== undefined && order[field] < min) return false
    if (max !== undefined && order[field] > max) return false
  }
  if (query.status !== undefined && !query.status.includes(order.status)) return false
  if (query.deadline_after !== undefined && order.deadline < query.deadline_after) return false
  if (query.deadline_before !== undefined && order.deadline > query.deadline_before) return false
  if (query.created_after !== undefined && order.createdAt < query.created_after) return false
  if (query.created_before !== undefined && order.createdAt > query.created_before) return false
  return true
}

type SortBy = 'price' | 'quantity' | 'incentive' | 'deadline' | 'created_at'

function sortOrders(
  orders: readonly LedgerOrder[],
  sortBy: SortBy,
  sortOrder: 'asc' | 'desc',
): LedgerOrder[] {
  const key = (order: LedgerOrder): bigint => {
    switch (sortBy) {
      case 'price':
        return order.price
      case 'quantity':
        return order.quantity
      case 'incentive':
        return order.incentive
      case 'deadline':
        return BigInt(order.deadline)
      case 'created_at':
        return BigInt(order.createdAt)
    }
  }
  const sign = sortOrder === 'asc' ? 1 : -1
  return [...orders].sort((a, b) => sign * (compare(key(a), key(b)) || executionOrder(a, b)))
}

function compare(a: bigint | number, b: bigint | number): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Execution order: time, then chain, block and log index. */
function executionOrder(a: LedgerOrder, b: LedgerOrder): number {
  return (
    compare(a.createdAt, b.createdAt) ||
    compare(a.chainId, b.chainId) ||
    compare(a.blockNumber, b.blockNumber) ||
    compare(a.logIndex, b.logIndex)
  )
}

/** The reference's Order record; `fills` only for partially_filled and filled orders. */
export function orderJson(order: LedgerOrder) {
  const withFills = order.status === 'filled' || order.status === 'partially_filled'
  return {
    id: order.id,
    maker: order.maker,
    principal: order.principal,
    is_buy: order.isBuy,
    ticker: order.ticker,
    exchange: order.exchange,
    asset: order.asset,
    price: order.price.toString(),
    quantity: order.quantity.toString(),
    incentive: order.incentive.toString(),
    deadline: order.deadline,
    nonce: order.nonce,
    signature: order.signature,
    order_hash: order.orderHash,
    status: order.status,
    filled_quantity: order.filledQuantity.toString(),
    notes: order.notes,
    created_at: isoOf(order.createdAt),
    updated_at: isoOf(order.updatedAt),
    ...(withFills
      ? {
          fills: order.fills.map((fill) => ({
            id: fill.id,
            order_id: fill.orderId,
            order_hash: fill.orderHash,
            taker: fill.taker,
            fill_quantity: fill.fillQuantity.toString(),
            fill_amount: fill.fillAmount.toString(),
            fee_amount: fill.feeAmount.toString(),
            incentive_amount: fill.incentiveAmount.toString(),
            taker_incentive: fill.takerIncentive.toString(),
            tx_hash: fill.txHash,
            block_number: Number(fill.blockNumber),
            status: fill.status,
            reference_id: fill.referenceId,
            created_at: isoOf(fill.createdAt),
          })),
        }
      : {}),
  }
}

function isoOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString()
}
