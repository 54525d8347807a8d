import {
  type Address,
  BaseError,
  type Hex,
  HttpRequestError,
  keccak256,
  parseTransaction,
  TimeoutError,
} from 'viem'
import { estimateFeesPerGas, getTransactionCount, sendRawTransaction } from 'viem/actions'
import type { TransactionKind, TransactionRecord } from '../store/transactions.js'
import type { ChainRuntime } from './chainRuntime.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'

/** A transaction to sign from the chain's wallet. */
export type TransactionRequest = {
  kind: TransactionKind
  to: Address
  data: Hex
  gas: bigint
}

export type SignAndStoreParameters = {
  executionId: number | null
  request: TransactionRequest
  /** Runs inside the same ledger transaction as the stored row (e.g. the execution's move to submitted). */
  alsoInLedger?: ((record: TransactionRecord) => void) | undefined
  /** The live transaction this one replaces (a cancel): same nonce, higher fees, allowed while halted. */
  replaces?: TransactionRecord | undefined
}

/**
 * Signs a transaction and stores it, raw bytes, hash and nonce, BEFORE anything is sent: after a
 * crash the ledger knows it and recovery reconciles it instead of signing again. The nonce comes
 * from the ledger (`reserveNonce`, moved forward by the node's pending count) and is given back
 * when nothing was stored. The kill switch is read right before signing; a halt stops the execution
 * as `rejected`. Nothing is broadcast here.
 *
 * @example
 * const execute = await signAndStore(context, chain, {
 *   executionId, request: { kind: 'execute', to: chain.executorAddress, data, gas },
 *   alsoInLedger: () => ledger.executions.transition(executionId, 'quoted', 'submitted', 'execute signed'),
 * })
 */
export async function signAndStore(
  context: EngineContext,
  chain: ChainRuntime,
  parameters: SignAndStoreParameters,
): Promise<TransactionRecord> {
  const { ledger } = context
  const { executionId, request, alsoInLedger, replaces } = parameters
  const address = chain.account.address
  if (!replaces) {
    const killSwitch = ledger.risk.killSwitch()
    if (killSwitch.halted)
      throw new ExecutionStop(
        'rejected',
        `kill switch: trading is halted (${killSwitch.reason}); nothing was signed. Run stockroute resume to trade again.`,
      )
  }
  const [pending, fees] = await Promise.all([
    replaces ? Promise.resolve(0) : getTransactionCount(chain.publicClient, { address, blockTag: 'pending' }),
    estimateFeesPerGas(chain.publicClient),
  ])
  let { maxFeePerGas, maxPriorityFeePerGas } = fees
  if (replaces) {
    // A replacement must outbid the transaction it replaces (nodes ask for at least +10%).
    const old = parseTransaction(replaces.raw)
    const bump = (value: bigint | undefined) => ((value ?? 0n) * 13n) / 10n + 1n
    maxFeePerGas = max(maxFeePerGas, bump(old.maxFeePerGas))
    maxPriorityFeePerGas = max(maxPriorityFeePerGas, bump(old.maxPriorityFeePerGas))
  }
  const nonce = replaces ? replaces.nonce : ledger.nonces.reserveNonce(chain.chainId, address, pending)
  const giveBack = () => {
    if (!replaces) ledger.nonces.releaseNonce(chain.chainId, address, nonce)
  }
  let raw: Hex
  try {
    raw = await chain.account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      to: request.to,
      data: request.data,
      value: 0n,
      nonce,
      gas: request.gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })
  } catch (error) {
    giveBack()
    throw error
  }
  const hash = keccak256(raw)
  let record: TransactionRecord
  try {
    record = ledger.atomically(() => {
      const stored = ledger.transactions.recordSignedTransaction({
        executionId: executionId ?? undefined,
        chainId: chain.chainId,
        from: address,
        nonce,
        kind: request.kind,
        hash,
        raw,
        replaces: replaces?.hash,
      })
      alsoInLedger?.(stored)
      return stored
    })
  } catch (error) {
    giveBack()
    throw error
  }
  context.logger?.info(
    { chainId: chain.chainId, executionId, txHash: hash, nonce, kind: request.kind },
    `${request.kind} signed and stored`,
  )
  context.hooks.onStep?.({
    step: 'signed',
    executionId,
    chainId: chain.chainId,
    kind: request.kind,
    hash,
    nonce,
  })
  return record
}

/** What became of a broadcast. */
export type BroadcastResult =
  /** The node accepted it (or already had it). */
  | { status: 'broadcast'; atMs: number }
  /** Not sent: dry run. */
  | { status: 'dry-run' }
  /**
   * The node could not be reached or timed out, or says the nonce is already used: the
   * transaction may or may not be on chain. Left `signed`; the receipt and the nonce decide.
   */
  | { status: 'unknown'; error: string; atMs: number }
  /** The node refused it: it will never be mined. Marked failed; its nonce given back if it was the last. */
  | { status: 'refused'; error: string }

/**
 * Sends a stored transaction's raw bytes (the same bytes, so a re-broadcast can never become a
 * second transaction) and records the outcome. Never signs.
 *
 * @example
 * const result = await broadcastTransaction(context, chain, record)
 * if (result.status === 'refused') console.log(result.error)
 */
export async function broadcastTransaction(
  context: EngineContext,
  chain: ChainRuntime,
  record: TransactionRecord,
): Promise<BroadcastResult> {
  if (context.settings.dryRun) return { status: 'dry-run' }
  const { ledger } = context
  const atMs = context.now()
  try {
    await sendRawTransaction(chain.walletClient, { serializedTransaction: record.raw })
  } catch (error) {
    const message = error instanceof BaseError ? error.shortMessage : String(error)
    const details = error instanceof BaseError ? `${message} ${error.details}` : message
    if (!/already known|already imported|known transaction/i.test(details)) {
      // The nonce is used: by this very transaction (mined since), or by another. Not a refusal of
      // this one: the settlement decides from the receipt and the account nonce.
      if (isTransportFailure(error) || /nonce too low/i.test(details)) {
        context.logger?.warn(
          { chainId: chain.chainId, txHash: record.hash, error: message },
          'broadcast outcome unknown',
        )
        return { status: 'unknown', error: message, atMs }
      }
      ledger.transactions.markFailed(chain.chainId, record.hash, message)
      ledger.nonces.releaseNonce(chain.chainId, record.from, record.nonce)
      context.logger?.warn(
        { chainId: chain.chainId, txHash: record.hash, error: message },
        'broadcast refused',
      )
      return { status: 'refused', error: message }
    }
  }
  context.hooks.onStep?.({
    step: 'broadcast',
    executionId: record.executionId,
    chainId: chain.chainId,
    kind: record.kind,
    hash: record.hash,
    nonce: record.nonce,
  })
  ledger.transactions.markBroadcast(chain.chainId, record.hash)
  return { status: 'broadcast', atMs }
}

/** The request never got an answer from the node (connection refused, reset, timed out). */
function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return true
  return Boolean(error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError))
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}
