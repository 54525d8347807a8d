import {
  BaseError,
  type Hex,
  isAddressEqual,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem'
import { getBlock, getTransactionCount, getTransactionReceipt } from 'viem/actions'
import { observeInclusion } from '../chain/inclusionTime.js'
import { fillsFromReceipt } from '../chain/settlementEvents.js'
import type { ExecutionRecord } from '../store/executions.js'
import type { TransactionRecord } from '../store/transactions.js'
import { type ChainRuntime, minimumValidity } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { announceTransition } from './moveExecution.js'
import { broadcastTransaction, signAndStore } from './sendTransaction.js'
import { fillOf, readStoredQuote, type StoredQuote } from './storedQuote.js'

export type SettleExecutionParameters = {
  execution: ExecutionRecord
  /** When the execute was broadcast (Unix ms), to measure the chain's inclusion time; absent after a restart. */
  broadcastAtMs?: number | undefined
  /** Re-send the stored execute (same bytes) while it is unconfirmed and the quote still has the validity required. */
  rebroadcast?: boolean | undefined
  signal?: AbortSignal | undefined
}

/**
 * Follows a submitted execution to its end on chain. It polls the receipts of its execute (and of
 * a cancel, once one exists). When the quote's expiry has passed (plus `cancelGraceMs`) and the
 * execute is still unmined, it is cancelled by replacement: a 0-value transfer to self with the
 * same nonce and higher fees, so that it can no longer land. With a receipt in hand it records, in
 * one ledger transaction, the transaction as mined, the fill decoded from `QuoteExecuted`, and the
 * execution's end: `confirmed`, `failed` (reverted) or `expired` (reverted after expiry, or
 * cancelled). A nonce taken by a transaction the ledger does not know also ends it, as `failed`.
 *
 * @example
 * const done = await settleExecution(context, chain, { execution, broadcastAtMs })
 * done.state // 'confirmed'
 */
export async function settleExecution(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: SettleExecutionParameters,
): Promise<ExecutionRecord> {
  const { settings } = context
  const { execution, broadcastAtMs, rebroadcast = false, signal } = parameters
  const quote = readStoredQuote(execution)
  if (!quote)
    throw new Error(`execution ${execution.id} is submitted without a quote: the ledger is inconsistent`)
  const cancelAfterMs = quote.expiresAt * 1000 + settings.cancelGraceMs
  const poll = async (): Promise<ExecutionRecord | undefined> => {
    const live = liveTransactions(context, execution.id)
    if (!live.execute)
      throw new Error(`execution ${execution.id} is submitted without an execute transaction`)
    const found = await firstReceipt(chain, [live.execute, ...live.cancels])
    if (found) return finalize(context, chain, { execution, quote, ...found, broadcastAtMs })
    const minedNonce = await getTransactionCount(chain.publicClient, {
      address: chain.account.address,
      blockTag: 'latest',
    })
    if (minedNonce > live.execute.nonce) {
      // Mined meanwhile, but maybe not yet visible to the receipt lookup: ask once more before concluding.
      const again = await firstReceipt(chain, [live.execute, ...live.cancels])
      if (again) return finalize(context, chain, { execution, quote, ...again, broadcastAtMs })
      return stranger(context, execution, live.execute)
    }
    const nowMs = context.now()
    if (nowMs > cancelAfterMs && live.cancels.length === 0) {
      await cancelByReplacement(context, chain, live.execute)
    } else if (rebroadcast && live.execute.status === 'signed') {
      const required = minimumValidity(context, chain, nowMs)
      if (quote.expiresAt * 1000 - nowMs >= required) await broadcastTransaction(context, chain, live.execute)
    }
    return undefined
  }
  for (;;) {
    signal?.throwIfAborted()
    try {
      const done = await poll()
      if (done) return done
    } catch (error) {
      // Only the chain ends a submitted execution: an unreachable node is waited out, not a verdict.
      if (!(error instanceof BaseError)) throw error
      context.logger?.warn(
        { chainId: chain.chainId, executionId: execution.id, error: error.shortMessage },
        'settlement poll failed; retrying',
      )
    }
    await sleep(settings.receiptPollMs, signal)
  }
}

function liveTransactions(context: EngineContext, executionId: number) {
  const all = context.ledger.transactions.listTransactionsForExecution(executionId)
  const isLive = (tx: TransactionRecord) => tx.status !== 'failed'
  return {
    execute: all.filter((tx) => tx.kind === 'execute' && isLive(tx)).at(-1),
    cancels: all.filter((tx) => tx.kind === 'cancel' && isLive(tx)),
    approvals: all.filter(
      (tx) => tx.kind === 'approve' && (tx.status === 'signed' || tx.status === 'broadcast'),
    ),
  }
}

async function firstReceipt(
  chain: ChainRuntime,
  transactions: readonly TransactionRecord[],
): Promise<{ tx: TransactionRecord; receipt: TransactionReceipt } | undefined> {
  for (const tx of transactions) {
    const receipt = await receiptOf(chain, tx.hash)
    if (receipt) return { tx, receipt }
  }
  return undefined
}

async function receiptOf(chain: ChainRuntime, hash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await getTransactionReceipt(chain.publicClient, { hash })
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined
    throw error
  }
}

async function cancelByReplacement(context: EngineContext, chain: ChainRuntime, execute: TransactionRecord) {
  const cancel = await signAndStore(context, chain, {
    executionId: execute.executionId,
    request: { kind: 'cancel', to: chain.account.address, data: '0x', gas: 21_000n },
    replaces: execute,
  })
  context.logger?.warn(
    {
      chainId: chain.chainId,
      executionId: execute.executionId,
      txHash: execute.hash,
      cancelHash: cancel.hash,
    },
    'execute still unmined after its quote expired: cancelled by replacement',
  )
  await broadcastTransaction(context, chain, cancel)
}

async function finalize(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: {
    execution: ExecutionRecord
    quote: StoredQuote
    tx: TransactionRecord
    receipt: TransactionReceipt
    broadcastAtMs: number | undefined
  },
): Promise<ExecutionRecord> {
  const { ledger } = context
  const { execution, quote, tx, receipt, broadcastAtMs } = parameters
  const seenAtMs = context.now()
  context.hooks.onStep?.({
    step: 'receipt',
    executionId: execution.id,
    chainId: chain.chainId,
    kind: tx.kind,
    hash: tx.hash,
    nonce: tx.nonce,
  })
  const block = await getBlock(chain.publicClient, { blockNumber: receipt.blockNumber })
  // Approvals go before the execute in nonce order: mined too if the execute is.
  const approvalReceipts = await Promise.all(
    liveTransactions(context, execution.id).approvals.map(async (approval) => ({
      approval,
      receipt: await receiptOf(chain, approval.hash),
    })),
  )
  const fills =
    tx.kind === 'execute'
      ? fillsFromReceipt(receipt, { chainId: chain.chainId, executors: [chain.executorAddress] }).filter(
          (fill) => fill.quoteId === quote.quoteId && isAddressEqual(fill.taker, chain.account.address),
        )
      : []
  const expiredOnChain = block.timestamp > BigInt(quote.expiresAt)
  const [to, reason] =
    tx.kind === 'cancel'
      ? ([
          'expired',
          `execute cancelled by replacement ${tx.hash} in block ${receipt.blockNumber}: it was not mined before the quote expired`,
        ] as const)
      : receipt.status === 'reverted'
        ? expiredOnChain
          ? ([
              'expired',
              `execute ${tx.hash} reverted in block ${receipt.blockNumber}, mined after the quote expired`,
            ] as const)
          : (['failed', `execute ${tx.hash} reverted in block ${receipt.blockNumber}`] as const)
        : fills.length > 0
          ? (['confirmed', `settled in block ${receipt.blockNumber} by ${tx.hash}`] as const)
          : ([
              'failed',
              `execute ${tx.hash} succeeded in block ${receipt.blockNumber} but emitted no QuoteExecuted for quote ${quote.quoteId}`,
            ] as const)
  const settled = ledger.atomically(() => {
    for (const { approval, receipt: approvalReceipt } of approvalReceipts)
      if (approvalReceipt)
        ledger.transactions.markMined(chain.chainId, approval.hash, {
          blockNumber: approvalReceipt.blockNumber,
          status: approvalReceipt.status,
        })
    ledger.transactions.markMined(chain.chainId, tx.hash, {
      blockNumber: receipt.blockNumber,
      status: receipt.status,
    })
    for (const fill of fills) ledger.fills.recordFill(fillOf(fill, execution, quote, block.timestamp))
    return ledger.executions.transition(execution.id, 'submitted', to, reason)
  })
  if (broadcastAtMs !== undefined)
    chain.inclusion = observeInclusion(chain.inclusion, { broadcastAt: broadcastAtMs, includedAt: seenAtMs })
  announceTransition(context, settled)
  return settled
}

function stranger(
  context: EngineContext,
  execution: ExecutionRecord,
  execute: TransactionRecord,
): ExecutionRecord {
  const reason = `nonce ${execute.nonce} was used by a transaction this ledger does not know, so execute ${execute.hash} can never be mined: check for another program sending from this wallet`
  const { ledger } = context
  const settled = ledger.atomically(() => {
    ledger.transactions.markFailed(execute.chainId, execute.hash, 'nonce used by another transaction')
    return ledger.executions.transition(execution.id, 'submitted', 'failed', reason)
  })
  announceTransition(context, settled)
  return settled
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    function abort() {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
  })
}
