import { parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { beforeAll, expect } from 'vitest'
import { apiCall } from '../../../helpers/sandboxService.js'
import {
  type Execution,
  executeQuote,
  listingOf,
  usePrivateChains,
  walletOn,
} from '../ledger/ledgerFixtures.js'

// The orders of one maker for the GET /api/v1/orders tests: executions made for real on chains of
// the test file's own (its many executions never disturb other files' platform-wide numbers), and
// the calls that list them. Starting the chains costs about a second and a half, so the route's
// tests share one file rather than start them twice.

let privateChains: ReturnType<typeof usePrivateChains> | undefined
function chains() {
  if (!privateChains) throw new Error('useMakerOrders() not called')
  return privateChains()
}
const service = () => chains().service
const chainA = () => chains().withRouter // platform router, 6-decimal asset
const chainB = () => chains().withoutRouter // settlement only, 18-decimal asset

export type OrderJson = {
  id: string
  maker: string
  principal: string
  is_buy: boolean
  ticker: string
  exchange: number
  asset: string
  price: string
  quantity: string
  incentive: string
  deadline: number
  nonce: number
  signature: string
  order_hash: string
  status: string
  filled_quantity: string
  notes: string | null
  created_at: string
  updated_at: string
  fills?: Record<string, unknown>[]
}
export type OrdersPage = {
  total: number
  page: number
  page_size: number
  total_pages: number
  orders: OrderJson[]
}

/** One execution of the fixture, with what the test expects of its order. */
export type Made = Execution & {
  chainId: number
  ticker: string
  exchange: number
  isBuy: boolean
  quantity: bigint
}

const makerKey = generatePrivateKey()
export const maker = privateKeyToAddress(makerKey)
/** The maker's executions, in the order made (set before the tests). */
export const made: Made[] = []
/** The execution of a quote the service did not issue (set before the tests). */
export let unregistered: Made

export function ordersOf(query: Record<string, string | number | boolean> = {}, who: string = maker) {
  return apiCall<{ code: number; data: OrdersPage; message?: string; details?: string }>(
    service(),
    '/api/v1/orders',
    { credential: service().credential, makerAddress: who, query },
  )
}

export async function hashesFor(query: Record<string, string | number | boolean>) {
  const reply = await ordersOf({ page_size: 100, ...query })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body.data.orders.map((order) => order.order_hash)
}

/** Execution order of the ledger: block time, then chain, block and log index. */
export function executionOrder(a: Made, b: Made) {
  return (
    a.blockTimestamp - b.blockTimestamp ||
    a.chainId - b.chainId ||
    Number(a.receipt.blockNumber - b.receipt.blockNumber)
  )
}

export function hashesOf(executions: readonly Made[]) {
  return executions.map((execution) => execution.quote.quoteId)
}

/**
 * Starts the chains and a sandbox service on them, and makes the maker's executions before the
 * file's tests: on the router chain, buys and a sell of AAPL, TSLA and AAPLs; on the other, a buy of
 * 0700 and one of NVDA on a quote the service did not issue; and another maker's execution, which
 * the maker must never see. Call once, at the top of the test file.
 */
export function useMakerOrders() {
  privateChains = usePrivateChains({ chainIds: [41_537, 41_538] })
  beforeAll(async () => {
    const walletA = await walletOn(chainA(), { privateKey: makerKey, asset: parseUnits('100000', 6) })
    const walletB = await walletOn(chainB(), {
      privateKey: makerKey,
      asset: parseUnits('100000', 18),
    })
    const run = async (
      wallet: typeof walletA,
      order: { ticker: string; isBuy: boolean; quantity: bigint; price: bigint; register?: boolean },
    ) => {
      const execution = await executeQuote(service(), wallet, order)
      const listing = listingOf(service(), wallet.chain, order.ticker)
      const entry: Made = {
        ...execution,
        chainId: wallet.chain.chainId,
        ticker: order.ticker,
        exchange: listing.exchange,
        isBuy: order.isBuy,
        quantity: order.quantity,
      }
      made.push(entry)
      return entry
    }
    await run(walletA, { ticker: 'AAPL', isBuy: true, quantity: 3n, price: 227_500_000n })
    await run(walletA, { ticker: 'TSLA', isBuy: true, quantity: 2n, price: 251_000_000n })
    await run(walletA, { ticker: 'AAPL', isBuy: false, quantity: 1n, price: 228_000_000n })
    await run(walletA, { ticker: 'AAPLs', isBuy: true, quantity: parseUnits('0.5', 18), price: 227_600_000n })
    await run(walletB, { ticker: '0700', isBuy: true, quantity: 100n, price: parseUnits('53.79', 18) })
    unregistered = await run(walletB, {
      ticker: 'NVDA',
      isBuy: true,
      quantity: 4n,
      price: parseUnits('139', 18),
      register: false,
    })
    // Another maker's execution on the same chain, which the first maker must never see.
    const other = await walletOn(chainA(), { asset: parseUnits('1000', 6) })
    await executeQuote(service(), other, { ticker: 'MSFT', isBuy: true, quantity: 1n, price: 415_000_000n })
  })
  return privateChains
}
