import { http, type Transport } from 'viem'
import type { LocalChain } from '../../localChains.js'
import type { MakerLedger, SandboxContext } from '../contextTypes.js'
import { createChainWriter } from './chainWriter.js'
import { createCorporateActions } from './corporateActions.js'
import type { CorporateActionChain } from './corporateActionTypes.js'
import { averageBuyPrice, type BalancePair, type CostEvent } from './holdings.js'
import { type ChainIndex, chainIndexesOf, createCoalescedSync, syncChain } from './ledgerSync.js'
import type { LedgerOrder } from './orderTypes.js'

export type CreateMakerLedgerParameters = {
  chains: readonly LocalChain[]
  /** Blocks per getLogs call (default 2,000): bounded, as public RPC nodes require. */
  maxBlockRange?: bigint
  /**
   * The ledger's reads of a chain go through this transport. Default: HTTP to the chain's RPC URL,
   * batching concurrent requests into JSON-RPC batches, aborted when the ledger closes.
   */
  transport?: (chain: LocalChain, signal: AbortSignal) => Transport
}

function defaultTransport(chain: LocalChain, signal: AbortSignal): Transport {
  return http(chain.rpcUrl, { batch: { batchSize: 200, wait: 0 }, fetchOptions: { signal } })
}

/**
 * The sandbox's record of what happened on its chains (orders from settlement events, balances,
 * corporate actions); each chain's index is kept by ledgerSync.ts.
 */
export function createMakerLedger(parameters: CreateMakerLedgerParameters): MakerLedger {
  const { chains, maxBlockRange = 2_000n, transport = defaultTransport } = parameters
  if (maxBlockRange < 1n) throw new Error('maxBlockRange must be at least 1 block')
  const controller = new AbortController()
  const { signal } = controller
  const indexes = chainIndexesOf(chains, transport, signal)
  const chainOf = servedChains(indexes, signal)
  let context: SandboxContext | undefined
  let closed = false
  const contextOf = () => {
    if (!context) throw new Error('the maker ledger is not attached to a sandbox context')
    return context
  }
  const syncs = createCoalescedSync(() =>
    Promise.all(
      [...indexes.values()].map((index) => syncChain(index, { context: contextOf, maxBlockRange, signal })),
    ).then(() => undefined),
  )
  const corporateActions = createCorporateActions({ context: contextOf, chainOf })

  return {
    attach(value) {
      context = value
    },
    sync(callerSignal) {
      if (closed) return Promise.reject(new Error('the maker ledger is closed'))
      return abortable(syncs.sync(), callerSignal)
    },
    async close() {
      closed = true
      controller.abort(new Error('the maker ledger is closed'))
      await syncs.settled()
    },
    orders: (chainIds) => ordersOnChains(indexes, chainIds),
    ordersOf: (maker) => ordersOfMaker(indexes, maker),
    syncedBlock: (chainId) => indexes.get(chainId)?.synced?.number,
    balances: (chainId, pairs) => balancesAtSyncedBlock(indexes, chainId, pairs),
    averageBuyPrice: (maker, chainId, token) =>
      averageBuyPrice([
        ...fillCostEvents(indexes.get(chainId)?.orders ?? [], maker, token),
        ...corporateActions.costEvents(maker, chainId, token),
      ]),
    corporateActions,
  }
}

/** Each chain as corporate actions act on it: its client and a writer signing with its deployer. */
function servedChains(
  indexes: Map<number, ChainIndex>,
  signal: AbortSignal,
): (chainId: number) => CorporateActionChain | undefined {
  const writers = new Map(
    [...indexes.values()].map((index) => [
      index.chain.chainId,
      createChainWriter({ chain: index.chain, client: index.client, signal }),
    ]),
  )
  return (chainId) => {
    const index = indexes.get(chainId)
    const writer = writers.get(chainId)
    return index && writer ? { chain: index.chain, client: index.client, writer } : undefined
  }
}

/** `shared`, or a rejection with `signal`'s reason when it aborts first (the shared sync goes on). */
function abortable(shared: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return shared
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function ordersOnChains(indexes: Map<number, ChainIndex>, chainIds: readonly number[] | undefined) {
  return [...indexes.values()]
    .filter((index) => chainIds === undefined || chainIds.includes(index.chain.chainId))
    .flatMap((index) => index.orders)
}

function ordersOfMaker(indexes: Map<number, ChainIndex>, maker: string) {
  const who = maker.toLowerCase()
  return [...indexes.values()].flatMap((index) => index.orders.filter((o) => o.maker.toLowerCase() === who))
}

async function balancesAtSyncedBlock(
  indexes: Map<number, ChainIndex>,
  chainId: number,
  pairs: readonly BalancePair[],
): Promise<bigint[]> {
  const index = indexes.get(chainId)
  if (!index) throw new Error(`chain ${chainId} is not served by the ledger`)
  if (pairs.length === 0) return []
  const at = index.synced?.number ?? (await index.client.getBlockNumber({ cacheTime: 0 }))
  return index.readBalances(at, pairs)
}

/** The maker's fills of one token, as the average buy price counts them. */
function fillCostEvents(orders: readonly LedgerOrder[], maker: string, token: string): CostEvent[] {
  const who = maker.toLowerCase()
  const address = token.toLowerCase()
  return orders
    .filter((order) => order.maker.toLowerCase() === who && order.stockToken.toLowerCase() === address)
    .map((order) => ({
      kind: 'fill',
      blockNumber: order.blockNumber,
      logIndex: order.logIndex,
      isBuy: order.isBuy,
      quantity: order.quantity,
      price: order.price,
    }))
}
