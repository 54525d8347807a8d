import { describe, expect, it } from 'vitest'
import { controlRoutes, type DaemonStatus } from '../../src/daemon/healthRoutes.js'
import { createDaemonMetrics } from '../../src/daemon/metrics.js'
import { openLedger } from '../../src/store/index.js'
import { ledgerFolder } from '../store/ledgerFiles.js'

const folder = ledgerFolder()

describe('GET /health', () => {
  it('answers 503 with the reason and the remedy once the ledger has a storage fault (a real disk full); without the token, 503 alone', async () => {
    const path = folder.path()
    const setup = openLedger({ path, owner: false })
    const pages = setup.database.pragma('page_count', { simple: true }) as number
    setup.close()
    const ledger = openLedger({ path, maxPageCount: pages + 2 })
    const status: DaemonStatus = {
      state: 'running',
      startedAt: Date.now(),
      lastTick: undefined,
      lastReconciliation: undefined,
    }
    const health = controlRoutes({
      status,
      engine: { chains: new Map() },
      ledger,
      metrics: createDaemonMetrics(),
    }).find((route) => route.path === '/health')
    type HealthRequest = Parameters<NonNullable<typeof health>['handle']>[0]
    // As the control server asks it: with the token (or a dashboard session), or without.
    const ask = async (authenticated = true) => health?.handle({ authenticated } as HealthRequest)

    expect(await ask()).toMatchObject({ status: 200, body: { status: 'ok', halted: null } })
    expect(await ask(false)).toEqual({ status: 200, body: { status: 'ok' } })

    expect(() => {
      for (let index = 0; index < 1000; index++)
        ledger.executions.createExecution({
          intentId: `intent-${index}`,
          chainId: 31337,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '1000',
          amountType: 'stablecoin',
          reason: 'x'.repeat(1500),
        })
    }).toThrow(/database or disk is full/)

    const fault = ledger.storageFault
    expect(await ask()).toEqual({
      status: 503,
      body: {
        status: 'storage fault',
        uptimeSeconds: expect.any(Number),
        storageFault: {
          code: 'SQLITE_FULL',
          reason: fault?.reason,
          remedy: fault?.remedy,
          at: new Date(fault?.atMs ?? 0).toISOString(),
        },
      },
    })
    expect(fault?.remedy).toContain(`free space on the disk of ${path}`)
    // Without the token: still 503, the reason and the remedy (paths) behind the token.
    expect(await ask(false)).toEqual({ status: 503, body: { status: 'storage fault' } })
    ledger.close()
  })
})
