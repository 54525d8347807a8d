import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { differingIntentFields, type IntentTrade } from '../engine/index.js'
import type { ExecutionRecord } from '../store/index.js'
import { intentIdReusedCode } from './tradeOptions.js'

/**
 * `--intent-id` names an execution of another trade: nothing is executed, and the command exits 1.
 * The same id with the same trade is a replay instead (its execution is shown, `replay: true`).
 */
export class IntentIdReusedError extends StockrouteError {
  override name = 'IntentIdReusedError'
  override readonly code = intentIdReusedCode
  constructor(parameters: {
    intentId: string
    execution: ExecutionRecord
    differing: readonly { field: string; problem: string }[]
  }) {
    const { intentId, execution, differing } = parameters
    super({
      code: intentIdReusedCode,
      shortMessage: `intent id ${JSON.stringify(intentId)} was already used for execution ${execution.id} (${execution.state}) with other values of ${differing.map(({ field, problem }) => `${field} (${problem})`).join(', ')}; nothing was executed.`,
      remedy:
        'use a new --intent-id for a new trade, or repeat the original trade unchanged to see its execution',
      details: { intentId, executionId: execution.id, differing },
    })
  }
}

/**
 * Refuses a trade whose intent id already names an execution of a different trade, with the
 * comparison the control API answers 409 with; returns normally for the same trade (a replay).
 *
 * @example
 * assertSameTrade('buy-aapl-1', trade, earlier) // throws IntentIdReusedError when e.g. amountIn differs
 */
export function assertSameTrade(intentId: string, trade: IntentTrade, execution: ExecutionRecord): void {
  const differing = differingIntentFields(trade, execution)
  if (differing.length > 0) throw new IntentIdReusedError({ intentId, execution, differing })
}
