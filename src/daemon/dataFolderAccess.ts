import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { octalMode, othersAccessOf } from '../store/ownerOnlyFiles.js'

/** Names (and paths) longer than this are cut in messages: the list is a hint, not an inventory. */
const namesShown = 5

/** What other local users may do with the data folder, as doctor and the daemon's start report it. */
export type DataFolderAccess =
  /** No data folder yet: the daemon creates it owner-only (0700) at its first start. */
  | { status: 'missing'; path: string; message: string }
  /** Only its owner uses it (or this system has no file modes). */
  | { status: 'ok'; path: string; mode: number | undefined; message: string }
  /**
   * Other users can reach it. `warn`: they can list its names, its files are owner-only. `fail`:
   * they can read a file in it (`exposed`), or create, rename and delete files in it.
   */
  | {
      status: 'warn' | 'fail'
      path: string
      mode: number
      /** Files (and folders) in it, and in its `archive/`, that the group or others may read or write. */
      exposed: string[]
      /** Whether others may create, rename and delete files in it. */
      writable: boolean
      /** The command that closes it: `chmod -R go-rwx <folder>`. */
      fix: string
      message: string
    }

/**
 * What the group and other local users may do with `dataDir` and the files in it (one level, and
 * its `archive/` folder): the ledger holds signed transactions before they are broadcast, the log
 * and the archives the trading history, the token file the key to the control API. The daemon
 * creates all of them owner-only; a folder the operator made, or files an older stockroute left,
 * may be looser. Never changes anything.
 *
 * @example
 * const access = dataFolderAccess('/srv/stockroute/data')
 * if (access.status !== 'ok' && access.status !== 'missing') console.error(access.message)
 * // 'the data folder /srv/stockroute/data (mode 0755) can be listed by other local users …; to close it: chmod -R go-rwx /srv/stockroute/data'
 */
export function dataFolderAccess(dataDir: string): DataFolderAccess {
  const folder = othersAccessOf(dataDir)
  if (!folder)
    return {
      status: 'missing',
      path: dataDir,
      message: `no data folder yet at ${dataDir}: the daemon creates it owner-only (0700) at its first start`,
    }
  // Files in a folder only its owner may enter are out of other users' reach, whatever their modes.
  if (!folder.readable && !folder.enterable && !folder.writable)
    return {
      status: 'ok',
      path: dataDir,
      mode: folder.mode,
      message: `the data folder ${dataDir} (mode ${octalMode(folder.mode)}) is its owner's only`,
    }
  const exposed = folder.isFolder ? exposedEntries(dataDir) : []
  const fix = `chmod -R go-rwx ${shellWord(dataDir)}`
  // A file others can read matters only where they can reach it: through a folder they may enter.
  const readableByOthers = folder.enterable ? exposed : []
  const status = folder.writable || readableByOthers.length > 0 ? 'fail' : 'warn'
  const what: string[] = []
  if (folder.writable)
    what.push('other local users can create, rename and delete files in it, the ledger included')
  if (readableByOthers.length > 0)
    what.push(
      `other local users can read ${listed(readableByOthers)} in it (the ledger holds signed transactions before they are broadcast)`,
    )
  if (what.length === 0)
    what.push(
      folder.readable
        ? 'other local users can list the names in it (the files the daemon writes there are owner-only, 0600)'
        : 'other local users can enter it (the files the daemon writes there are owner-only, 0600)',
    )
  return {
    status,
    path: dataDir,
    mode: folder.mode,
    exposed,
    writable: folder.writable,
    fix,
    message: `the data folder ${dataDir} (mode ${octalMode(folder.mode)}): ${what.join('; ')}; to close it: ${fix}`,
  }
}

/** The entries of `dataDir` and of its `archive/` that the group or others may read or write. */
function exposedEntries(dataDir: string): string[] {
  const exposed: string[] = []
  const look = (folder: string, prefix: string) => {
    let names: string[]
    try {
      names = readdirSync(folder).sort()
    } catch {
      return
    }
    for (const name of names) {
      const access = othersAccessOf(join(folder, name))
      if (access && (access.readable || access.writable)) exposed.push(`${prefix}${name}`)
    }
  }
  look(dataDir, '')
  look(join(dataDir, 'archive'), 'archive/')
  return exposed
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, namesShown).join(', ')
  return names.length > namesShown ? `${shown} and ${names.length - namesShown} more` : shown
}

/** `path` as one word of a POSIX shell command: quoted when it has anything but safe characters. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`
}
