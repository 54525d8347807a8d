import type { ExecutionDetailView } from '../../daemon/swapApi/index.js'
import { formatTable } from '../formatTable.js'

/**
 * The text of `stockroute executions show`: what was asked, where it is, then its timeline (every
 * state change with its reason), its transactions and its fills (base units, as the settlement event
 * has them).
 *
 * @example
 * describeExecution(detail)
 * // 'execution 4 confirmed: buy AAPL on chain 31337 (intent cli-…)\n  asked     1000 asset\n…\ntimeline\n…'
 */
export function describeExecution(detail: ExecutionDetailView): string {
  const row = (label: string, value: string) => `  ${label.padEnd(10)}${value}`
  const lines = [
    `execution ${detail.executionId} ${detail.state}: ${detail.side} ${detail.ticker} on chain ${detail.chainId} (intent ${detail.intentId})`,
    row('asked', `${detail.amountIn} ${detail.amountType === 'stablecoin' ? 'asset' : 'shares'}`),
    row('reason', detail.reason),
  ]
  if (detail.strategy) lines.push(row('strategy', detail.strategy))
  if (detail.quoteId) lines.push(row('quote', detail.quoteId))
  lines.push(row('created', detail.createdAt))
  lines.push('', 'timeline')
  for (const event of detail.events)
    lines.push(`  ${event.at}  ${event.from ?? '(new)'} → ${event.to}: ${event.reason}`)
  lines.push('', 'transactions')
  lines.push(
    detail.transactions.length === 0
      ? '  none'
      : indent(
          formatTable(
            [
              { header: 'KIND' },
              { header: 'NONCE', align: 'right' },
              { header: 'STATUS' },
              { header: 'HASH' },
            ],
            detail.transactions.map((tx) => [tx.kind, String(tx.nonce), tx.status, tx.hash]),
          ),
        ),
  )
  lines.push('', 'fills')
  lines.push(
    detail.fills.length === 0
      ? '  none'
      : indent(
          formatTable(
            [
              { header: 'TX' },
              { header: 'LOG', align: 'right' },
              { header: 'IN', align: 'right' },
              { header: 'OUT', align: 'right' },
              { header: 'FEE', align: 'right' },
              { header: 'NOTE' },
            ],
            detail.fills.map((fill) => [
              fill.txHash,
              String(fill.logIndex),
              fill.amountIn,
              fill.amountOut,
              fill.feeAmount,
              fill.reversedAt ? `reversed: ${String(fill.reversalReason ?? 'a reorg')}` : '',
            ]),
          ),
        ),
  )
  return lines.join('\n')
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
}
