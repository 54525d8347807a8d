import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DaemonStatus } from '../../src/daemon/healthRoutes.js'
import { startSummaryTimer } from '../../src/daemon/summaryTimer.js'
import { openLedger } from '../../src/store/index.js'
import { ledgerFolder } from '../store/ledgerFiles.js'

const folder = ledgerFolder()

afterEach(() => {
  vi.useRealTimers()
})

describe('startSummaryTimer', () => {
  it('prints a summary every interval while running, and none once the daemon is stopping', () => {
    vi.useFakeTimers()
    const status: Pick<DaemonStatus, 'state' | 'lastTick' | 'lastReconciliation'> = {
      state: 'running',
      lastTick: undefined,
      lastReconciliation: undefined,
    }
    const lines: string[] = []
    const ledger = openLedger({ path: folder.path() })
    const timer = startSummaryTimer({
      status,
      ledger,
      printer: { summary: (extra) => `summary: ${extra.join(', ')}` },
      write: (line) => lines.push(line),
      intervalMs: 10_000,
    })
    vi.advanceTimersByTime(20_000)
    expect(lines).toEqual([
      'summary: 0 in flight, no tick yet, not reconciled yet',
      'summary: 0 in flight, no tick yet, not reconciled yet',
    ])
    // The stop prints its own last summary; a tick between the signal and clearInterval must not add one.
    status.state = 'stopping'
    vi.advanceTimersByTime(30_000)
    expect(lines).toHaveLength(2)
    clearInterval(timer)
    ledger.close()
  })
})
