import type { Address } from 'viem'
import { canonicalAddress, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'
import { TransactionRecordError } from './transactionRecord.js'

/** The newest lease that took a wallet over on this ledger (cluster mode, docs/scale-out.md). */
export type WalletFence = {
  chainId: number
  wallet: Address
  /** The lease's fencing token: transactions signed under an older one are refused. */
  token: number
  /** The daemon that holds (or last held) the lease. */
  nodeId: string
  sinceMs: number
}

/**
 * Cluster mode's fences: per (chain, wallet), the fencing token of the newest lease under which a
 * daemon drives the wallet on this ledger. A daemon raises the fence when it takes a lease, before it
 * signs anything; the transactions repository refuses a transaction signed under an older token
 * (`STALE_FENCING_TOKEN`), in the transaction that would store it.
 */
export type WalletFencesRepository = {
  /**
   * The wallet's fence, if a cluster daemon ever drove it on this ledger.
   *
   * @example
   * ledger.walletFences.current(31337, address)?.token // 7
   */
  current(chainId: number, wallet: Address): WalletFence | undefined
  /** Every fence, by chain and wallet. */
  list(): WalletFence[]
  /**
   * Raises the wallet's fence to `token`, held by `nodeId`, in one ledger transaction. Throws
   * `STALE_FENCING_TOKEN` when the fence already holds a newer token (another daemon took the wallet
   * over since), and when `previous` is given and the fence is at neither `previous` nor `token`
   * (another daemon drove the wallet in between: what this daemon holds in memory is stale).
   *
   * @example
   * ledger.walletFences.raise({ chainId: 31337, wallet: address, token: 8, nodeId: 'node-a', previous: 7 })
   */
  raise(fence: {
    chainId: number
    wallet: Address
    token: number
    nodeId: string
    previous?: number | undefined
  }): WalletFence
}

type FenceRow = { chain_id: number; wallet: string; token: number; node_id: string; since_ms: number }

const fenceOf = (row: FenceRow): WalletFence => ({
  chainId: row.chain_id,
  wallet: row.wallet as Address,
  token: row.token,
  nodeId: row.node_id,
  sinceMs: row.since_ms,
})

/** @example const fences = createWalletFencesRepository({ db, now: Date.now }) */
export function createWalletFencesRepository({ db, now }: RepositoryContext): WalletFencesRepository {
  const select = db.prepare<[number, string], FenceRow>(
    'SELECT * FROM wallet_fences WHERE chain_id = ? AND wallet = ?',
  )
  const selectAll = db.prepare<[], FenceRow>('SELECT * FROM wallet_fences ORDER BY chain_id, wallet')
  const upsert = db.prepare<[number, string, number, string, number]>(
    `INSERT INTO wallet_fences (chain_id, wallet, token, node_id, since_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (chain_id, wallet) DO UPDATE SET token = excluded.token, node_id = excluded.node_id,
       since_ms = excluded.since_ms`,
  )
  const raise = db.transaction(
    (chainId: number, wallet: Address, token: number, nodeId: string, previous?: number) => {
      const row = select.get(chainId, wallet)
      const moved =
        row !== undefined && previous !== undefined && row.token !== previous && row.token !== token
      if (row && (row.token > token || moved))
        throw new TransactionRecordError({
          code: 'STALE_FENCING_TOKEN',
          shortMessage: `Wallet ${wallet} on chain ${chainId} was driven under fencing token ${row.token} by ${row.node_id} since this daemon's token ${previous ?? token}: it does not take the wallet back.`,
          remedy:
            'Restart the daemon: it recovers the wallet from the ledger and the chain once it holds the lease again.',
          details: {
            chainId,
            wallet,
            token,
            previous: previous ?? null,
            fenceToken: row.token,
            fenceNode: row.node_id,
          },
        })
      if (row?.token === token && row.node_id === nodeId) return fenceOf(row)
      const sinceMs = now()
      upsert.run(chainId, wallet, token, nodeId, sinceMs)
      return { chainId, wallet, token, nodeId, sinceMs }
    },
  )
  return {
    current(chainId, wallet) {
      const row = select.get(safeInteger(chainId, 'chainId', 1), canonicalAddress(wallet, 'wallet'))
      return row ? fenceOf(row) : undefined
    },
    list: () => selectAll.all().map(fenceOf),
    raise(fence) {
      const chainId = safeInteger(fence.chainId, 'chainId', 1)
      const wallet = canonicalAddress(fence.wallet, 'wallet')
      const token = safeInteger(fence.token, 'token', 1)
      return raise.immediate(chainId, wallet, token, fence.nodeId, fence.previous)
    },
  }
}
