import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ledgerNames, openReportLedgers } from '../../src/cli/commands/reportLedgers.js'
import { exitCodeOf } from '../../src/cli/exitCodes.js'
import { writeShardLedger } from '../report/shardLedgers.js'

// The ledger files of `stockroute report --ledger`: their names in a report, and the refusals with
// their exit codes (the command through the built CLI: reportCommandLedgers.test.ts).

const dir = mkdtempSync(join(tmpdir(), 'stockroute-report-ledgers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ledgerNames', () => {
  it('names each ledger by the part of its path that tells it apart, without the end they share', () => {
    expect(ledgerNames(['/srv/eu/data/stockroute.sqlite', '/srv/us/data/stockroute.sqlite'])).toEqual([
      'eu',
      'us',
    ])
    expect(ledgerNames(['/srv/shard-a.sqlite', '/srv/shard-b.sqlite', '/srv/shard-c.sqlite'])).toEqual([
      'shard-a.sqlite',
      'shard-b.sqlite',
      'shard-c.sqlite',
    ])
    expect(ledgerNames(['/x/eu/data/stockroute.sqlite', '/y/eu/data/stockroute.sqlite'])).toEqual(['x', 'y'])
    expect(ledgerNames(['/a/stockroute.sqlite', '/a/b/stockroute.sqlite'])).toEqual(['a', 'b'])
    expect(ledgerNames(['/srv/one.sqlite'])).toEqual(['one.sqlite'])
  })
})

describe('openReportLedgers', () => {
  const a = join(dir, 'a', 'stockroute.sqlite')
  const b = join(dir, 'b', 'stockroute.sqlite')
  mkdirSync(join(dir, 'a'))
  mkdirSync(join(dir, 'b'))
  writeShardLedger(a, [])
  writeShardLedger(b, [])

  it('opens them read-only, in the order given, named', () => {
    const opened = openReportLedgers([b, a])
    try {
      expect(opened.ledgers.map((entry) => [entry.name, entry.path, entry.ledger.readonly])).toEqual([
        ['b', b, true],
        ['a', a, true],
      ])
    } finally {
      opened.close()
    }
  })

  it('refuses what is not a ledger, or the same ledger twice, with the exit code of each', () => {
    const empty = join(dir, 'empty.sqlite')
    writeFileSync(empty, '')
    const text = join(dir, 'text.sqlite')
    writeFileSync(text, 'hello\n')
    const link = join(dir, 'link.sqlite')
    symlinkSync(a, link)
    const refusal = (files: string[]) => {
      try {
        openReportLedgers(files).close()
      } catch (error) {
        return { code: exitCodeOf(error), message: (error as Error).message }
      }
      throw new Error(`opened ${files.join(', ')}`)
    }
    expect(refusal([a, join(dir, 'none.sqlite')])).toMatchObject({ code: 4 })
    expect(refusal([a, join(dir, 'a')]).code).toBe(7)
    expect(refusal([a, empty])).toMatchObject({
      code: 7,
      message: expect.stringContaining('the file is empty'),
    })
    expect(refusal([a, text])).toMatchObject({ code: 7, message: expect.stringContaining(text) })
    expect(refusal([a, b, a])).toMatchObject({ code: 2, message: expect.stringContaining('is given twice') })
    expect(refusal([link, a])).toMatchObject({
      code: 2,
      message: expect.stringContaining('are the same file'),
    })
  })
})
