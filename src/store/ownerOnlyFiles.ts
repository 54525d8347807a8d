// Files and folders only their owner may use: the ledger holds signed transactions before they are
// broadcast (`transactions.raw`), the log and the archives hold the trading history, so whatever
// stockroute writes in its data folder is mode 0600 in folders of mode 0700. The permission bits
// are the only protection against the other users of the machine, so they are set when a file is
// created (never "0644, then chmod": a reader could open it in between) and tightened when a file
// of ours was made looser by an older stockroute.
import { chmodSync, closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs'

/** The mode of a folder stockroute creates for its data: its owner reads, writes and enters it. */
export const ownerOnlyFolderMode = 0o700
/** The mode of a file stockroute writes in its data folder: its owner reads and writes it. */
export const ownerOnlyFileMode = 0o600

/** Permission bits that give the group or the other users any access. */
const othersBits = 0o077

/**
 * Creates `path` (and its missing parents) with mode 0700, less what the umask takes away. A folder
 * that already exists is left as it is: it may be the operator's own (`dataDir` pointed at an
 * existing folder), and doctor and the daemon's start say when it lets other users in.
 *
 * @example
 * makeOwnerOnlyFolder('/srv/stockroute/data') // created 0700 when missing
 */
export function makeOwnerOnlyFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: ownerOnlyFolderMode })
}

/**
 * Makes `path` a file only its owner can use: a missing one is created empty with mode 0600 (an
 * empty file is a new SQLite database, and a log file opened for appending starts empty), an
 * existing one is tightened like {@link tightenToOwnerOnly}. The parent folder must exist.
 *
 * @example
 * makeOwnerOnlyFile('/srv/stockroute/data/stockroute.sqlite')
 */
export function makeOwnerOnlyFile(path: string): void {
  let fd: number
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, ownerOnlyFileMode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    tightenToOwnerOnly(path)
    return
  }
  closeSync(fd)
}

/**
 * Takes the group's and other users' bits away from `path` (a file stockroute wrote, or a folder it
 * created such as `data/archive`) when this user owns it: `0644` becomes `0600`, `0755` becomes
 * `0700`. A missing path, another user's file and a file system without modes (EPERM, ENOTSUP) are
 * left alone. Returns whether the mode changed.
 *
 * @example
 * tightenToOwnerOnly('/srv/stockroute/data/stockroute.log') // true when it was 0644
 */
export function tightenToOwnerOnly(path: string): boolean {
  if (process.platform === 'win32') return false
  let stat: ReturnType<typeof statSync>
  try {
    stat = statSync(path)
  } catch {
    return false
  }
  if ((stat.mode & othersBits) === 0) return false
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return false
  try {
    chmodSync(path, stat.mode & 0o700)
    return true
  } catch {
    return false
  }
}

/** What the group and the other users of the machine may do with a file or folder. */
export type OthersAccess = {
  /** The permission bits, e.g. `0o755`. */
  mode: number
  isFolder: boolean
  /** The group or others may read it (a folder: list its names). */
  readable: boolean
  /** The group or others may write it (a folder: create, rename and delete its files). */
  writable: boolean
  /** A folder the group or others may enter (reach the files in it by name). */
  enterable: boolean
}

/**
 * What the group and the other users may do with `path`, or undefined when it does not exist (or
 * on Windows, which has no such modes).
 *
 * @example
 * othersAccessOf('/srv/stockroute/data') // { mode: 0o755, isFolder: true, readable: true, writable: false, enterable: true }
 */
export function othersAccessOf(path: string): OthersAccess | undefined {
  if (process.platform === 'win32') return undefined
  let stat: ReturnType<typeof statSync>
  try {
    stat = statSync(path)
  } catch {
    return undefined
  }
  const mode = stat.mode & 0o777
  const isFolder = stat.isDirectory()
  return {
    mode,
    isFolder,
    readable: (mode & 0o044) !== 0,
    writable: (mode & 0o022) !== 0,
    enterable: isFolder && (mode & 0o011) !== 0,
  }
}

/**
 * A mode as `ls` people read it in commands: `0755`.
 *
 * @example
 * octalMode(0o755) // '0755'
 */
export function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`
}
