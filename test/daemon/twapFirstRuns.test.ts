import { describe, expect, it } from 'vitest'
import { withTwapFirstRuns } from '../../src/daemon/twapFirstRuns.js'
import { openLedger } from '../../src/store/index.js'
import {
  createStrategy,
  type StrategyConfig,
  strategyConfigSchema,
  type TwapStrategy,
} from '../../src/strategy/index.js'
import { intent, ledgerFolder } from '../store/ledgerFiles.js'

// A TWAP whose window opens at its first run (`startAt: "first-run"`) is anchored on the ledger's
// record of its first slice, so that a restart computes the same schedule; before it ran, now.

const folder = ledgerFolder()
const twap = strategyConfigSchema.parse({
  kind: 'twap',
  id: 'desk-0700',
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  side: 'buy',
  quantity: '1050',
  lotSize: 100,
  startAt: 'first-run',
  durationMinutes: 10,
  slices: 10,
}) as StrategyConfig
const schedule = strategyConfigSchema.parse({
  kind: 'schedule',
  id: 'dca',
  chainId: 31337,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '100',
  cron: '0 * * * * *',
}) as StrategyConfig

describe('withTwapFirstRuns', () => {
  it('starts a TWAP that never ran now, with its first slice due at once, and one that ran where its first slice was recorded', () => {
    const firstRunMs = Date.parse('2026-11-28T09:00:00Z')
    const ledger = openLedger({ path: folder.path(), now: () => firstRunMs })
    try {
      const configs = [schedule, twap]
      const created = configs.map((config) => createStrategy(config))
      const fresh = withTwapFirstRuns(created, configs, ledger, () => Date.parse('2026-11-28T08:00:00Z'))
      expect(fresh[0]).toBe(created[0])
      expect(fresh[1]).toMatchObject({ kind: 'twap', startMs: Date.parse('2026-11-28T08:00:00Z') })
      expect((fresh[1] as TwapStrategy).slices[0]?.atMs).toBe(Date.parse('2026-11-28T08:00:00Z'))

      ledger.executions.createExecution(intent('twap:desk-0700:slice:1'))
      const restarted = withTwapFirstRuns(created, configs, ledger, () => Date.parse('2026-11-28T09:04:00Z'))
      const anchored = restarted[1] as TwapStrategy
      expect(anchored.startMs).toBe(firstRunMs)
      expect(anchored.endMs).toBe(firstRunMs + 10 * 60_000)
      expect(anchored.slices.map((slice) => slice.atMs)).toEqual(
        (withTwapFirstRuns(created, configs, ledger, () => 0)[1] as TwapStrategy).slices.map(
          (slice) => slice.atMs,
        ),
      )
    } finally {
      ledger.close()
    }
  })
})
