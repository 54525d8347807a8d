import { blockNumberToInteger, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'

/** Per chain, the last block whose settlement logs were reconciled into fills. */
export type CheckpointsRepository = {
  /**
   * The last reconciled block of a chain, if any.
   *
   * @example
   * const from = (ledger.checkpoints.getCheckpoint(31337) ?? deployBlock - 1n) + 1n
   */
  getCheckpoint(chainId: number): bigint | undefined
  /**
   * Moves the checkpoint forward to `blockNumber`; a lower block leaves it where it is. Returns
   * the checkpoint after the call. Record the fills of the range first, then advance.
   *
   * @example
   * for (const log of logs) ledger.fills.recordFill(fillOf(log))
   * ledger.checkpoints.advanceCheckpoint(31337, toBlock)
   */
  advanceCheckpoint(chainId: number, blockNumber: bigint): bigint
  /**
   * Sets the checkpoint back (after a reorg, or to re-scan a range: fills are idempotent).
   *
   * @example
   * ledger.checkpoints.rewindCheckpoint(31337, forkBlock - 1n)
   */
  rewindCheckpoint(chainId: number, blockNumber: bigint): bigint
}

/** Builds the checkpoints repository over an open database (see `openLedger`). */
export function createCheckpointsRepository({ db, now }: RepositoryContext): CheckpointsRepository {
  const select = db.prepare<[number], { block_number: number }>(
    'SELECT block_number FROM checkpoints WHERE chain_id = ?',
  )
  const advance = db.prepare<[number, number, number]>(
    `INSERT INTO checkpoints (chain_id, block_number, updated_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (chain_id) DO UPDATE SET block_number = excluded.block_number, updated_at_ms = excluded.updated_at_ms
     WHERE excluded.block_number > checkpoints.block_number`,
  )
  const rewind = db.prepare<[number, number, number]>(
    `INSERT INTO checkpoints (chain_id, block_number, updated_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (chain_id) DO UPDATE SET block_number = min(excluded.block_number, checkpoints.block_number),
       updated_at_ms = excluded.updated_at_ms`,
  )
  const get = (chainId: number): bigint | undefined => {
    const row = select.get(chainId)
    return row ? BigInt(row.block_number) : undefined
  }
  return {
    getCheckpoint: (chainId) => get(safeInteger(chainId, 'chainId', 1)),
    advanceCheckpoint(chainId, blockNumber) {
      const chain = safeInteger(chainId, 'chainId', 1)
      advance.run(chain, blockNumberToInteger(blockNumber, 'blockNumber'), now())
      return get(chain) as bigint
    },
    rewindCheckpoint(chainId, blockNumber) {
      const chain = safeInteger(chainId, 'chainId', 1)
      rewind.run(chain, blockNumberToInteger(blockNumber, 'blockNumber'), now())
      return get(chain) as bigint
    },
  }
}
