import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { getAddress, parseEventLogs, type TransactionReceipt } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { ChainInputError } from '../../src/chain/errors.js'
import {
  fillsFromReceipt,
  readSettlementLogs,
  type SettlementFill,
} from '../../src/chain/settlementEvents.js'
import { chainWithoutRouter, chainWithRouter, signForChain, tokenOf } from '../helpers/localChains.js'
import { approve, buyQuote, execute, fundedWallet, publicClientOf, type Wallet } from './fixtures.js'
import { countingProxy, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** The fill a receipt must yield, built from the quote and the receipt, decoded with the sandbox's own ABI. */
function expectedFill(
  chain: LocalChain,
  wallet: Wallet,
  quote: SignedQuoteStruct,
  receipt: TransactionReceipt,
) {
  const [event, ...others] = parseEventLogs({
    abi: rfqSettlementAbi,
    eventName: 'QuoteExecuted',
    logs: receipt.logs,
  })
  expect(others).toEqual([])
  if (!event) throw new Error('the execute emitted no QuoteExecuted')
  expect(event.args).toEqual({ ...quote, taker: wallet.account.address, expiresAt: undefined })
  return {
    chainId: chain.chainId,
    txHash: receipt.transactionHash,
    logIndex: event.logIndex,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    executor: chain.executorAddress,
    quoteId: quote.quoteId,
    taker: wallet.account.address,
    stockToken: quote.stockToken,
    assetToken: quote.assetToken,
    isBuy: quote.isBuy,
    amountIn: quote.amountIn,
    amountOut: quote.amountOut,
    feeAmount: quote.feeAmount,
  } satisfies SettlementFill
}

async function executeBuy(chain: LocalChain, wallet: Wallet) {
  const quote = buyQuote(chain)
  await approve(wallet, quote.assetToken, chain.executorAddress, quote.amountIn)
  const receipt = await execute(chain, wallet, quote, await signForChain(chain, quote))
  return { quote, receipt }
}

async function executeSell(chain: LocalChain, wallet: Wallet) {
  const stockToken = tokenOf(chain, 'MSFT')
  const quote = buyQuote(chain, { stockToken, isBuy: false, amountIn: 1n, amountOut: 400n, feeAmount: 2n })
  await approve(wallet, stockToken, chain.executorAddress, 1n)
  const receipt = await execute(chain, wallet, quote, await signForChain(chain, quote))
  return { quote, receipt }
}

describe.each([
  ['with platform router', chainWithRouter],
  ['without router', chainWithoutRouter],
])('settlement events on the chain %s', (_label, chainOf) => {
  const chain = chainOf()

  it('fillsFromReceipt after a real buy and a real sell equals the event', async () => {
    const wallet = await fundedWallet(chain, { asset: '1000', tokens: { MSFT: 5n } })
    for (const { quote, receipt } of [await executeBuy(chain, wallet), await executeSell(chain, wallet)]) {
      const fills = fillsFromReceipt(receipt, { chainId: chain.chainId, executors: [chain.executorAddress] })
      expect(fills).toEqual([expectedFill(chain, wallet, quote, receipt)])
      // Case of the executor address does not matter.
      expect(
        fillsFromReceipt(receipt, {
          chainId: chain.chainId,
          executors: [chain.executorAddress.toLowerCase() as `0x${string}`],
        }),
      ).toEqual(fills)
    }
  })

  it('fillsFromReceipt ignores events of other contracts and reverted transactions', async () => {
    const wallet = await fundedWallet(chain, { asset: '1000' })
    const { receipt } = await executeBuy(chain, wallet)
    const elsewhere = getAddress(chain.defaultAsset.address)
    expect(fillsFromReceipt(receipt, { chainId: chain.chainId, executors: [elsewhere] })).toEqual([])
    expect(fillsFromReceipt(receipt, { chainId: chain.chainId, executors: [] })).toEqual([])
    // The same logs claimed by another address (as a look-alike contract would emit them) are not fills.
    const spoofed = receipt.logs.map((log) => ({ ...log, address: elsewhere }))
    expect(
      fillsFromReceipt(
        { ...receipt, logs: spoofed },
        { chainId: chain.chainId, executors: [chain.executorAddress] },
      ),
    ).toEqual([])
    expect(
      fillsFromReceipt(
        { ...receipt, status: 'reverted' },
        { chainId: chain.chainId, executors: [chain.executorAddress] },
      ),
    ).toEqual([])
  })

  it('readSettlementLogs across a range in small chunks finds exactly the fills executed', async () => {
    const wallet = await fundedWallet(chain, { asset: '1000', tokens: { MSFT: 5n } })
    const start = await publicClientOf(chain).getBlockNumber({ cacheTime: 0 })
    const executed = [
      await executeBuy(chain, wallet),
      await executeSell(chain, wallet),
      await executeBuy(chain, wallet),
    ].map(({ quote, receipt }) => expectedFill(chain, wallet, quote, receipt))
    const end = await publicClientOf(chain).getBlockNumber({ cacheTime: 0 })
    expect(end - start).toBeGreaterThanOrEqual(6n) // three approvals and three executes, a block each

    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: proxy.url })
    const range = { executors: [chain.executorAddress], fromBlock: start, toBlock: end }
    const chunked = await readSettlementLogs(publicClient, { ...range, maxBlockRange: 2n })
    const blocks = end - start + 1n
    expect(proxy.methods.filter((method) => method === 'eth_getLogs')).toHaveLength(
      Number((blocks + 1n) / 2n),
    )

    // Other test files trade on the same executor meanwhile: this taker's fills are exactly ours.
    expect(chunked.filter((fill) => fill.taker === wallet.account.address)).toEqual(executed)
    for (const fill of chunked) {
      expect(fill.blockNumber >= start && fill.blockNumber <= end).toBe(true)
      expect(fill.executor).toBe(chain.executorAddress)
    }
    expect(new Set(chunked.map((fill) => `${fill.txHash}/${fill.logIndex}`)).size).toBe(chunked.length)
    // Chunking loses and duplicates nothing: one request over the whole range gives the same.
    expect(await readSettlementLogs(publicClient, range)).toEqual(chunked)
    // Only the executors asked for.
    if (chain.platformRouterAddress) {
      const settlementOnly = await readSettlementLogs(publicClient, {
        ...range,
        executors: [chain.settlementAddress],
      })
      expect(settlementOnly.filter((fill) => fill.taker === wallet.account.address)).toEqual([])
    }
    // The first and last block are included.
    const first = executed[0]
    const last = executed[2]
    if (!first || !last) throw new Error('three fills expected')
    const edges = await readSettlementLogs(publicClient, {
      executors: [chain.executorAddress],
      fromBlock: first.blockNumber,
      toBlock: last.blockNumber,
      maxBlockRange: 1n,
    })
    expect(edges.filter((fill) => fill.taker === wallet.account.address)).toEqual(executed)
  })
})

describe('readSettlementLogs input', () => {
  const chain = chainWithRouter()
  const client = () => publicClientOf(chain)

  it.each([
    [{ fromBlock: 5n, toBlock: 4n }, /fromBlock 5 is after toBlock 4/],
    [{ fromBlock: -1n, toBlock: 4n }, /fromBlock -1 is negative/],
    [{ fromBlock: 1n, toBlock: 4n, maxBlockRange: 0n }, /maxBlockRange 0 must be at least 1 block/],
    [{ fromBlock: 1n, toBlock: 4n, executors: [] }, /executors \[\] is empty/],
  ])('refuses %o', async (overrides, message) => {
    const error = await readSettlementLogs(client(), {
      executors: [chain.executorAddress],
      ...overrides,
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChainInputError)
    expect((error as ChainInputError).code).toBe('CHAIN_BAD_INPUT')
    expect((error as ChainInputError).shortMessage).toMatch(message)
  })
})
