import { formatAmount } from '../formatAmount.js'
import type { RealizedSums } from './realizedBreakdown.js'

/**
 * A group's sums (realized PnL, fees, notional, counts) as report cells, amounts formatted in the
 * group's asset by {@link formatAmount}.
 *
 * @example
 * sumsCells(emptySums(31337, '0xA0b8…', 6)).realized_pnl // '0'
 */
export function sumsCells(sums: RealizedSums) {
  const asset = (value: bigint) => formatAmount(value, sums.assetDecimals)
  return {
    chain_id: sums.chainId,
    asset_token: sums.assetToken,
    realized_pnl: asset(sums.realized),
    fees: asset(sums.fees),
    bought: asset(sums.bought),
    sold: asset(sums.sold),
    buys: sums.buys,
    sells: sums.sells,
    corporate_actions: sums.corporateActions,
  }
}

/**
 * Zero sums of one asset, for a group with income or positions but no step.
 *
 * @example
 * emptySums(31337, '0xA0b8…', 6).realized // 0n
 */
export function emptySums(chainId: number, assetToken: string, assetDecimals: number): RealizedSums {
  return {
    chainId,
    assetToken,
    assetDecimals,
    realized: 0n,
    fees: 0n,
    bought: 0n,
    sold: 0n,
    buys: 0,
    sells: 0,
    corporateActions: 0,
  }
}
