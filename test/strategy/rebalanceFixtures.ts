import type { ExchangeCode, TokenKind } from '@stockroute/client/domain/markets.js'
import type { PositionView } from '../../src/strategy/index.js'

// Rebalance test fixtures: the chain the tests trade on, and a position view on it (a StockToken in
// lots of 1 unless told otherwise).

export const chainId = 31337

export const position = (
  ticker: string,
  exchange: ExchangeCode,
  balance: bigint,
  options: { tokenKind?: TokenKind; lotSize?: bigint; chainId?: number } = {},
): PositionView => ({
  chainId: options.chainId ?? chainId,
  ticker,
  exchange,
  tokenKind: options.tokenKind ?? 'stock',
  balance,
  lotSize: options.lotSize ?? 1n,
})
