import { plural } from '@stockroute/client/domain/plural.js'
import type { LedgerEvent } from '../../store/index.js'
import type { DailySummaryData } from './dailySummary.js'
import { formatBaseUnits } from './formatBaseUnits.js'

/** Names an asset token in messages; undefined: the short address is shown. */
export type AssetSymbolOf = (chainId: number, assetToken: string) => string | undefined

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? '?'))
const shortHex = (value: unknown): string => {
  const hex = text(value)
  return /^0x[0-9a-fA-F]{12,}$/.test(hex) ? `${hex.slice(0, 6)}…${hex.slice(-4)}` : hex
}
const onChain = (chainId: unknown): string =>
  chainId === null || chainId === undefined ? '' : ` on chain ${chainId}`

/** The remaining fields of a free-form event (discrepancy, recovery), as `key value` pairs. */
function describeData(data: Record<string, unknown>): string {
  if (typeof data.message === 'string') return data.message
  const parts = Object.entries(data)
    .filter(([key]) => key !== 'chainId')
    .map(
      ([key, value]) =>
        `${key} ${typeof value === 'object' && value !== null ? JSON.stringify(value) : text(value)}`,
    )
  const joined = parts.join(', ')
  return joined.length > 500 ? `${joined.slice(0, 499)}…` : joined
}

/**
 * One line (a few for a daily summary) a person reads in a chat: what happened, where, how much.
 * Amounts of the event are base units; they are shown in natural units (a StockToken has 0
 * decimals, a ShareToken 18, an asset its `assetDecimals`).
 *
 * @example
 * formatNotificationText(fillEvent, (chainId, token) => symbols.get(`${chainId}:${token}`))
 * // 'Filled: buy 2 AAPL on chain 31337 for 300.00 USDC (fee 0.30), tx 0xabcd…ef12'
 */
export function formatNotificationText(event: LedgerEvent, assetSymbolOf?: AssetSymbolOf): string {
  const data = event.data
  const chainId = event.chainId ?? (typeof data.chainId === 'number' ? data.chainId : null)
  const symbolOf = (token: unknown): string =>
    (chainId !== null && assetSymbolOf?.(chainId, text(token))) || shortHex(token)
  switch (event.kind) {
    case 'fill': {
      const buy = data.side === 'buy'
      const stockDecimals = data.tokenKind === 'share' ? 18 : 0
      const stock = formatBaseUnits(buy ? data.amountOut : data.amountIn, stockDecimals, 0)
      const decimals = typeof data.assetDecimals === 'number' ? data.assetDecimals : 0
      const asset = formatBaseUnits(buy ? data.amountIn : data.amountOut, decimals)
      const fee = formatBaseUnits(data.feeAmount, decimals)
      return `Filled: ${buy ? 'buy' : 'sell'} ${stock} ${text(data.ticker)}${onChain(chainId)} for ${asset} ${symbolOf(data.assetToken)} (fee ${fee}), tx ${shortHex(data.txHash)}`
    }
    case 'fill_reversed':
      return `Fill reversed: ${text(data.ticker)}${onChain(chainId)}, tx ${shortHex(data.txHash)} (fill ${text(data.fillId)}): ${text(data.reason)}`
    case 'execution': {
      const amount =
        data.amountType === 'stocktoken'
          ? `${text(data.amountIn)} ${text(data.ticker)}`
          : `${text(data.ticker)} for ${text(data.amountIn)} (stablecoin)`
      const strategy = typeof data.strategy === 'string' ? `, strategy ${data.strategy}` : ''
      return `Execution ${text(data.executionId)} ${text(data.to)}: ${text(data.side)} ${amount}${onChain(chainId)}${strategy}: ${text(data.reason)}`
    }
    case 'halt':
      return `Trading halted: ${text(data.reason)}`
    case 'resume':
      return `Trading resumed: ${text(data.reason)}`
    case 'entry_halt':
      return `New entries halted${chainId === null ? ' on all chains' : onChain(chainId)} (buys refused, sells still run until resumed): ${text(data.reason)}`
    case 'discrepancy':
      return `Discrepancy${onChain(chainId)}: ${describeData(data)}`
    case 'recovery':
      return `Recovery${onChain(chainId)}: ${describeData(data)}`
    case 'daily_summary':
      return formatDailySummary(data as DailySummaryData, assetSymbolOf)
  }
}

function formatDailySummary(data: DailySummaryData, assetSymbolOf: AssetSymbolOf | undefined): string {
  const states = Object.entries(data.executions?.byState ?? {})
    .map(([state, count]) => `${count} ${state}`)
    .join(', ')
  const lines = [
    `Daily summary ${text(data.day)} (UTC): ${plural(data.executions?.total ?? 0, 'execution')}${states ? ` (${states})` : ''}, ${plural(data.fills?.count ?? 0, 'fill')}${data.fills?.reversed ? ` (${data.fills.reversed} reversed)` : ''}`,
  ]
  for (const row of data.notional ?? []) {
    const symbol = assetSymbolOf?.(row.chainId, row.assetToken) ?? shortHex(row.assetToken)
    lines.push(
      `chain ${row.chainId}: bought for ${formatBaseUnits(row.bought, row.assetDecimals)} ${symbol}, sold for ${formatBaseUnits(row.sold, row.assetDecimals)} ${symbol}, fees ${formatBaseUnits(row.fees, row.assetDecimals)} (${plural(row.fills, 'fill')})`,
    )
  }
  return lines.join('\n')
}
