import { createPublicClient, type Hex, type PublicClient, type Transport } from 'viem'
import { sandboxChain } from '../../deploy.js'
import type { LocalChain } from '../../localChains.js'
import type { SandboxContext } from '../contextTypes.js'
import { createBalanceReader } from './holdings.js'
import type { LedgerOrder } from './orderTypes.js'
import { type ResolvedExecution, readExecutions } from './quoteExecutions.js'

// How the maker ledger (makerLedger.ts) keeps up with its chains: one index per chain, read range
// by range from the settlement events, read again from block 0 when the chain went back; and
// concurrent syncs coalesced into one running and at most one queued.

/** What the ledger knows of one chain. */
export type ChainIndex = {
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

/** An empty index per chain, by chain id, each with its own client over `transport`. */
export function chainIndexesOf(
  chains: readonly LocalChain[],
  transport: (chain: LocalChain, signal: AbortSignal) => Transport,
  signal: AbortSignal,
): Map<number, ChainIndex> {
  return new Map(
    chains.map((chain) => {
      // One client per chain: by default the many reads of a sync (blocks, balances) go out as
      // JSON-RPC batches; closing the ledger aborts whatever is in flight.
      const client = createPublicClient({
        chain: sandboxChain(chain.chainId, chain.name, chain.rpcUrl),
        transport: transport(chain, signal),
      }) as PublicClient
      const index: ChainIndex = {
        chain,
        client,
        readBalances: createBalanceReader(client),
        nextBlock: 0n,
        synced: undefined,
        orders: [],
        nonces: new Map(),
      }
      return [chain.chainId, index]
    }),
  )
}

export type SyncSettings = {
  context: () => SandboxContext
  /** Blocks per getLogs call. */
  maxBlockRange: bigint
  /** Aborted when the ledger closes: no further range is read. */
  signal: AbortSignal
}

/** Reads the chain's new settlement events up to its latest block, `maxBlockRange` blocks a call. */
export async function syncChain(index: ChainIndex, settings: SyncSettings): Promise<void> {
  const { client } = index
  const { maxBlockRange } = settings
  const latest = await client.getBlockNumber({ cacheTime: 0 })
  if (index.synced) {
    const known =
      latest >= index.synced.number
        ? await client.getBlock({ blockNumber: index.synced.number }).catch(() => undefined)
        : undefined
    if (known?.hash !== index.synced.hash) resetIndex(index)
  }
  for (let from = index.nextBlock; from <= latest; from += maxBlockRange) {
    if (settings.signal.aborted) return
    const to = from + maxBlockRange - 1n < latest ? from + maxBlockRange - 1n : latest
    const executions = await readExecutions({
      chain: index.chain,
      client,
      context: settings.context(),
      fromBlock: from,
      toBlock: to,
    })
    commitRange(index, executions, to)
  }
  if (index.nextBlock > latest) {
    const head = await client.getBlock({ blockNumber: latest })
    if (head.hash) index.synced = { number: latest, hash: head.hash }
  }
}

/** A range is committed whole, after all its reads succeeded: no fill is lost or counted twice. */
function commitRange(index: ChainIndex, executions: readonly ResolvedExecution[], lastBlock: bigint) {
  for (const execution of executions) {
    const key = execution.maker.toLowerCase()
    const nonce = index.nonces.get(key) ?? 0
    index.nonces.set(key, nonce + 1)
    index.orders.push({ ...execution, nonce })
  }
  index.nextBlock = lastBlock + 1n
}

/** The chain went back (anvil reset or revert): its history is read again from block 0. */
function resetIndex(index: ChainIndex) {
  index.nextBlock = 0n
  index.synced = undefined
  index.orders = []
  index.nonces = new Map()
}

/**
 * Runs `syncAll` for callers that share the work: with none running, a call starts one; while one
 * runs, callers share the one queued after it (so it sees every block mined before their call).
 */
export function createCoalescedSync(syncAll: () => Promise<void>) {
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined

  function start(): Promise<void> {
    const tracked = syncAll().finally(() => {
      if (running === tracked) running = undefined
    })
    running = tracked
    return tracked
  }

  return {
    sync(): Promise<void> {
      if (!running) return start()
      if (!queued) {
        const ignored = () => undefined
        queued = running.then(ignored, ignored).then(() => {
          queued = undefined
          return start()
        })
      }
      return queued
    },
    /** Waits for the running and queued syncs to end, however they end. */
    async settled(): Promise<void> {
      await Promise.allSettled([running, queued])
    },
  }
}
