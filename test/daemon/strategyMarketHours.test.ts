import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { describe, expect, it } from 'vitest'
import { createMarketDataCache } from '../../src/daemon/marketData.js'
import { createStrategyControl } from '../../src/daemon/strategyControl.js'
import { createStrategyRunner } from '../../src/daemon/strategyRunner.js'
import { createLimitStrategy, createStrategy } from '../../src/strategy/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// marketHours "open-only": the daemon's strategy runner does not evaluate such a strategy while the
// exchange of a symbol it reads is closed, and keeps why as its last run; at an open instant it runs
// as any other. The runner's clock is fixed (the sessions are decided at its tick time); prices,
// engine, ledger and chains are the real ones.

const service = useSandboxService()
const ledgers = engineLedgers()

describe('marketHours "open-only"', () => {
  it('is refused by the configuration unless "any" or "open-only"', () => {
    expect(() =>
      createStrategy({
        kind: 'limit',
        id: 'bad-hours',
        chainId: 31337,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '100',
        limitPrice: '1000',
        marketHours: 'regular',
      }),
    ).toThrow(/marketHours: must be "any" .* or "open-only"/)
  })

  it('skips the strategy while its exchange is closed, saying why, and runs it once the exchange is open', async () => {
    const chainId = chainWithRouter().chainId
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '1000' } })
    const stop = new AbortController()
    try {
      // A buy limit far above the price: it fires at the first evaluation.
      const openOnly = createLimitStrategy({
        id: 'open-only-aapl',
        chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '50',
        limitPrice: '100000',
        marketHours: 'open-only',
      })
      // A sell limit far above the price: evaluated at every tick, it never fires.
      const anyHours = createLimitStrategy({
        id: 'any-hours-aapl',
        chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'sell',
        amountIn: '1',
        limitPrice: '100000',
      })
      expect([openOnly.marketHours, anyHours.marketHours]).toEqual(['open-only', 'any'])
      const strategies = [openOnly, anyHours]
      const control = createStrategyControl({ strategies, ledger: test.ledger })
      let nowMs = Date.parse('2026-03-07T15:00:00Z') // Saturday: New York is closed
      const tick = createStrategyRunner({
        strategies,
        engine: test.engine,
        ledger: test.ledger,
        marketData: createMarketDataCache({
          service: createServiceClient({ baseUrl: service().url, credentials: service().credential }),
          staleAfterMs: 60_000,
        }),
        lotSizes: () => new Map(),
        signal: stop.signal,
        now: () => nowMs,
        control,
      })
      const lastRuns = () => Object.fromEntries(control.list().map((status) => [status.id, status.lastRun]))

      const closed = await tick()
      expect(closed.submitted).toBe(0)
      expect(lastRuns()).toEqual({
        'open-only-aapl': {
          atMs: nowMs,
          submitted: 0,
          refused: 0,
          error: null,
          skipped: 'marketHours open-only: USEX closed (closed: weekend)',
        },
        'any-hours-aapl': { atMs: nowMs, submitted: 0, refused: 0, error: null },
      })
      expect(test.ledger.executions.getExecutionByIntent(openOnly.intentId)).toBeUndefined()

      nowMs = Date.parse('2026-11-26T15:00:00Z') // Thanksgiving, 10:00 ET
      await tick()
      expect(lastRuns()['open-only-aapl']?.skipped).toBe(
        'marketHours open-only: USEX closed (US holiday: Thanksgiving)',
      )

      nowMs = Date.parse('2026-03-09T15:00:00Z') // Monday 11:00 EDT: open
      const open = await tick()
      expect(open.submitted).toBe(1)
      expect(lastRuns()['open-only-aapl']).toEqual({ atMs: nowMs, submitted: 1, refused: 0, error: null })
      expect(test.ledger.executions.getExecutionByIntent(openOnly.intentId)).toBeDefined()
    } finally {
      await test.close()
      stop.abort()
    }
  })
})
