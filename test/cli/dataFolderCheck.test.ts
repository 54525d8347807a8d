import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkDataFolder } from '../../src/cli/doctor/index.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { openLedger } from '../../src/store/index.js'
import { dir, doctor, find, reportOf, useDoctorSandbox, variant } from './doctorSandbox.js'

// Doctor's `data-folder` check on real folders and files, chmod'ed as an operator or an older
// stockroute left them: as a library call, and as `stockroute doctor` reports it.

useDoctorSandbox()

/** A data folder of `mode` holding the given files, each with its own mode. */
function dataFolder(mode: number, files: Record<string, number> = {}): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'stockroute-data-folder-')), 'data')
  mkdirSync(folder)
  for (const [name, fileMode] of Object.entries(files)) {
    const path = join(folder, name)
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, 'x')
    chmodSync(path, fileMode)
  }
  chmodSync(folder, mode)
  return folder
}

describe('checkDataFolder', () => {
  it('ok: no folder yet (the daemon makes it 0700), or one only its owner can use', () => {
    const missing = join(tmpdir(), 'stockroute-no-such-data-folder')
    expect(checkDataFolder({ dataDir: missing })).toMatchObject({
      name: 'data-folder',
      status: 'ok',
      message: expect.stringContaining('the daemon creates it owner-only (0700)'),
      details: { exists: false },
    })
    // Files others could read are out of reach in a folder they cannot enter.
    const closed = dataFolder(0o700, { 'stockroute.sqlite': 0o644 })
    expect(checkDataFolder({ dataDir: closed })).toMatchObject({ status: 'ok', details: { mode: '0700' } })
  })

  it('warn: a 0755 folder whose files are owner-only, with the chmod that closes it', () => {
    const folder = dataFolder(0o755, { 'stockroute.sqlite': 0o600, 'stockroute.log': 0o600 })
    const check = checkDataFolder({ dataDir: folder })
    expect(check.status).toBe('warn')
    expect(check.message).toBe(
      `the data folder ${folder} (mode 0755): other local users can list the names in it (the files the daemon writes there are owner-only, 0600); to close it: chmod -R go-rwx ${folder}`,
    )
    expect(check.details).toMatchObject({ mode: '0755', exposed: [], writableByOthers: false })
  })

  it('fail: a 0755 folder with a ledger, log or archive others can read, or a folder they can write', () => {
    const older = dataFolder(0o755, {
      'stockroute.sqlite': 0o644,
      'stockroute.sqlite-wal': 0o644,
      'stockroute.log': 0o600,
      'archive/stockroute-2025-06-01.sqlite': 0o644,
    })
    chmodSync(join(older, 'archive'), 0o755)
    const check = checkDataFolder({ dataDir: older })
    expect(check.status).toBe('fail')
    expect(check.details.exposed).toEqual([
      'archive',
      'stockroute.sqlite',
      'stockroute.sqlite-wal',
      'archive/stockroute-2025-06-01.sqlite',
    ])
    expect(check.message).toContain(
      'other local users can read archive, stockroute.sqlite, stockroute.sqlite-wal, archive/stockroute-2025-06-01.sqlite in it (the ledger holds signed transactions before they are broadcast)',
    )
    expect(check.message).toContain(`to close it: chmod -R go-rwx ${older}`)

    const writable = checkDataFolder({ dataDir: dataFolder(0o777) })
    expect(writable.status).toBe('fail')
    expect(writable.message).toContain('other local users can create, rename and delete files in it')
  })

  it('quotes a folder with a space in the chmod it prints', () => {
    const parent = mkdtempSync(join(tmpdir(), 'stockroute-data folder-'))
    const folder = join(parent, "it's data")
    mkdirSync(folder)
    chmodSync(folder, 0o711)
    const check = checkDataFolder({ dataDir: folder })
    expect(check.status).toBe('warn')
    expect(check.message).toContain('other local users can enter it')
    expect(check.details.fix).toBe(`chmod -R go-rwx '${folder.replace("'", "'\\''")}'`)
  })
})

describe('stockroute doctor: data-folder', () => {
  it('fails on a 0755 data folder holding a 0644 ledger (exit 1), and is ok once its chmod ran', async () => {
    const dataDir = join(dir, 'loose-data')
    mkdirSync(dataDir, { mode: 0o755 })
    chmodSync(dataDir, 0o755)
    // A ledger as an older stockroute left it: 0644.
    openLedger({ path: join(dataDir, 'stockroute.sqlite') }).close()
    chmodSync(join(dataDir, 'stockroute.sqlite'), 0o644)
    const path = variant('loose-data', (config) => ({ ...config, dataDir: 'loose-data' }))

    const loose = await doctor('--config', path, '--json')
    expect(loose.code, loose.stderr + loose.stdout).toBe(exitCodes.unreachable)
    const check = find(reportOf(loose), 'data-folder')
    expect(check).toMatchObject({
      status: 'fail',
      details: {
        dataDir,
        mode: '0755',
        // SQLite gives the WAL files a reader makes (the kill-switch check) the ledger's mode.
        exposed: expect.arrayContaining(['stockroute.sqlite']),
        fix: `chmod -R go-rwx ${dataDir}`,
      },
    })
    // The only failure: everything else of the sandbox deployment is fine.
    expect(reportOf(loose).checks.filter((c) => c.status !== 'ok')).toEqual([check])

    execFileSync('sh', ['-c', String(check.details.fix)])
    const fixed = await doctor('--config', path, '--json')
    expect(fixed.code).toBe(exitCodes.ok)
    expect(find(reportOf(fixed), 'data-folder')).toMatchObject({ status: 'ok', details: { mode: '0700' } })
  })
})
