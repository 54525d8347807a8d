import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { incomeReport } from '../../src/report/queries/income.js'
import { openLedger } from '../../src/store/index.js'
import { wideValues, writeWideLedger } from './wideLedger.js'

// The income report writes shares held and corporate-action amounts in natural units, rounded as
// every report amount is: a ShareToken's 18 decimals were printed as base units.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-income-units-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

it('shows the shares held of a ShareToken and the amounts of corporate actions in natural units', () => {
  const path = join(folder, 'stockroute.sqlite')
  const now = writeWideLedger(path)
  const ledger = openLedger({ path, readonly: true })
  try {
    const report = incomeReport({ ledger, now: () => now }, {})
    const rows = (key: string) => report.tables.find((table) => table.key === key)?.rows ?? []
    const dividend = rows('income').find((row) => row.ticker === wideValues.ticker)
    // 2_718_281_828_459_045_235_360 base units of an 18-decimal ShareToken: 2718.281828|459…,
    // the 7th fraction digit is 4, so it rounds down to 2718.281828.
    expect(dividend?.quantity).toBe('2718.281828')
    const transferIn = rows('corporate_actions').find((row) => row.reference === 'transfer-in:31338:0:share')
    // 2_500_000_000_000_000_000 base units of AAPLs (18 decimals) is 2.5 shares; the cost,
    // 568_817_722_500_000_000_000 base units of an 18-decimal asset, is 568.8177225, whose 7th
    // fraction digit is 5: half away from zero, 568.817723.
    expect(transferIn).toMatchObject({ kind: 'transfer', detail: 'quantity 2.5, cost 568.817723' })
  } finally {
    ledger.close()
  }
})
