import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createDaemonMetrics } from '../../src/daemon/metrics.js'
import { openLedger } from '../../src/store/index.js'
import { intent } from '../store/ledgerFiles.js'

const dir = mkdtempSync(join(tmpdir(), 'stockroute-metrics-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The value of one sample line of the text exposition, e.g. `stockroute_ledger_write_seconds_count`. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.slice(name.length + 1))
}

describe('the daemon metrics of its ledger', () => {
  it('time every write transaction of the ledger (a real SQLite file) and count the WAL checkpoints', async () => {
    const ledger = openLedger({ path: join(dir, 'ledger.sqlite') })
    try {
      const metrics = createDaemonMetrics({ ledger })
      expect(sample(await metrics.render(), 'stockroute_ledger_write_seconds_count')).toBe(0)
      // Two transactions through atomically and one shared commitSoon transaction for two writes.
      ledger.atomically(() => ledger.executions.createExecution(intent('metrics-1')))
      ledger.atomically(() => {
        // A nested one is a savepoint of the outer transaction, not a transaction of its own.
        ledger.atomically(() => ledger.executions.createExecution(intent('metrics-2')))
      })
      await Promise.all([
        ledger.commitSoon(() => ledger.executions.createExecution(intent('metrics-3'))),
        ledger.commitSoon(() => ledger.executions.createExecution(intent('metrics-4'))),
      ])
      const text = await metrics.render()
      expect(sample(text, 'stockroute_ledger_write_seconds_count')).toBe(3)
      expect(sample(text, 'stockroute_ledger_write_seconds_sum')).toBeGreaterThan(0)
      expect(sample(text, 'stockroute_ledger_wal_checkpoints_total')).toBe(
        ledger.walCheckpointer?.counts.checkpoints,
      )
      // A listener that throws does not make a committed write fail.
      ledger.onWriteTransaction(() => {
        throw new Error('a broken listener')
      })
      const written = ledger.atomically(() => ledger.executions.createExecution(intent('metrics-5')))
      expect(ledger.executions.getExecution(written.id)?.intentId).toBe('metrics-5')
    } finally {
      ledger.close()
    }
  })
})

describe('the daemon metrics of the quote windows', () => {
  it('time the waits of inclusions for held quotes, and count those the bound ended', async () => {
    const metrics = createDaemonMetrics()
    metrics.hooks.onInclusionWait({ waitedMs: 4, ranOut: false })
    metrics.hooks.onInclusionWait({ waitedMs: 150, ranOut: true })
    const text = await metrics.render()
    expect(sample(text, 'stockroute_inclusion_wait_seconds_count')).toBe(2)
    expect(sample(text, 'stockroute_inclusion_wait_seconds_sum')).toBeCloseTo(0.154, 6)
    expect(sample(text, 'stockroute_inclusion_waits_ran_out_total')).toBe(1)
  })
})
