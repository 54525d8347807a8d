import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import {
  makeOwnerOnlyFile,
  makeOwnerOnlyFolder,
  octalMode,
  othersAccessOf,
  tightenToOwnerOnly,
} from '../../src/store/ownerOnlyFiles.js'
import { intent, ledgerFolder } from './ledgerFiles.js'

// The ledger holds signed transactions before they are broadcast: a writer makes it, its WAL and its
// shared memory owner-only (0600) in owner-only folders (0700), whatever the umask lets through, and
// tightens the files an older stockroute left 0644. Read on real files with stat.

const folder = ledgerFolder()
const modeOf = (path: string) => octalMode(statSync(path).mode)

// The usual umask, set for the test: without the code's own modes, files come out 0644, folders 0755.
let umaskBefore = 0
beforeEach(() => {
  umaskBefore = process.umask(0o022)
})
afterEach(() => {
  process.umask(umaskBefore)
})

describe('owner-only ledger files', () => {
  it('a writer creates the missing folders 0700 and the ledger, its WAL and shared memory 0600', () => {
    const path = join(dirname(folder.path()), 'fresh', 'nested', 'stockroute.sqlite')
    const ledger = openLedger({ path })
    try {
      ledger.executions.createExecution(intent('owner-only'))
      expect(modeOf(path)).toBe('0600')
      expect(modeOf(`${path}-wal`)).toBe('0600')
      expect(modeOf(`${path}-shm`)).toBe('0600')
      expect(modeOf(dirname(path))).toBe('0700')
      expect(modeOf(dirname(dirname(path)))).toBe('0700')
    } finally {
      ledger.close()
    }
    expect(modeOf(path)).toBe('0600')
  })

  it('a writer tightens the 0644 ledger, WAL and shared memory an older stockroute left; a reader changes nothing', () => {
    const path = folder.path()
    const first = openLedger({ path })
    try {
      first.executions.createExecution(intent('older'))
      for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodSync(file, 0o644)

      const reader = openLedger({ path, readonly: true })
      reader.close()
      expect(modeOf(path)).toBe('0644')

      // A second writer beside the first (the CLI's halt): the files are open, their modes change.
      const second = openLedger({ path, owner: false })
      second.close()
      expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual(['0600', '0600', '0600'])
    } finally {
      first.close()
    }
  })

  it("leaves an existing folder as it is (it may be the operator's), and reports what others may do with it", () => {
    const shared = join(dirname(folder.path()), 'operator-made')
    mkdirSync(shared, { mode: 0o755 })
    makeOwnerOnlyFolder(shared)
    expect(modeOf(shared)).toBe('0755')
    expect(othersAccessOf(shared)).toEqual({
      mode: 0o755,
      isFolder: true,
      readable: true,
      writable: false,
      enterable: true,
    })
    expect(othersAccessOf(join(shared, 'missing'))).toBeUndefined()

    const file = join(shared, 'stockroute.log')
    writeFileSync(file, 'line\n', { mode: 0o666 })
    chmodSync(file, 0o666)
    expect(othersAccessOf(file)).toMatchObject({ readable: true, writable: true, isFolder: false })
    makeOwnerOnlyFile(file)
    expect(modeOf(file)).toBe('0600')
    expect(tightenToOwnerOnly(file)).toBe(false)
    makeOwnerOnlyFile(join(shared, 'new.sqlite'))
    expect(modeOf(join(shared, 'new.sqlite'))).toBe('0600')
    expect(statSync(join(shared, 'new.sqlite')).size).toBe(0)
  })
})
