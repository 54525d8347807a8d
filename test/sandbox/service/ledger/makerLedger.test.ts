import { routerQuoteDomain, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { MakerLedger } from '@stockroute/sandbox/service/contextTypes.js'
import { createMakerLedger } from '@stockroute/sandbox/service/ledger/makerLedger.js'
import { signRouterQuote } from '@stockroute/sandbox/signQuote.js'
import { erc20Abi, http, maxUint256, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { clientsFor, newQuoteId } from '../../../helpers/localChains.js'
import { confirm, executeQuote, listOwnStock, usePrivateChains, walletOn } from './ledgerFixtures.js'

// The ledger on chains of this file's own: it can count every order there, and rewind a chain.
const privateChains = usePrivateChains({ chainIds: [41_437, 41_438], catalogueTickers: ['AAPL', '0700'] })

type RpcCounts = Map<string, number>

/** A ledger of its own on the private chains, counting its JSON-RPC calls per `chainId:method`. */
function countingLedger(options: { maxBlockRange?: bigint; delayMs?: number } = {}) {
  const counts: RpcCounts = new Map()
  const ledger = createMakerLedger({
    chains: privateChains().chains,
    ...(options.maxBlockRange ? { maxBlockRange: options.maxBlockRange } : {}),
    transport: (chain, signal) =>
      http(chain.rpcUrl, {
        fetchOptions: { signal },
        async onFetchRequest(request) {
          const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[]
          for (const call of Array.isArray(body) ? body : [body]) {
            const key = `${chain.chainId}:${call.method}`
            counts.set(key, (counts.get(key) ?? 0) + 1)
          }
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs))
        },
      }),
  })
  ledger.attach(privateChains().service.context)
  return { ledger, counts }
}

async function withLedger<T>(ledger: MakerLedger, use: () => Promise<T>): Promise<T> {
  try {
    return await use()
  } finally {
    await ledger.close()
  }
}

const ids = (ledger: MakerLedger) =>
  ledger
    .orders()
    .map((order) => `${order.id}/${order.fills[0]?.id}/${order.nonce}`)
    .sort()

describe('maker ledger', () => {
  it('indexes QuoteExecuted of both executors: the platform router and the settlement contract', async () => {
    const { service, withRouter } = privateChains()
    const wallet = await walletOn(withRouter, { asset: parseUnits('10000', 6) })
    const viaRouter = await executeQuote(service, wallet, {
      ticker: 'AAPL',
      isBuy: true,
      quantity: 1n,
      price: 227_000_000n,
    })
    const viaSettlement = await executeOnSettlement(withRouter, wallet)
    await service.context.ledger.sync()
    const hashes = service.context.ledger.ordersOf(wallet.account.address).map((o) => o.orderHash)
    expect(hashes).toEqual([viaRouter.quote.quoteId, viaSettlement])
  })

  it('reads in bounded block ranges: 1 or 7 blocks per getLogs call find the same orders, each once', async () => {
    const { service } = privateChains()
    await service.context.ledger.sync()
    const expected = ids(service.context.ledger)
    expect(expected.length).toBeGreaterThan(0)
    for (const maxBlockRange of [1n, 7n]) {
      const { ledger, counts } = countingLedger({ maxBlockRange })
      await withLedger(ledger, async () => {
        await ledger.sync()
        expect(ids(ledger)).toEqual(expected)
        const chain = privateChains().withRouter
        const head = ledger.syncedBlock(chain.chainId) ?? 0n
        expect(counts.get(`${chain.chainId}:eth_getLogs`)).toBe(
          Math.ceil(Number(head + 1n) / Number(maxBlockRange)),
        )
      })
    }
  })

  it('concurrent syncs are coalesced: twenty callers cause one running and one queued sync', async () => {
    const { ledger, counts } = countingLedger()
    await withLedger(ledger, async () => {
      await ledger.sync()
      counts.clear()
      await Promise.all(Array.from({ length: 20 }, () => ledger.sync()))
      for (const chain of privateChains().chains)
        expect(counts.get(`${chain.chainId}:eth_blockNumber`)).toBe(2)
    })
  })

  it('a sync asked for while another runs sees every block mined before it was asked for', async () => {
    const { service, withRouter } = privateChains()
    const { ledger } = countingLedger({ maxBlockRange: 1n, delayMs: 15 })
    await withLedger(ledger, async () => {
      let firstDone = false
      const first = ledger.sync().then(() => {
        firstDone = true
      })
      const wallet = await walletOn(withRouter, { asset: parseUnits('1000', 6) })
      const execution = await executeQuote(service, wallet, {
        ticker: 'AAPL',
        isBuy: true,
        quantity: 1n,
        price: 227_000_000n,
      })
      expect(firstDone, 'the first sync should still be running').toBe(false)
      await ledger.sync()
      expect(ledger.ordersOf(wallet.account.address).map((o) => o.orderHash)).toEqual([
        execution.quote.quoteId,
      ])
      await first
    })
  })

  it('a chain that went back is read again: orders of reverted blocks disappear, new ones appear once', async () => {
    const { service, withoutRouter } = privateChains()
    const { testClient } = clientsFor(withoutRouter, withoutRouter.roles.deployer.privateKey)
    const { ledger } = countingLedger()
    const buy = async () => {
      const wallet = await walletOn(withoutRouter, { asset: parseUnits('100000', 18) })
      const execution = await executeQuote(service, wallet, {
        ticker: '0700',
        isBuy: true,
        quantity: 100n,
        price: parseUnits('53', 18),
      })
      return { maker: wallet.account.address, hash: execution.quote.quoteId }
    }
    const hashesOf = (maker: string) => ledger.ordersOf(maker).map((o) => o.orderHash)
    await withLedger(ledger, async () => {
      // Rewound below the last block read: the head is lower than before.
      let snapshot = await testClient.snapshot()
      const lower = await buy()
      await ledger.sync()
      expect(hashesOf(lower.maker)).toEqual([lower.hash])
      await testClient.revert({ id: snapshot })
      await ledger.sync()
      expect(hashesOf(lower.maker)).toEqual([])

      // Rewound, then other blocks mined past the old height: the last block read has another hash.
      snapshot = await testClient.snapshot()
      const replaced = await buy()
      await ledger.sync()
      expect(hashesOf(replaced.maker)).toEqual([replaced.hash])
      await testClient.revert({ id: snapshot })
      await testClient.mine({ blocks: 20 })
      const kept = await buy()
      await ledger.sync()
      expect(hashesOf(replaced.maker)).toEqual([])
      expect(hashesOf(kept.maker)).toEqual([kept.hash])
      const all = ledger.orders().map((o) => o.id)
      expect(new Set(all).size).toBe(all.length)
    })
  })

  it('an execution of a token the service does not list is named by its on-chain symbol, on exchange 0', async () => {
    const { service, withRouter } = privateChains()
    const listing = await listOwnStock(service, withRouter, { exchange: 1 })
    const wallet = await walletOn(withRouter, { asset: parseUnits('1000', 6) })
    const execution = await executeQuote(service, wallet, {
      ticker: listing.ticker,
      isBuy: true,
      quantity: 2n,
      price: 5_000_000n,
      register: false,
    })
    const listings = service.context.listings.get(withRouter.chainId) ?? []
    listings.splice(listings.indexOf(listing), 1)
    const { ledger } = countingLedger()
    await withLedger(ledger, async () => {
      await ledger.sync()
      expect(ledger.ordersOf(wallet.account.address)).toEqual([
        expect.objectContaining({
          orderHash: execution.quote.quoteId,
          ticker: listing.ticker,
          exchange: 0,
          tokenDecimals: 0,
          price: 5_000_000n,
          quantity: 2n,
        }),
      ])
    })
  })

  it('after close, sync rejects', async () => {
    const { ledger } = countingLedger()
    await ledger.close()
    await expect(ledger.sync()).rejects.toThrow(/closed/)
  })
})

/** Executes a buy through the settlement contract of a chain that also has a router. */
async function executeOnSettlement(chain: LocalChain, wallet: Awaited<ReturnType<typeof walletOn>>) {
  const token = chain.tokens.find((t) => t.ticker === 'AAPL')
  if (!token) throw new Error('no AAPL')
  const quote: SignedQuoteStruct = {
    quoteId: newQuoteId(),
    stockToken: token.address,
    assetToken: chain.defaultAsset.address,
    isBuy: true,
    amountIn: 228_000_000n,
    amountOut: 1n,
    feeAmount: 228_000n,
    expiresAt: (await wallet.publicClient.getBlock()).timestamp + 60n,
  }
  const signature = await signRouterQuote({
    domain: routerQuoteDomain({ ...chain, platformRouterAddress: null }),
    quote,
    operatorKey: chain.roles.operator.privateKey,
  })
  const approval = await wallet.walletClient.writeContract({
    address: chain.defaultAsset.address,
    abi: erc20Abi,
    functionName: 'approve',
    args: [chain.settlementAddress, maxUint256],
  })
  await confirm(chain, [approval])
  const hash = await wallet.walletClient.writeContract({
    address: chain.settlementAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
  await confirm(chain, [hash])
  return quote.quoteId
}
