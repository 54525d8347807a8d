import { type Address, type Hex, isAddressEqual } from 'viem'
import { formatAssetAmount, formatStockQuantity } from '../../domain/formatTokenAmount.js'
import { decodeSignedTransaction, dryRunSimulation, type ExecutionOutcome } from '../../engine/index.js'
import type { StoredQuote } from '../../engine/storedQuote.js'

/** What a dry run would have sent: approvals (amount and spender), the execute, the simulation. */
export type DryRunPlan = {
  approvals: {
    token: Address | undefined
    spender: Address
    amount: string
    /** The amount in the token's units, with its symbol or ticker. */
    formatted: string
    hash: Hex
    nonce: number
  }[]
  execute: { hash: Hex; nonce: number; gasLimit: string | undefined } | undefined
  /** What the simulation of the execute said (undefined for ledgers of older versions). */
  simulation: string | undefined
  /** The simulation's gas estimate, before the buffer of the gas limit. */
  gasEstimate: string | undefined
}

/**
 * A dry run's plan, decoded from the transactions it signed (never sent) and its reason.
 *
 * @example
 * dryRunPlanOf(outcome, readStoredQuote(outcome.execution), { symbol: 'USDC', decimals: 6 }).approvals[0]?.formatted // '908.82792 USDC'
 */
export function dryRunPlanOf(
  outcome: ExecutionOutcome,
  quote: StoredQuote | undefined,
  asset: { symbol: string; decimals: number },
): DryRunPlan {
  const decoded = outcome.transactions.map((tx) => decodeSignedTransaction(tx))
  const amountText = (token: Address | undefined, amount: bigint) =>
    quote && token && isAddressEqual(token, quote.stockToken)
      ? formatStockQuantity(amount, quote)
      : formatAssetAmount(amount, asset)
  const execute = decoded.find((tx) => tx.kind === 'execute')
  const simulation = dryRunSimulation(outcome.execution.reason)
  return {
    approvals: decoded.flatMap((tx) =>
      tx.approve
        ? [
            {
              token: tx.to,
              spender: tx.approve.spender,
              amount: tx.approve.amount.toString(),
              formatted: amountText(tx.to, tx.approve.amount),
              hash: tx.hash,
              nonce: tx.nonce,
            },
          ]
        : [],
    ),
    execute: execute
      ? { hash: execute.hash, nonce: execute.nonce, gasLimit: execute.gasLimit?.toString() }
      : undefined,
    simulation: simulation.text,
    gasEstimate: simulation.gasEstimate?.toString(),
  }
}
