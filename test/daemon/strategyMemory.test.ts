import { describe, expect, it } from 'vitest'
import { ledgerFolder } from '../store/ledgerFiles.js'
import { guardedPosition } from './guardedPosition.js'

// A `protect` strategy evaluated by the daemon on a real ledger file: what it remembers is read from
// and written to the ledger, and the ledger's executions tell it which of its sales ended without a
// trade, which it then asks for again.

const folder = ledgerFolder()

describe('evaluateStrategy', () => {
  it('asks again for a protective sale whose execution failed, once 15 s passed, and not for one still running', async () => {
    // 5 AAPL for 1000 USDC: 200 USDC a share; a stop-loss 8% under it trips at 150.
    const { ledger, tick } = guardedPosition(folder)
    try {
      const t0 = 1_750_000_000_000
      const evaluate = (nowMs: number) => tick(nowMs, '150')
      const [fired] = await evaluate(t0)
      const first = fired?.intentId as string
      expect(first).toMatch(/^protect:guard:stop-loss:\d+$/)
      const sale = {
        intentId: first,
        chainId: 31337,
        ticker: 'AAPL',
        exchange: 0 as const,
        side: 'sell' as const,
        amountIn: '5',
        amountType: 'stocktoken' as const,
      }
      // Its execution is running: asked for as it was (the runner skips an intent it has).
      const running = ledger.executions.createExecution(sale)
      expect((await evaluate(t0 + 60_000)).map((intent) => intent.intentId)).toEqual([first])
      // It failed (refused before any broadcast, say): 15 s after the trip, attempt 2 of the same sale.
      ledger.executions.transition(running.id, 'intent', 'failed', 'test: the sale failed')
      const retried = await evaluate(t0 + 60_000)
      expect(retried).toEqual([{ ...sale, intentId: `${first}:2` }])
      // Remembered in the ledger before it is handed back: a restart asks for attempt 2, not 3.
      expect(
        ledger.protectiveState.list('guard')[0]?.exits.map((exit) => [exit.intentId, exit.atMs]),
      ).toEqual([[`${first}:2`, t0 + 60_000]])
      expect((await evaluate(t0 + 70_000)).map((intent) => intent.intentId)).toEqual([`${first}:2`])
    } finally {
      ledger.close()
    }
  })
})
