import { isAddressEqual, TransactionReceiptNotFoundError } from 'viem'
import { getBlock, getBlockNumber, getTransactionCount, getTransactionReceipt } from 'viem/actions'
import { readSettlementLogs } from '../chain/settlementEvents.js'
import type { ExecutionState } from '../store/executions.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { ChainRuntime } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { runExecution } from './runExecution.js'
import { broadcastTransaction } from './sendTransaction.js'
import { settleExecution } from './settleExecution.js'
import { fillOf, readStoredQuote } from './storedQuote.js'

/** What recovery found and did. */
export type RecoveryReport = {
  /** Each execution that was unfinished at start, and where it ended. */
  executions: {
    executionId: number
    intentId: string
    chainId: number
    from: ExecutionState
    to: ExecutionState
    reason: string
  }[]
  /** Transactions still pending in the ledger, reconciled with the chain. */
  transactions: {
    chainId: number
    hash: `0x${string}`
    kind: string
    outcome: 'mined' | 'failed' | 'rebroadcast' | 'left to settlement'
  }[]
  /** Fills found in settlement logs since the last checkpoint that the ledger did not have. */
  fillsRecorded: number
  /** Fills of this wallet in those logs whose quote no execution of this ledger holds (another program?). */
  unattributedFills: number
}

/**
 * Crash recovery, run at start before any new intent: everything unfinished is reconciled against
 * the chain, and nothing is ever signed twice. Per chain:
 * 1. pending transactions outside a submitted execution (approvals): mined → recorded; nonce used
 *    by something else → failed; neither → the same stored bytes are broadcast again, so the
 *    nonce sequence has no hole;
 * 2. settlement logs since the checkpoint: every `QuoteExecuted` of this wallet is recorded as a
 *    fill (idempotent), then the checkpoint moves to the head;
 * 3. unfinished executions: a submitted one is settled from its stored execute (receipt by hash,
 *    account nonce; re-broadcast of the same bytes only while the quote keeps the validity
 *    required, else cancelled by replacement once expired); one that never signed its execute is
 *    resumed with a fresh quote.
 *
 * @example
 * const report = await recoverExecutions(context, chains)
 * report.executions.map((e) => `${e.executionId}: ${e.from} → ${e.to}`)
 */
export async function recoverExecutions(
  context: EngineContext,
  chains: ReadonlyMap<number, ChainRuntime>,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<RecoveryReport> {
  const report: RecoveryReport = { executions: [], transactions: [], fillsRecorded: 0, unattributedFills: 0 }
  await Promise.all(
    [...chains.values()].map(async (chain) => {
      await reconcilePendingTransactions(context, chain, report)
      await recordFillsSinceCheckpoint(context, chain, report)
      const unfinished = context.ledger.executions.listUnfinishedExecutions({ chainId: chain.chainId })
      await Promise.all(
        unfinished.map(async (execution) => {
          const done =
            execution.state === 'submitted'
              ? await settleExecution(context, chain, {
                  execution,
                  rebroadcast: true,
                  signal: options.signal,
                })
              : await runExecution(context, chain, execution, options)
          report.executions.push({
            executionId: execution.id,
            intentId: execution.intentId,
            chainId: execution.chainId,
            from: execution.state,
            to: done.state,
            reason: done.reason,
          })
        }),
      )
    }),
  )
  return report
}

async function reconcilePendingTransactions(
  context: EngineContext,
  chain: ChainRuntime,
  report: RecoveryReport,
) {
  const { ledger } = context
  const pending = ledger.transactions.listPendingTransactions(chain.chainId)
  if (pending.length === 0) return
  const minedNonce = await getTransactionCount(chain.publicClient, {
    address: chain.account.address,
    blockTag: 'latest',
  })
  for (const tx of pending) {
    const owner = tx.executionId === null ? undefined : ledger.executions.getExecution(tx.executionId)
    if (owner?.state === 'submitted') {
      report.transactions.push({
        chainId: chain.chainId,
        hash: tx.hash,
        kind: tx.kind,
        outcome: 'left to settlement',
      })
      continue
    }
    report.transactions.push({
      chainId: chain.chainId,
      hash: tx.hash,
      kind: tx.kind,
      outcome: await reconcileOne(context, chain, tx, minedNonce),
    })
  }
}

async function reconcileOne(
  context: EngineContext,
  chain: ChainRuntime,
  tx: TransactionRecord,
  minedNonce: number,
): Promise<'mined' | 'failed' | 'rebroadcast'> {
  try {
    const receipt = await getTransactionReceipt(chain.publicClient, { hash: tx.hash })
    context.ledger.transactions.markMined(chain.chainId, tx.hash, {
      blockNumber: receipt.blockNumber,
      status: receipt.status,
    })
    return 'mined'
  } catch (error) {
    if (!(error instanceof TransactionReceiptNotFoundError)) throw error
  }
  if (minedNonce > tx.nonce) {
    context.ledger.transactions.markFailed(
      chain.chainId,
      tx.hash,
      'nonce used by another transaction (found at recovery)',
    )
    return 'failed'
  }
  // An approval or a leftover of a stopped execution: landing is harmless, a hole in the nonces is not.
  await broadcastTransaction(context, chain, tx)
  return 'rebroadcast'
}

/**
 * Records every settlement of this wallet in the executor's logs since the chain's checkpoint as
 * a fill of the execution holding its quote (idempotent: a fill already recorded changes nothing),
 * counts settlements no execution holds, and moves the checkpoint to the head. The first call on a
 * chain only sets the checkpoint. Recovery runs it at start; the daemon runs it periodically, so
 * the range read at the next start stays short.
 *
 * @example
 * const counts = { fillsRecorded: 0, unattributedFills: 0 }
 * await recordFillsSinceCheckpoint(context, chain, counts)
 */
export async function recordFillsSinceCheckpoint(
  context: EngineContext,
  chain: ChainRuntime,
  report: Pick<RecoveryReport, 'fillsRecorded' | 'unattributedFills'>,
) {
  const { ledger } = context
  const head = await getBlockNumber(chain.publicClient, { cacheTime: 0 })
  const checkpoint = ledger.checkpoints.getCheckpoint(chain.chainId)
  // First start on this chain: nothing before now was traded by this ledger.
  if (checkpoint === undefined || checkpoint >= head) {
    ledger.checkpoints.advanceCheckpoint(chain.chainId, head)
    return
  }
  const logs = await readSettlementLogs(chain.publicClient, {
    executors: [chain.executorAddress],
    fromBlock: checkpoint + 1n,
    toBlock: head,
  })
  const ours = logs.filter((fill) => isAddressEqual(fill.taker, chain.account.address))
  const blockTimes = new Map<bigint, bigint>()
  for (const fill of ours) {
    const execution = ledger.executions.getExecutionByQuoteId(fill.quoteId)
    const quote = execution ? readStoredQuote(execution) : undefined
    if (!execution || !quote || quote.quoteId !== fill.quoteId) {
      report.unattributedFills += 1
      context.logger?.warn(
        { chainId: chain.chainId, txHash: fill.txHash, quoteId: fill.quoteId },
        'a settlement of this wallet that no execution of this ledger holds: another program may trade from it',
      )
      continue
    }
    let blockTime = blockTimes.get(fill.blockNumber)
    if (blockTime === undefined) {
      blockTime = (await getBlock(chain.publicClient, { blockNumber: fill.blockNumber })).timestamp
      blockTimes.set(fill.blockNumber, blockTime)
    }
    const result = ledger.fills.recordFill(fillOf(fill, execution, quote, blockTime))
    if (result.status === 'recorded') report.fillsRecorded += 1
  }
  ledger.checkpoints.advanceCheckpoint(chain.chainId, head)
}
