import { createPublicClient, type Hex, http, type PublicClient, type Transport } from 'viem'
import { sandboxChain } from '../../deploy.js'
import type { LocalChain } from '../../localChains.js'
import type { MakerLedger, SandboxContext } from '../contextTypes.js'
import { createChainWriter } from './chainWriter.js'
import { createCorporateActions } from './corporateActions.js'
import { averageBuyPrice, type CostEvent, createBalanceReader } from './holdings.js'
import type { LedgerOrder } from './orderTypes.js'
import { readExecutions } from './quoteExecutions.js'

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

type ChainIndex = {
  chain: LocalChain
  client: PublicClient
  readBalances: ReturnType<typeof createBalanceReader>
  /** First block not read yet. */
  nextBlock: bigint
  /** The last block read and its hash, to notice a chain that was reset or reverted. */
  synced: { number: bigint; hash: Hex } | undefined
  orders: LedgerOrder[]
  /** Next order nonce per maker (lowercase address). */
  nonces: Map<string, number>
}

export function createMakerLedger(parameters: CreateMakerLedgerParameters): MakerLedger {
  const { chains, maxBlockRange = 2_000n, transport = defaultTransport } = parameters
  if (maxBlockRange < 1n) throw new Error('maxBlockRange must be at least 1 block')
  const controller = new AbortController()
  const indexes = new Map<number, ChainIndex>(
    chains.map((chain) => {
      // One client per chain: by default the many reads of a sync (blocks, balances) go out as
      // JSON-RPC batches; closing the ledger aborts whatever is in flight.
      const client = createPublicClient({
        chain: sandboxChain(chain.chainId, chain.name, chain.rpcUrl),
        transport: transport(chain, controller.signal),
      }) as PublicClient
      return [
        chain.chainId,
        {
          chain,
          client,
          readBalances: createBalanceReader(client),
          nextBlock: 0n,
          synced: undefined,
          orders: [],
          nonces: new Map(),
        },
      ]
    }),
  )
  const writers = new Map(
    chains.map((chain) => {
      const index = indexes.get(chain.chainId) as ChainIndex
      return [chain.chainId, createChainWriter({ chain, client: index.client, signal: controller.signal })]
    }),
  )
  let context: SandboxContext | undefined
  let closed = false
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined

  const contextOf = () => {
    if (!context) throw new Error('the maker ledger is not attached to a sandbox context')
    return context
  }

  async function syncChain(index: ChainIndex) {
    const { client } = index
    const latest = await client.getBlockNumber({ cacheTime: 0 })
    if (index.synced) {
      const known =
        latest >= index.synced.number
          ? await client.getBlock({ blockNumber: index.synced.number }).catch(() => undefined)
          : undefined
      if (known?.hash !== index.synced.hash) reset(index)
    }
    for (let from = index.nextBlock; from <= latest; from += maxBlockRange) {
      if (controller.signal.aborted) return
      const to = from + maxBlockRange - 1n < latest ? from + maxBlockRange - 1n : latest
      const executions = await readExecutions({
        chain: index.chain,
        client,
        context: contextOf(),
        fromBlock: from,
        toBlock: to,
      })
      // A range is committed whole, after all its reads succeeded: no fill is lost or counted twice.
      for (const execution of executions) {
        const key = execution.maker.toLowerCase()
        const nonce = index.nonces.get(key) ?? 0
        index.nonces.set(key, nonce + 1)
        index.orders.push({ ...execution, nonce })
      }
      index.nextBlock = to + 1n
    }
    if (index.nextBlock > latest) {
      const head = await client.getBlock({ blockNumber: latest })
      if (head.hash) index.synced = { number: latest, hash: head.hash }
    }
  }

  /** The chain went back (anvil reset or revert): its history is read again from block 0. */
  function reset(index: ChainIndex) {
    index.nextBlock = 0n
    index.synced = undefined
    index.orders = []
    index.nonces = new Map()
  }

  function startSync(): Promise<void> {
    const run = Promise.all([...indexes.values()].map(syncChain)).then(() => undefined)
    const tracked = run.finally(() => {
      if (running === tracked) running = undefined
    })
    running = tracked
    return tracked
  }

  function coalescedSync(): Promise<void> {
    if (!running) return startSync()
    if (!queued) {
      const next = running
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          queued = undefined
          return startSync()
        })
      queued = next
    }
    return queued
  }

  const corporateActions = createCorporateActions({
    context: contextOf,
    chainOf(chainId) {
      const index = indexes.get(chainId)
      const writer = writers.get(chainId)
      return index && writer ? { chain: index.chain, client: index.client, writer } : undefined
    },
  })

  return {
    attach(value) {
      context = value
    },
    sync(signal) {
      if (closed) return Promise.reject(new Error('the maker ledger is closed'))
      const shared = coalescedSync()
      if (!signal) return shared
      return new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        const onAbort = () => reject(signal.reason)
        signal.addEventListener('abort', onAbort, { once: true })
        shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
      })
    },
    async close() {
      closed = true
      controller.abort(new Error('the maker ledger is closed'))
      await Promise.allSettled([running, queued])
    },
    orders(chainIds) {
      return [...indexes.values()]
        .filter((index) => chainIds === undefined || chainIds.includes(index.chain.chainId))
        .flatMap((index) => index.orders)
    },
    ordersOf(maker) {
      const who = maker.toLowerCase()
      return [...indexes.values()].flatMap((index) =>
        index.orders.filter((o) => o.maker.toLowerCase() === who),
      )
    },
    syncedBlock(chainId) {
      return indexes.get(chainId)?.synced?.number
    },
    async balances(chainId, pairs) {
      const index = indexes.get(chainId)
      if (!index) throw new Error(`chain ${chainId} is not served by the ledger`)
      if (pairs.length === 0) return []
      const at = index.synced?.number ?? (await index.client.getBlockNumber({ cacheTime: 0 }))
      return index.readBalances(at, pairs)
    },
    averageBuyPrice(maker, chainId, token) {
      const who = maker.toLowerCase()
      const address = token.toLowerCase()
      const fills: CostEvent[] = (indexes.get(chainId)?.orders ?? [])
        .filter((order) => order.maker.toLowerCase() === who && order.stockToken.toLowerCase() === address)
        .map((order) => ({
          kind: 'fill',
          blockNumber: order.blockNumber,
          logIndex: order.logIndex,
          isBuy: order.isBuy,
          quantity: order.quantity,
          price: order.price,
        }))
      return averageBuyPrice([...fills, ...corporateActions.costEvents(maker, chainId, token)])
    },
    corporateActions,
  }
}
