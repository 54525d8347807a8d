import type { Address, Hex } from 'viem'
import { z } from 'zod'
import { walkPages } from '../pages.js'
import { addressSchema, decimalStringSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

/** Corporate action types of the reference. */
export type CorporateActionType =
  | 'dividend'
  | 'stock_split'
  | 'reverse_stock_split'
  | 'delisting'
  | 'ticker_change'

/** `triggered` (pending) or `processed` (completed). */
export type CorporateActionStatus = 'triggered' | 'processed'

const isoSchema = z.iso.datetime({ offset: true })
const quantitySchema = decimalStringSchema.refine(
  (text) => !text.startsWith('-'),
  'expected a non-negative quantity',
)

/** `params` of a dividend, the one shape the reference shows. */
const dividendParamsSchema = z
  .object({
    type: z.literal('dividend').optional(),
    dividend_per_share: decimalStringSchema,
    tax_rate: z.number().int(),
    fee_amount: decimalStringSchema,
    ex_dividend_date: z.string(),
    dividend_date: z.string(),
    distribution_plan: z.string(),
  })
  .transform((params) => ({
    /** In the stock's market currency, natural units. */
    dividendPerShare: params.dividend_per_share,
    /** Integer percentage. */
    taxRate: params.tax_rate,
    feeAmount: params.fee_amount,
    exDividendDate: params.ex_dividend_date,
    dividendDate: params.dividend_date,
    distributionPlan: params.distribution_plan,
  }))

export type DividendParams = z.output<typeof dividendParamsSchema>

const recordSchema = z
  .object({
    id: z.string(),
    maker: addressSchema,
    chain_id: z.number().int(),
    holding_qty: quantitySchema,
    action_qty: quantitySchema,
    compensation_qty: quantitySchema.nullable(),
    status: z.string(),
    is_token_locked: z.boolean(),
    created_at: isoSchema.nullable(),
    updated_at: isoSchema.nullable(),
    processed_hash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a transaction hash')
      .nullable(),
    processed_at: isoSchema.nullable(),
    remark: z.string().nullable(),
    tax_rate: z.string().nullable(),
    original_fee_amount: z.string().nullable(),
    original_net_amount: z.string().nullable(),
    original_compensation_amount: z.string().nullable(),
    token_address: addressSchema.nullable(),
    action_type: z.string().nullable(),
    params: z.record(z.string(), z.unknown()).nullable(),
    ticker: z.string().nullable(),
    exchange: z.number().int().nullable(),
  })
  .transform((record, context) => {
    let dividend: DividendParams | null = null
    if (record.action_type === 'dividend' && record.params) {
      const parsed = dividendParamsSchema.safeParse(record.params)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          context.addIssue({ code: 'custom', path: ['params', ...issue.path], message: issue.message })
        }
        return z.NEVER
      }
      dividend = parsed.data
    }
    return {
      id: record.id,
      maker: record.maker,
      chainId: record.chain_id,
      /** Natural units (the reference's "off-chain standard value"), before the action. */
      holdingQty: record.holding_qty,
      /** Natural units after the action: equals holdingQty for a dividend, `0` for a delisting. */
      actionQty: record.action_qty,
      /** Natural units: the fraction of a share lost by a split. */
      compensationQty: record.compensation_qty,
      status: record.status as CorporateActionStatus | (string & {}),
      isTokenLocked: record.is_token_locked,
      createdAt: record.created_at,
      updatedAt: record.updated_at,
      processedHash: record.processed_hash as Hex | null,
      processedAt: record.processed_at,
      remark: record.remark,
      taxRate: record.tax_rate,
      originalFeeAmount: record.original_fee_amount,
      originalNetAmount: record.original_net_amount,
      originalCompensationAmount: record.original_compensation_amount,
      tokenAddress: record.token_address as Address | null,
      actionType: record.action_type as CorporateActionType | (string & {}) | null,
      /** As received; its structure depends on the action type (only the dividend's is documented). */
      params: record.params,
      /** Typed `params` of a dividend; null for other types. */
      dividend,
      /** The underlying stock's ticker. */
      ticker: record.ticker,
      exchange: record.exchange,
    }
  })

const getCorporateActionsSchema = z
  .object({ actions: z.array(recordSchema), total_count: z.number().int().nonnegative() })
  .transform((reply) => ({ actions: reply.actions, totalCount: reply.total_count }))

export type CorporateActionRecord = z.output<typeof recordSchema>

export type GetCorporateActionsParameters = {
  /** Token contract address. */
  token?: Address | undefined
  chainId?: number | undefined
  /** 1-based; default 1. */
  page?: number | undefined
  /** Default 20 (the reference gives no maximum; the sandbox caps it at 100). */
  pageSize?: number | undefined
}

export type GetCorporateActionsReturnType = z.output<typeof getCorporateActionsSchema>

/**
 * One page of the maker's corporate action records, triggered or processed
 * (GET /api/v1/maker/corporate-actions/actions, maker: API key with the client's `makerAddress`, or
 * the wallet's JWT). Quantities stay decimal text in natural units, as the service reports them:
 * a record names neither the token's kind nor its decimals (`ticker` is the underlying stock's);
 * convert with `parseStockQuantity` / `parseShareQuantity` once the token is known
 * (`getTokenAddress`).
 *
 * @example
 * const { actions, totalCount } = await getCorporateActions(client, { chainId: 31337 })
 * actions[0]?.dividend?.dividendPerShare
 */
export function getCorporateActions(
  client: ServiceClient,
  parameters: GetCorporateActionsParameters = {},
  options?: CallOptions,
): Promise<GetCorporateActionsReturnType> {
  const { token, chainId, page, pageSize } = parameters
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/maker/corporate-actions/actions',
      query: { token, chain_id: chainId, page, page_size: pageSize },
      auth: 'maker',
      schema: getCorporateActionsSchema,
    },
    options,
  )
}

/**
 * Every corporate action record matching the filters, page after page (default 20 a page, the
 * reference's default; it gives no maximum) until `total_count` is exhausted; each record once.
 *
 * @example
 * for await (const action of iterateCorporateActions(client, { token })) console.log(action.status)
 */
export function iterateCorporateActions(
  client: ServiceClient,
  parameters: Omit<GetCorporateActionsParameters, 'page'> = {},
  options?: CallOptions,
): AsyncGenerator<CorporateActionRecord, void, undefined> {
  const pageSize = parameters.pageSize ?? 20
  return walkPages({
    fetchPage: async (page) => {
      const reply = await getCorporateActions(client, { ...parameters, page, pageSize }, options)
      return { items: reply.actions, total: reply.totalCount }
    },
    keyOf: (action) => action.id,
    signal: options?.signal,
  })
}
