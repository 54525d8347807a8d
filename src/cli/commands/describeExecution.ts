import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { tokenKinds } from '@stockroute/client/domain/markets.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { effectivePricePerShare } from '@stockroute/client/domain/quotePrice.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import type { ExecutionDetailView } from '../../daemon/controlApi/contract.js'
import { isDryRunEnd } from '../../engine/index.js'
import { formatLabelledRows, formatTable, type LabelledRow } from '../formatTable.js'

/**
 * The text of `stockroute executions show`: what was asked, where it is, then its timeline (every
 * state change with its reason), its transactions and its fills (shares and asset in their own units,
 * at most 6 decimals; the price per share paid fee included on a buy, received net of fee on a
 * sell). A dry run reads as one, not as a rejection; its transactions as signed, not sent.
 *
 * @example
 * describeExecution(detail)
 * // 'execution 4 confirmed: buy AAPL on chain 31337 (intent cli-…)\n  asked     1000 asset\n…\ntimeline\n…'
 */
export function describeExecution(detail: ExecutionDetailView): string {
  const dryRun = isDryRunEnd(detail)
  const rows: LabelledRow[] = [
    ['asked', `${detail.amountIn} ${detail.amountType === 'stablecoin' ? 'asset' : 'shares'}`],
    ['reason', detail.reason],
  ]
  if (detail.strategy) rows.push(['strategy', detail.strategy])
  if (detail.quoteId) rows.push(['quote', detail.quoteId])
  rows.push(['created', detail.createdAt])
  const lines = [
    printable(
      `execution ${detail.executionId} ${dryRun ? 'dry run, not broadcast' : detail.state}: ${detail.side} ${detail.ticker} on chain ${detail.chainId} (intent ${detail.intentId})`,
    ),
    ...formatLabelledRows(rows),
  ]
  lines.push('', 'timeline')
  for (const event of detail.events)
    lines.push(`  ${event.at}  ${event.from ?? '(new)'} → ${event.to}: ${printable(event.reason)}`)
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
            detail.transactions.map((tx) => [
              tx.kind,
              String(tx.nonce),
              // Stored as failed to free the nonce: a dry run never sent them.
              dryRun && tx.status === 'failed' ? 'not sent (dry run)' : tx.status,
              tx.hash,
            ]),
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
              { header: `SHARES (${detail.ticker})`, align: 'right' },
              { header: 'ASSET', align: 'right' },
              { header: 'FEE', align: 'right' },
              {
                header: detail.side === 'buy' ? 'PRICE (FEE INCL.)' : 'PRICE (NET OF FEE)',
                align: 'right',
              },
              { header: 'NOTE' },
            ],
            detail.fills.map((fill) => [
              fill.txHash,
              String(fill.logIndex),
              formatTokenAmount(
                BigInt(fill.stockAmount),
                fill.tokenKind === 'share' ? tokenKinds.share.decimals : 0,
              ),
              formatTokenAmount(BigInt(fill.assetAmount), fill.assetDecimals),
              formatTokenAmount(BigInt(fill.feeAmount), fill.assetDecimals),
              pricePerShare(fill, detail.side),
              fill.reversedAt ? `reversed: ${String(fill.reversalReason ?? 'a reorg')}` : '',
            ]),
          ),
        ),
  )
  return lines.join('\n')
}

/** Per whole share, in the asset: paid fee included (buy), received net of fee (sell). */
function pricePerShare(fill: ExecutionDetailView['fills'][number], side: 'buy' | 'sell'): string {
  const stockAmount = BigInt(fill.stockAmount)
  if (stockAmount <= 0n) return ''
  const price = effectivePricePerShare({
    assetAmount: toAssetAmount(BigInt(fill.assetAmount)),
    stockAmount,
    tokenKind: fill.tokenKind === 'share' ? 'share' : 'stock',
    direction: side === 'buy' ? 'up' : 'down',
  })
  return formatTokenAmount(price, fill.assetDecimals)
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
}
