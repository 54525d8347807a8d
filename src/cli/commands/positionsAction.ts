import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { tokenKinds } from '@stockroute/client/domain/markets.js'
import { type PositionView, positionListSchema } from '../../daemon/controlApi/contract.js'
import { toPositionView } from '../../daemon/controlApi/views/positionView.js'
import { openLedger } from '../../store/index.js'
import { announcePath, findDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'

/**
 * What `stockroute positions` runs (its options: ./positionsCommand.ts): through the daemon when
 * one runs, else from the ledger read-only.
 */
export async function listPositions(options: { config: string; chain?: number; json?: boolean }) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const positions =
    found.kind === 'daemon'
      ? (
          await withInterrupt((signal) =>
            found.client.request('GET', '/v1/positions', {
              query: { chainId: options.chain },
              schema: positionListSchema,
              signal,
            }),
          )
        ).positions
      : readPositions(target.ledgerPath, options.chain)
  printResult(options.json, { positions }, () => positionTable(positions))
}

/** The ledger's positions, read-only, amounts as decimal strings of base units (as the API sends them). */
function readPositions(ledgerPath: string, chainId: number | undefined): PositionView[] {
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  try {
    return ledger.positions.listPositions({ chainId }).map(toPositionView)
  } finally {
    ledger.close()
  }
}

function positionTable(positions: readonly PositionView[]): string {
  if (positions.length === 0) return 'no positions'
  return formatTable(
    [
      { header: 'CHAIN', align: 'right' },
      { header: 'TICKER' },
      { header: 'BALANCE', align: 'right' },
      { header: 'AVG PRICE', align: 'right' },
      { header: 'COST BASIS', align: 'right' },
      { header: 'REALIZED PNL', align: 'right' },
    ],
    positions.map((position) => {
      const assetDecimals = typeof position.assetDecimals === 'number' ? position.assetDecimals : undefined
      const ofAsset = (value: unknown) => readableAmount(value, assetDecimals)
      return [
        String(position.chainId),
        position.ticker,
        readableAmount(position.balance, position.tokenKind === 'share' ? tokenKinds.share.decimals : 0),
        ofAsset(position.avgPrice),
        ofAsset(position.costBasis),
        ofAsset(position.realizedPnl),
      ]
    }),
  )
}

/**
 * A decimal string of base units as a person reads it (the reports' rule, formatTokenAmount: at
 * most 6 fraction digits); as it is when the decimals are not known. `--json` keeps the exact value.
 */
function readableAmount(value: unknown, decimals: number | undefined): string {
  if (value === undefined || value === null) return '-'
  const text = String(value)
  if (decimals === undefined || !/^-?\d+$/.test(text)) return text
  return formatTokenAmount(BigInt(text), decimals)
}
