import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { type Notional, notionalDecimals } from '../store/risk.js'
import type { RiskLimits } from './settings.js'
import type { ExecutionStore } from './types.js'

/**
 * The first risk limit a trade of `trade` notional on `chainId` would break, as a sentence, or
 * undefined when it fits: per trade, per UTC day on all chains, per UTC day on the chain. Daily
 * totals are fills since midnight plus what other executions have in flight (quoted, approving,
 * submitted), so concurrent executions cannot overshoot together. Call it inside the ledger
 * transaction that marks this execution quoted, so that the check and the commitment are atomic.
 *
 * @example
 * const problem = checkRiskLimits(ledger, { maxTradeNotional: parseUnits('5000', 18) as Notional }, 31337, trade, Date.now(), 'USDC')
 * // "the trade's notional 5200 USDC exceeds maxTradeNotional 5000 USDC"
 *
 * Notional is the asset at par (USD stablecoins): one trade and one chain read in the chain's
 * asset; totals over all chains (assets of several symbols) read in USD.
 */
export function checkRiskLimits(
  ledger: { risk: Pick<ExecutionStore['risk'], 'notionalSince'> },
  limits: RiskLimits,
  chainId: number,
  trade: Notional,
  nowMs: number,
  /** The chain's asset symbol, to name the unit. */
  assetSymbol = 'asset',
): string | undefined {
  const show = (value: bigint) => `${formatTokenAmount(value, notionalDecimals)} ${assetSymbol}`
  // All chains together add USDC and USDT at par: their sum is in USD.
  const showAll = (value: bigint) => `${formatTokenAmount(value, notionalDecimals)} USD`
  if (limits.maxTradeNotional !== undefined && trade > limits.maxTradeNotional)
    return `the trade's notional ${show(trade)} exceeds maxTradeNotional ${show(limits.maxTradeNotional)}`
  const startOfDay = new Date(nowMs).setUTCHours(0, 0, 0, 0)
  if (limits.maxDailyNotional !== undefined) {
    const { total } = ledger.risk.notionalSince(undefined, startOfDay)
    if (total + trade > limits.maxDailyNotional)
      return `today's notional on all chains would reach ${showAll(total + trade)} (${showAll(total)} traded or in flight), above maxDailyNotional ${showAll(limits.maxDailyNotional)}`
  }
  if (limits.maxChainDailyNotional !== undefined) {
    const { total } = ledger.risk.notionalSince(chainId, startOfDay)
    if (total + trade > limits.maxChainDailyNotional)
      return `today's notional on chain ${chainId} would reach ${show(total + trade)} (${show(total)} traded or in flight), above maxChainDailyNotional ${show(limits.maxChainDailyNotional)}`
  }
  return undefined
}
