import { formatAssetAmount, formatStockQuantity } from '@stockroute/client/domain/formatTokenAmount.js'
import { type Address, type Hex, isAddressEqual } from 'viem'
import { dryRunSimulation } from '../../engine/index.js'
import type { SwapOutcome } from './swapOutcome.js'

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
 * A dry run's plan, from the calls of the transactions it signed (never sent) and its reason.
 *
 * @example
 * dryRunPlanOf(swapOutcomeOf(outcome), { symbol: 'USDC', decimals: 6 }).approvals[0]?.formatted // '908.82792 USDC'
 */
export function dryRunPlanOf(
  outcome: Pick<SwapOutcome, 'execution' | 'quote' | 'transactions'>,
  asset: { symbol: string; decimals: number },
): DryRunPlan {
  const { quote, transactions } = outcome
  const amountText = (token: Address | undefined, amount: bigint) =>
    quote && token && isAddressEqual(token, quote.stockToken)
      ? formatStockQuantity(amount, quote)
      : formatAssetAmount(amount, asset)
  const execute = transactions.find((tx) => tx.kind === 'execute')
  const simulation = dryRunSimulation(outcome.execution.reason)
  return {
    approvals: transactions.flatMap((tx) =>
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
