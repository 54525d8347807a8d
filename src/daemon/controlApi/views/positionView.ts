import type { PositionRecord } from '../../../store/positionAccounting.js'
import type { PositionView } from '../contract.js'

/**
 * A position as the control API shows it: base-unit amounts as decimal strings.
 *
 * @example
 * toPositionView(ledger.positions.listPositions()[0]) // { ticker: 'AAPL', balance: '10', costBasis: '2093000000', … }
 */
export function toPositionView(position: PositionRecord): PositionView {
  return {
    chainId: position.chainId,
    tokenAddress: position.tokenAddress,
    ticker: position.ticker,
    exchange: position.exchange,
    tokenKind: position.tokenKind,
    assetToken: position.assetToken,
    assetDecimals: position.assetDecimals,
    balance: position.balance.toString(),
    locked: position.locked.toString(),
    available: position.available.toString(),
    costBasis: position.costBasis.toString(),
    realizedPnl: position.realizedPnl.toString(),
    avgPrice: position.avgPrice.toString(),
    lastSeq: position.lastSeq,
    updatedAt: new Date(position.updatedAtMs).toISOString(),
  }
}
