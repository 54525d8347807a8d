import { type Address, decodeFunctionData, erc20Abi, type Hex, parseTransaction } from 'viem'
import type { ExecutionRecord } from '../store/executions.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'

// How a dry run is recorded, and read back. A dry run signs and stores what it would send and
// never broadcasts it. The ledger has no state for that, so it ends `rejected` (terminal, nothing
// on chain) with a reason that starts `dry run: not broadcast` and names what would have been
// sent; its transactions are marked failed by the transaction manager ("dry run: never
// broadcast"), which frees their nonces. Callers show it as a dry run, never as a failure
// ({@link isDryRunEnd}).

/** The start of the reason of an execution that a dry run ended. */
export const dryRunReasonPrefix = 'dry run: not broadcast'

const simulationMarker = '; simulation: '

/** A signed transaction, decoded: where it goes, its gas limit, and an approval's spender and amount. */
export type DecodedSignedTransaction = {
  kind: string
  hash: Hex
  nonce: number
  /** The token (approve) or the executor (execute). */
  to: Address | undefined
  gasLimit: bigint | undefined
  approve?: { spender: Address; amount: bigint } | undefined
}

/**
 * Decodes a stored signed transaction from its raw bytes.
 *
 * @example
 * decodeSignedTransaction(record).approve // { spender: '0x…', amount: 912631720n }
 */
export function decodeSignedTransaction(record: {
  kind: string
  hash: Hex
  nonce: number
  raw: Hex
}): DecodedSignedTransaction {
  const parsed = parseTransaction(record.raw)
  const decoded = { kind: record.kind, hash: record.hash, nonce: record.nonce, to: parsed.to ?? undefined }
  const gasLimit = parsed.gas
  if (record.kind !== 'approve' || !parsed.data) return { ...decoded, gasLimit }
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data: parsed.data })
    if (call.functionName !== 'approve') return { ...decoded, gasLimit }
    const [spender, amount] = call.args
    return { ...decoded, gasLimit, approve: { spender, amount } }
  } catch {
    return { ...decoded, gasLimit }
  }
}

/**
 * The reason a dry run ends with: what would have been sent (approvals with amount and spender,
 * the execute with its gas limit) and what the simulation said.
 *
 * @example
 * dryRunReason({ records, simulation: 'simulated with the allowance of its approval (912.63172 USDC), gas 135339', given })
 * // 'dry run: not broadcast; would send approve 912.63172 USDC to the executor 0x… (tx 0x…, nonce 0), then execute 0x… (nonce 1, gas limit 162406); simulation: simulated …'
 */
export function dryRunReason(parameters: {
  records: readonly { kind: string; hash: Hex; nonce: number; raw: Hex }[]
  simulation: string
  /** An amount of the token the trade gives, as a person reads it. */
  given: (amount: bigint) => string
}): string {
  const parts = parameters.records.map((record) => {
    const decoded = decodeSignedTransaction(record)
    if (decoded.approve)
      return `approve ${parameters.given(decoded.approve.amount)} to the executor ${decoded.approve.spender} (tx ${record.hash}, nonce ${record.nonce})`
    return `${record.kind} ${record.hash} (nonce ${record.nonce}${decoded.gasLimit === undefined ? '' : `, gas limit ${decoded.gasLimit}`})`
  })
  return `${dryRunReasonPrefix}; would send ${parts.join(', then ')}${simulationMarker}${parameters.simulation}`
}

/**
 * Whether a dry run ended this execution (signed, simulated, nothing sent), rather than a refusal.
 * Reasons of older ledgers (`dry run: … signed … and not broadcast`) count too.
 *
 * @example
 * isDryRunEnd(outcome.execution) // true
 */
export function isDryRunEnd(execution: Pick<ExecutionRecord, 'state' | 'reason'>): boolean {
  return execution.state === 'rejected' && execution.reason.startsWith('dry run:')
}

/**
 * What a dry run's reason says of its simulation, with the gas estimate when there is one.
 *
 * @example
 * dryRunSimulation(execution.reason) // { text: 'simulated with …, gas 135339', gasEstimate: 135339n }
 */
export function dryRunSimulation(reason: string): {
  text: string | undefined
  gasEstimate: bigint | undefined
} {
  const at = reason.indexOf(simulationMarker)
  // Older reasons put the simulation in parentheses; their text is left to the reason.
  if (at < 0) return { text: undefined, gasEstimate: undefined }
  const text = reason.slice(at + simulationMarker.length)
  const gas = /\bgas (\d+)$/.exec(text)?.[1]
  return { text, gasEstimate: gas === undefined ? undefined : BigInt(gas) }
}

/**
 * The transactions a dry run signed, in nonce order. The ledger keys transactions by hash, so a
 * dry run repeated unchanged (same nonce, amounts, fees) signs the very transaction an earlier one
 * stored; that record stays with the earlier execution and is found here by the hash the reason names.
 *
 * @example
 * dryRunTransactionsOf(ledger, execution, ledger.transactions.listTransactionsForExecution(execution.id))
 */
export function dryRunTransactionsOf(
  ledger: Pick<Ledger, 'transactions'>,
  execution: ExecutionRecord,
  listed: readonly TransactionRecord[],
): TransactionRecord[] {
  if (!isDryRunEnd(execution)) return [...listed]
  const known = new Set(listed.map((tx) => tx.hash))
  const hashes = new Set(
    (execution.reason.match(/0x[0-9a-fA-F]{64}\b/g) ?? []).map((hash) => hash.toLowerCase() as Hex),
  )
  const named = [...hashes]
    .filter((hash) => !known.has(hash))
    .flatMap((hash) => {
      const record = ledger.transactions.getTransaction(execution.chainId, hash)
      return record ? [record] : []
    })
  return [...listed, ...named].sort((a, b) => a.nonce - b.nonce || a.id - b.id)
}
