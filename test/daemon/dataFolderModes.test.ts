import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { octalMode } from '../../src/store/ownerOnlyFiles.js'
import { exitOf } from '../helpers/processes.js'
import { type EmbeddedDaemon, useEmbeddedDaemons } from './embeddedDaemon.js'

// What a real daemon (`stockroute start` on an embedded sandbox, the built CLI) leaves in its data
// folder, read with stat: the folder 0700, every file 0600 (the ledger with its signed transactions,
// its WAL and shared memory, the log, the token and runtime files), the archived ledgers in a 0700
// archive/. A folder the operator made looser is warned about with the chmod that closes it, and left
// as it is; the daemon's own files in it are tightened.

const daemons = useEmbeddedDaemons()
const modeOf = (path: string) => octalMode(statSync(path).mode)
/** Every entry of `folder` with its mode, by name. */
const modesIn = (folder: string) =>
  Object.fromEntries(
    readdirSync(folder)
      .sort()
      .map((name) => [name, modeOf(join(folder, name))]),
  )

async function stop(daemon: Awaited<EmbeddedDaemon>) {
  process.kill(-daemon.pid, 'SIGTERM')
  expect((await exitOf(daemon.child)).code).toBe(0)
}

describe('the data folder of a running daemon', () => {
  it('is 0700 with every file 0600 while it trades, and the next start archives the ledger owner-only', async () => {
    const first = await daemons.start('owner-only', 2_000)
    const dataDir = dirname(first.ledgerPath)
    // One swap: the ledger holds its signed transactions, the WAL has frames.
    await first.holdExecutionInFlight()
    await first.mine()
    expect(modeOf(dataDir)).toBe('0700')
    const files = modesIn(dataDir)
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'stockroute.log',
        'stockroute.sqlite',
        'stockroute.sqlite-shm',
        'stockroute.sqlite-wal',
        'stockroute.sqlite.control-token',
        'stockroute.sqlite.runtime.json',
        'stockroute.sqlite.sandbox-connection.json',
      ]),
    )
    for (const [name, mode] of Object.entries(files)) expect([name, mode]).toEqual([name, '0600'])
    expect(first.output.stderr).not.toContain('warning: the data folder')
    await stop(first)

    // The sandbox's chains are new: the previous run's ledger moves to archive/, owner-only.
    const second = await daemons.start('owner-only', 2_000)
    await second.waitFor('stderr', /the previous sandbox run's ledger was moved to/)
    const archive = join(dataDir, 'archive')
    expect(modeOf(archive)).toBe('0700')
    const archived = modesIn(archive)
    expect(Object.keys(archived).length).toBeGreaterThan(0)
    for (const [name, mode] of Object.entries(archived)) expect([name, mode]).toEqual([name, '0600'])
    expect(modesIn(dataDir)).toMatchObject({ archive: '0700', 'stockroute.sqlite': '0600' })
    await stop(second)
  })

  it('an existing folder others can enter: a warning with the chmod that closes it, the folder left, its files tightened', async () => {
    const dataDir = daemons.dataDirOf('operator-made')
    mkdirSync(dataDir, { mode: 0o755 })
    chmodSync(dataDir, 0o755)
    // What an older stockroute left: a log others can read.
    writeFileSync(join(dataDir, 'stockroute.log'), '{"msg":"an older run"}\n', { mode: 0o644 })
    chmodSync(join(dataDir, 'stockroute.log'), 0o644)

    const daemon = await daemons.start('operator-made', 2_000)
    const [warning] = await daemon.waitFor('stderr', /warning: the data folder .*/)
    expect(warning).toContain(`the data folder ${dataDir} (mode 0755)`)
    expect(warning).toContain('other local users can list the names in it')
    expect(warning).toContain(`to close it: chmod -R go-rwx ${dataDir}`)
    expect(modeOf(dataDir)).toBe('0755')
    for (const [name, mode] of Object.entries(modesIn(dataDir))) expect([name, mode]).toEqual([name, '0600'])
    await stop(daemon)
  })
})
