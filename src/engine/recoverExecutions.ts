import { getBlock, getBlockNumber } from 'viem/actions'
import { readSettlementLogs } from '../chain/settlementEvents.js'
import { type ExecutionState, isTerminalExecutionState } from '../store/executions.js'
import { awaitSettlement } from './awaitSettlement.js'
import { findWallet } from './chainWallet.js'
import type { EngineContext } from './context.js'
import { runExecution } from './runExecution.js'
import { revokeLeftOpenAllowances } from './settlement.js'
import { fillOf, readStoredQuote } from './storedQuote.js'
import type { ChainRuntime } from './types.js'

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
  /** Fills found in settlement logs since the last checkpoint that the ledger did not have. */
  fillsRecorded: number
  /** Fills of this wallet in those logs whose quote no execution of this ledger holds (another program?). */
  unattributedFills: number
}

/**
 * Crash recovery, chain by chain and concurrently, so one slow or unreachable chain never holds
 * up the others: each chain's transaction manager first makes its wallet's nonces sound (see
 * `recoverWallet`: every stored transaction resolved against the chain, re-sent, cancelled or
 * classified, gaps filled), then the settlement logs since the checkpoint are recorded as fills,
 * then each unfinished execution goes on: a submitted one waits for the manager to settle its
 * execute, one that never signed its execute is resumed with a fresh quote. Nothing is ever
 * signed twice. New intents may be submitted meanwhile: they wait for their wallet to be ready.
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
  const report: RecoveryReport = { executions: [], fillsRecorded: 0, unattributedFills: 0 }
  await Promise.all(
    [...chains.values()].map(async (chain) => {
      // Read before the wallet's recovery, which may itself settle a submitted execution.
      const unfinished = context.ledger.executions.listUnfinishedExecutions({ chainId: chain.chainId })
      await Promise.all(chain.wallets.map((wallet) => wallet.transactions.ready(options.signal)))
      await recordFillsSinceCheckpoint(context, chain, report)
      await revokeLeftOpenAllowances(context, chain)
      await Promise.all(
        unfinished.map(async (found) => {
          const execution = context.ledger.executions.getExecution(found.id) ?? found
          const done = isTerminalExecutionState(execution.state)
            ? execution
            : execution.state === 'submitted'
              ? await awaitSettlement(context, execution, options.signal)
              : await runExecution(context, chain, execution, options)
          report.executions.push({
            executionId: found.id,
            intentId: found.intentId,
            chainId: found.chainId,
            from: found.state,
            to: done.state,
            reason: done.reason,
          })
        }),
      )
    }),
  )
  return report
}

/**
 * Records every settlement of this wallet in the executor's logs since the chain's checkpoint, up
 * to the last final block (head minus the chain's confirmations), as a fill of the execution
 * holding its quote (idempotent: a fill already recorded changes nothing; one that a reorg moved
 * to another block is moved), counts settlements no execution holds, and moves the checkpoint
 * there: the checkpoint only ever covers final blocks. The first call on a chain only sets it.
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
  const depth = BigInt(chain.transactionSettings.confirmations)
  const final = head > depth ? head - depth : 0n
  const checkpoint = ledger.checkpoints.getCheckpoint(chain.chainId)
  // First start on this chain: nothing before now was traded by this ledger.
  if (checkpoint === undefined) {
    ledger.checkpoints.advanceCheckpoint(chain.chainId, final)
    return
  }
  if (checkpoint >= final) return
  const logs = await readSettlementLogs(chain.publicClient, {
    executors: [chain.executorAddress],
    fromBlock: checkpoint + 1n,
    toBlock: final,
  })
  const ours = logs.filter((fill) => findWallet(chain, fill.taker) !== undefined)
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
    if (result.status !== 'duplicate') report.fillsRecorded += 1
  }
  ledger.checkpoints.advanceCheckpoint(chain.chainId, final)
}
