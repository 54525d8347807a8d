import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { Address, Hex, PublicClient } from 'viem'
import { z } from 'zod'
import type { LocalChain } from '../../localChains.js'
import type { ChainWriter } from './chainWriter.js'
import type { CostEvent } from './holdings.js'

// The shapes of the sandbox's corporate actions: the admin endpoint's input schema, the records
// makers read, and the action the service keeps.

export const corporateActionTypes = [
  'dividend',
  'stock_split',
  'reverse_stock_split',
  'delisting',
  'ticker_change',
] as const
export type CorporateActionType = (typeof corporateActionTypes)[number]

/** Holders per applySplit / delist transaction, to stay far below the block gas limit. */
export const holdersPerTransaction = 100
/** Dividend amounts in the original currency are kept exactly at this scale. */
export const originalAmountDecimals = 18

const decimalText = (what: string) =>
  z
    .string({ error: `${what}: must be a decimal string such as "0.25"` })
    .regex(/^\d{1,30}(\.\d{1,18})?$/, `${what}: must be a non-negative decimal with at most 18 decimals`)
const ratioPart = z.number().int().min(1).max(1_000_000)
const base = {
  chain_id: z.number().int().min(0),
  ticker: z.string().min(1).max(32),
  exchange: z.number().int(),
  lock_tokens: z.boolean().optional(),
}

/** Body of POST /sandbox/v1/corporate-actions. */
export const corporateActionInput = z.discriminatedUnion('action_type', [
  z.object({
    ...base,
    action_type: z.literal('stock_split'),
    params: z.object({ numerator: ratioPart, denominator: ratioPart }),
  }),
  z.object({
    ...base,
    action_type: z.literal('reverse_stock_split'),
    params: z.object({ numerator: ratioPart, denominator: ratioPart }),
  }),
  z.object({
    ...base,
    action_type: z.literal('delisting'),
    params: z.object({}).optional(),
  }),
  z.object({
    ...base,
    action_type: z.literal('ticker_change'),
    params: z.object({
      new_ticker: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,31}$/, 'new_ticker: 1 to 32 letters, digits, "." or "-"'),
    }),
  }),
  z.object({
    ...base,
    action_type: z.literal('dividend'),
    params: z.object({
      type: z.literal('dividend').optional(),
      dividend_per_share: decimalText('dividend_per_share'),
      tax_rate: z.number().int().min(0).max(100),
      fee_amount: decimalText('fee_amount').optional(),
      ex_dividend_date: z.iso.date(),
      dividend_date: z.iso.date(),
      distribution_plan: z.string().min(1).max(64).optional(),
    }),
  }),
])
export type CorporateActionInput = z.output<typeof corporateActionInput>

/** The action's `params` as records show them; `type` always names the action type. */
export type CorporateActionParams =
  | { type: 'stock_split' | 'reverse_stock_split'; numerator: number; denominator: number }
  | { type: 'delisting' }
  | { type: 'ticker_change'; old_ticker: string; new_ticker: string }
  | {
      type: 'dividend'
      dividend_per_share: string
      tax_rate: number
      fee_amount: string
      ex_dividend_date: string
      dividend_date: string
      distribution_plan: string
    }

export type CorporateActionStatus = 'triggered' | 'processed'

/** One holder's record of an action (the reference's Corporate action record). */
export type CorporateActionRecord = {
  id: string
  actionId: string
  maker: Address
  chainId: number
  /** Token base units. */
  holdingQty: bigint
  actionQty: bigint
  /** The fraction of one base unit lost by a split, scaled by 1e18 (as the manager records it). */
  compensationE18: bigint | null
  status: CorporateActionStatus
  isTokenLocked: boolean
  createdAtMs: number
  updatedAtMs: number
  processedHash: Hex | null
  processedAtMs: number | null
  /** Where the action took effect on chain, to order it among the maker's fills. */
  processedBlock: bigint | null
  processedLogIndex: number | null
  remark: string | null
  taxRate: string | null
  originalFeeAmount: string | null
  originalNetAmount: string | null
  originalCompensationAmount: string | null
  /** Dividend paid to the holder in the chain's default asset, base units. */
  payoutAmount: bigint | null
  tokenAddress: Address
  tokenDecimals: number
  actionType: CorporateActionType
  params: CorporateActionParams
  ticker: string
  exchange: ExchangeCode
}

/** The action as the operator triggered it, with one record per holder. */
export type CorporateAction = {
  id: string
  chainId: number
  tokenAddress: Address
  tokenDecimals: number
  /** The token's own ticker at trigger time (records carry the underlying stock's ticker). */
  tokenTicker: string
  ticker: string
  exchange: ExchangeCode
  actionType: CorporateActionType
  params: CorporateActionParams
  lockTokens: boolean
  status: CorporateActionStatus
  createdAtMs: number
  processedAtMs: number | null
  processedHash: Hex | null
  lockHash: Hex | null
  remark: string | null
  records: CorporateActionRecord[]
  busy: boolean
}

export type CorporateActionChain = { chain: LocalChain; client: PublicClient; writer: ChainWriter }

export type CorporateActions = {
  trigger: (input: CorporateActionInput) => Promise<CorporateAction>
  process: (id: string) => Promise<CorporateAction>
  get: (id: string) => CorporateAction | undefined
  list: () => CorporateAction[]
  /** The maker's records, newest first. */
  recordsOf: (maker: string, filter: { chainId?: number; token?: string }) => CorporateActionRecord[]
  /** Token base units locked by triggered actions that paused the token. */
  lockedQuantity: (maker: string, chainId: number, token: string) => bigint
  /** Processed splits and delistings of the maker's holding, for its average price. */
  costEvents: (maker: string, chainId: number, token: string) => CostEvent[]
}
