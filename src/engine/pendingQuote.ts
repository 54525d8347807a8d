import type { ExecutionRecord } from '../store/executions.js'
import { checkRiskLimits } from './checkRiskLimits.js'
import type { EngineContext } from './context.js'
import { entryHaltProblem } from './entryHalts.js'
import { ExecutionStop } from './errors.js'
import type { PendingQuote } from './types.js'

/** How many moves writing `pending` makes (two per quote, dropped ones included). */
export function pendingMoves(pending: PendingQuote | undefined): number {
  return pending ? 2 + pendingMoves(pending.earlier) : 0
}

/**
 * Writes the quote's two moves, after those of the quotes it replaced. Call it inside a ledger transaction (`ledger.atomically`), with what
 * follows it in the same commit. With `checkRisk`, the risk limits are checked first, in the same
 * transaction that counts this execution's notional as in flight (once `quoted`), so executions of
 * other wallets committing meanwhile cannot together overshoot a limit; a breach throws
 * {@link ExecutionStop} `rejected`, which rolls the transaction back.
 *
 * @example
 * ledger.atomically(() => {
 *   const quoted = writePendingQuote(context, pending, { checkRisk: true })
 *   return ledger.executions.transition(quoted.id, quoted, 'submitted', reason)
 * })
 */
export function writePendingQuote(
  context: EngineContext,
  pending: PendingQuote,
  options: { checkRisk: boolean },
): ExecutionRecord {
  const { ledger } = context
  if (options.checkRisk) {
    const problem = riskProblemOf(context, pending)
    if (problem) throw new ExecutionStop('rejected', `risk limit: ${problem}`, { quoted: pending })
  }
  const { id } = pending.from
  const before = pending.earlier
    ? writePendingQuote(context, pending.earlier, { checkRisk: false })
    : pending.from
  const quoting = ledger.executions.transition(id, before, 'quoting', pending.why, {
    atMs: pending.requestedAtMs,
  })
  return ledger.executions.transition(id, quoting, 'quoted', pending.reason, {
    ...pending.patch,
    atMs: pending.receivedAtMs,
  })
}

/**
 * What the risk limits say of the pending quote now, if they refuse it: an entry halt in force (a
 * buy only: sells are exits and still run), then the notional limits.
 */
export function riskProblemOf(context: EngineContext, pending: PendingQuote): string | undefined {
  const halted = entryHaltProblem(context.ledger, pending.chainId, pending.from.side)
  if (halted) return halted
  return checkRiskLimits(
    context.ledger,
    context.settings.risk,
    pending.chainId,
    pending.notional,
    context.now(),
    pending.assetSymbol,
  )
}
