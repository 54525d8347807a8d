import { evaluateStrategy } from '../../src/daemon/strategyMemory.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { createProtectStrategy, type PositionView } from '../../src/strategy/index.js'
import { fillOf, type ledgerFolder } from '../store/ledgerFiles.js'
import { marketPrice, snapshot } from '../strategy/snapshot.js'

/**
 * A real ledger file holding 5 AAPL bought for 1000 USDC (200 a share) on chain 31337, guarded by
 * `guard`, a stop-loss 8% under the cost (it trips at 184 or below); `tick(nowMs, price)` evaluates
 * it as the daemon does at a tick (its memory read from and committed to the ledger). Close the
 * ledger after.
 *
 * @example
 * const { ledger, strategy, tick } = guardedPosition(folder)
 * const [sale] = await tick(t0, '150')
 */
export function guardedPosition(folder: ReturnType<typeof ledgerFolder>) {
  const ledger: Ledger = openLedger({ path: folder.migratedPath() })
  ledger.fills.recordFill(fillOf({ txLabel: 'buy-1' }))
  const strategy = createProtectStrategy({
    id: 'guard',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    stopLossPct: '8',
  })
  const position: PositionView = {
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    tokenKind: 'stock',
    balance: 5n,
    lotSize: 1n,
  }
  const tick = (nowMs: number, price: string) =>
    evaluateStrategy(
      strategy,
      snapshot({
        nowMs,
        prices: [marketPrice('usex', 'AAPL', price, { atMs: nowMs })],
        positions: [position],
      }),
      ledger,
    )
  return { ledger, strategy, tick }
}
