import { describe, expect, it } from 'vitest'
import { protectiveStatusOf } from '../../src/daemon/protectiveStatus.js'
import { ledgerFolder } from '../store/ledgerFiles.js'
import { guardedPosition } from './guardedPosition.js'

// What `GET /v1/strategies` and `stockroute strategies` say of a protect strategy's exits, read from
// a real ledger file as the daemon leaves it: the strategy's remembered exit (written by
// evaluateStrategy, as at a tick) and its executions (created and ended as the engine does).

const folder = ledgerFolder()

describe('protectiveStatusOf', () => {
  it('follows an exit from the trip through a sale that ended without a trade to its next attempt', async () => {
    // 5 AAPL bought at 200 USDC a share; a stop-loss 8% under the cost trips at 184 or below.
    const { ledger, strategy, tick: tickAt } = guardedPosition(folder)
    try {
      const t0 = 1_750_000_000_000
      const tick = (nowMs: number) => tickAt(nowMs, '183.5')
      expect(protectiveStatusOf(strategy, ledger)).toEqual([])

      const [sale] = await tick(t0)
      if (sale === undefined) throw new Error('the stop-loss did not trip')
      const first = sale.intentId
      const tripped = {
        chainId: 31337,
        ticker: 'AAPL',
        trigger: 'stop-loss',
        price: '183.5',
        currency: 'USD',
        quantity: '5',
      }
      expect(protectiveStatusOf(strategy, ledger)).toEqual([
        {
          ...tripped,
          attempt: 1,
          askedAtMs: t0,
          intentId: first,
          execution: null,
          state: 'asked',
          retryAtMs: null,
        },
      ])

      // Submitted: selling. Rejected (the guard, say): unsold, attempt 2 due 15 s after the trip.
      const execution = ledger.executions.createExecution({
        ...sale,
        amountType: 'stocktoken',
        strategy: 'guard',
      })
      expect(protectiveStatusOf(strategy, ledger)[0]).toMatchObject({
        state: 'selling',
        execution: { id: execution.id, state: 'intent' },
      })
      ledger.executions.transition(execution.id, 'intent', 'rejected', 'test: a quote signed by a stranger')
      expect(protectiveStatusOf(strategy, ledger)[0]).toMatchObject({
        attempt: 1,
        state: 'unsold',
        execution: { id: execution.id, state: 'rejected' },
        retryAtMs: t0 + 15_000,
      })

      // The tick after that time asks for attempt 2: asked again, with nothing run for it yet.
      await tick(t0 + 16_000)
      expect(protectiveStatusOf(strategy, ledger)).toEqual([
        {
          ...tripped,
          attempt: 2,
          askedAtMs: t0 + 16_000,
          intentId: `${first}:2`,
          execution: null,
          state: 'asked',
          retryAtMs: null,
        },
      ])
    } finally {
      ledger.close()
    }
  })
})
