import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { Address, Hex } from 'viem'

// The shapes of the ledger's orders and fills: one settled quote is one filled order of its taker,
// with one fill (quoteExecutions.ts reads them from the chains).

/** Order statuses of the reference; the ledger's orders are settled quotes, so all are `filled`. */
export const orderStatuses = ['pending', 'locked', 'partially_filled', 'filled'] as const
export type OrderStatus = (typeof orderStatuses)[number]

export type LedgerFill = {
  id: string
  orderId: string
  orderHash: Hex
  taker: Address
  /** Token base units. */
  fillQuantity: bigint
  /** Gross asset amount in asset base units: buy amountIn − fee, sell amountOut + fee. */
  fillAmount: bigint
  feeAmount: bigint
  incentiveAmount: bigint
  takerIncentive: bigint
  txHash: Hex
  blockNumber: bigint
  logIndex: number
  status: 'confirmed'
  /** `chainId:txHash:logIndex`, the fill's unique key. */
  referenceId: string
  /** Unix seconds (block timestamp). */
  createdAt: number
}

/** One settled quote as an order of the maker (the taker who executed it). */
export type LedgerOrder = {
  id: string
  chainId: number
  maker: Address
  principal: Address
  isBuy: boolean
  ticker: string
  exchange: ExchangeCode
  stockToken: Address
  tokenDecimals: number
  asset: Address
  assetDecimals: number
  /** Asset base units per whole share. */
  price: bigint
  /** Token base units. */
  quantity: bigint
  incentive: bigint
  /** Unix seconds: the quote's expiry. */
  deadline: number
  nonce: number
  signature: Hex
  /** The quote id. */
  orderHash: Hex
  status: OrderStatus
  filledQuantity: bigint
  notes: string | null
  /** Unix seconds (block timestamp). */
  createdAt: number
  updatedAt: number
  fills: LedgerFill[]
  blockNumber: bigint
  logIndex: number
  txHash: Hex
}
