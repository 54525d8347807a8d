import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { assertLotMultiple } from '@stockroute/client/domain/quantityRules.js'
import { toStockQuantity } from '@stockroute/client/domain/units.js'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { DaemonClientError } from '../../src/cli/daemon/daemonClientError.js'
import {
  exitCategoryOf,
  exitCategoryOfClass,
  exitCategoryOfCode,
  exitCodeMeanings,
  exitCodeOf,
  exitCodes,
  exitCodesHelp,
} from '../../src/cli/exitCodes.js'
import { buildProgram } from '../../src/cli/main.js'
import { loadDaemonConfig } from '../../src/config/config.js'
import { EngineError } from '../../src/engine/errors.js'
import { openLedger } from '../../src/store/index.js'
import { latestSchemaVersion } from '../../src/store/migrations.js'
import { repoRoot } from '../helpers/processes.js'

// What each kind of error that ends a command exits with: errors made by the real code that throws
// them (a missing file, a ledger of the future, a closed port), so a renamed class or code fails here.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-exit-codes-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected an error, nothing was thrown')
}

describe('exitCategoryOf', () => {
  it('usage: an option commander refuses', async () => {
    const program = buildProgram()
    for (const command of [program, ...program.commands]) command.configureOutput({ writeErr: () => {} })
    const error = await program.parseAsync(['node', 'stockroute', 'positions', '--bogus']).catch((e) => e)
    expect(exitCodeOf(error)).toBe(2)
  })

  it('config: a config file that is not there', () => {
    expect(exitCodeOf(thrown(() => loadDaemonConfig(join(folder, 'nowhere.json'))))).toBe(3)
  })

  it('not found: no ledger yet, no such execution or chain', () => {
    expect(exitCodeOf(thrown(() => openLedger({ path: join(folder, 'none.sqlite'), readonly: true })))).toBe(
      4,
    )
    const engineError = (code: 'EXECUTION_NOT_FOUND' | 'UNKNOWN_CHAIN') =>
      new EngineError({ code, shortMessage: 'not there' })
    expect(exitCodeOf(engineError('EXECUTION_NOT_FOUND'))).toBe(4)
    expect(exitCodeOf(engineError('UNKNOWN_CHAIN'))).toBe(4)
    const daemon404 = new DaemonClientError({
      code: 'DAEMON_REFUSED',
      shortMessage: 'no execution 9',
      status: 404,
    })
    expect(exitCodeOf(daemon404)).toBe(4)
  })

  it('refused: a market rule, an intent the engine refuses, the daemon refusing', () => {
    const lot = thrown(() => assertLotMultiple({ quantity: toStockQuantity(250n), lotSize: 100n }))
    expect(exitCodeOf(lot)).toBe(5)
    expect(exitCodeOf(new EngineError({ code: 'INVALID_INTENT', shortMessage: 'below one lot' }))).toBe(5)
    const conflict = new DaemonClientError({ code: 'DAEMON_REFUSED', shortMessage: 'signed', status: 409 })
    expect(exitCodeOf(conflict)).toBe(5)
  })

  it('unreachable: a service that does not listen, a daemon that does not answer', async () => {
    const client = createServiceClient({
      baseUrl: 'http://127.0.0.1:1',
      credentials: { apiKey: 'k', apiSecret: 's' },
    })
    const error = await getChains(client, {}).catch((e: unknown) => e)
    expect(exitCodeOf(error)).toBe(6)
    expect(exitCodeOf(new DaemonClientError({ code: 'DAEMON_NOT_ANSWERING', shortMessage: 'gone' }))).toBe(6)
  })

  it('ledger: a ledger a newer stockroute wrote', () => {
    const path = join(folder, 'future.sqlite')
    openLedger({ path }).close()
    const raw = new Database(path)
    raw
      .prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)')
      .run(latestSchemaVersion + 1, 'from-the-future', 0)
    raw.close()
    expect(exitCodeOf(thrown(() => openLedger({ path })))).toBe(7)
  })

  it('interrupted: the abort of a Ctrl-C; internal: anything else', () => {
    const controller = new AbortController()
    controller.abort(new Error('interrupted'))
    expect(exitCategoryOf(controller.signal.reason)).toBe('interrupted')
    expect(exitCodeOf(new TypeError('x is undefined'))).toBe(1)
    expect(exitCodeOf('a string')).toBe(1)
  })

  it('names only classes and codes that exist in the source', () => {
    const sources = [join(repoRoot, 'src'), join(repoRoot, 'packages', 'client', 'src')]
      .flatMap(filesBelow)
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n')
    for (const name of Object.keys(exitCategoryOfClass)) {
      if (name === 'CommanderError' || name === 'InvalidArgumentError') continue
      expect(sources, name).toContain(`name = '${name}'`)
    }
    for (const code of Object.keys(exitCategoryOfCode)) expect(sources, code).toContain(`'${code}'`)
  })
})

describe('exitCodesHelp', () => {
  it('lists every code under stockroute --help, each meaning wrapped at 80 columns under its code', () => {
    const lines = exitCodesHelp()
    expect(lines[0]).toBe('  0    done: the command did what it was asked')
    expect(lines.at(-1)).toBe('  130  stopped by Ctrl-C (128 + SIGINT)')
    expect(lines.every((line) => line.length <= 80)).toBe(true)
    // A continuation line sits under the meaning, not under the code.
    expect(lines.filter((line) => !/^ {2}\d/.test(line)).every((line) => /^ {7}\S/.test(line))).toBe(true)
    expect(lines.filter((line) => /^ {2}\d/.test(line))).toHaveLength(Object.keys(exitCodes).length)
  })
})

describe('docs/cli.md', () => {
  it('has the exit-code table of src/cli/exitCodes.ts, row for row', () => {
    const text = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8')
    const rows = [...text.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((match) => [Number(match[1]), match[2]])
    const expected = Object.entries(exitCodes).map(([name, code]) => [
      code,
      exitCodeMeanings[name as keyof typeof exitCodes],
    ])
    expect(rows).toEqual(expected)
  })
})

function filesBelow(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) return filesBelow(path)
    return path.endsWith('.ts') ? [path] : []
  })
}
