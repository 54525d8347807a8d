import { realpathSync, statSync } from 'node:fs'
import { resolve, sep } from 'node:path'
import { type Ledger, LedgerError, openLedger } from '../../store/index.js'
import { ReportUsageError } from './reportUsageError.js'

/** The ledgers `stockroute report --ledger A --ledger B` reads, opened read-only, each with its name. */
export type ReportLedgers = {
  ledgers: { name: string; path: string; ledger: Ledger }[]
  close(): void
}

/**
 * Opens the ledger files of `stockroute report --ledger`, read-only, in the order given, each named
 * by {@link ledgerNames}. Throws, having closed what it opened: `LedgerError` `LEDGER_NOT_FOUND`
 * (exit 4) for a file that is not there; `LEDGER_OPEN_FAILED`, `LEDGER_NOT_STOCKROUTE` and the
 * other ledger codes (exit 7) for a folder, an empty file, a file that is not a stockroute ledger
 * or one of another schema version; {@link ReportUsageError} (exit 2) for a file given twice (by
 * another path, a link or a hard link too).
 *
 * @example
 * const { ledgers, close } = openReportLedgers(['a/stockroute.sqlite', 'b/stockroute.sqlite'])
 * ledgers.map((entry) => entry.name) // ['a', 'b']
 */
export function openReportLedgers(files: readonly string[]): ReportLedgers {
  const seen = new Map<string, string>()
  for (const file of files) {
    const identity = fileIdentity(file)
    const earlier = seen.get(identity)
    if (earlier !== undefined)
      throw new ReportUsageError(
        earlier === file
          ? `--ledger ${file} is given twice: each ledger is read once`
          : `--ledger ${file} and --ledger ${earlier} are the same file: each ledger is read once`,
        'give each ledger file once',
      )
    seen.set(identity, file)
  }
  const names = ledgerNames(files)
  const opened: ReportLedgers['ledgers'] = []
  const close = () => {
    for (const entry of opened) entry.ledger.close()
  }
  try {
    files.forEach((file, index) => {
      const ledger = openLedger({ path: file, readonly: true })
      opened.push({ name: names[index] ?? file, path: ledger.path, ledger })
    })
  } catch (error) {
    close()
    throw error
  }
  return { ledgers: opened, close }
}

/**
 * The names of ledger files in a report (its `ledger` column, kept short for the terminal): the
 * parts of their paths that tell them apart, without the end they share. Each daemon's
 * `/srv/eu/data/stockroute.sqlite` and `/srv/us/data/stockroute.sqlite` are `eu` and `us`;
 * `shard-a.sqlite` and `shard-b.sqlite` keep their file names. The report's first note gives each
 * name's path.
 *
 * @example
 * ledgerNames(['/srv/eu/data/stockroute.sqlite', '/srv/us/data/stockroute.sqlite']) // ['eu', 'us']
 */
export function ledgerNames(files: readonly string[]): string[] {
  const paths = files.map((file) =>
    resolve(file)
      .split(sep)
      .filter((part) => part !== ''),
  )
  // Drop the end every path shares (`data/stockroute.sqlite`), as long as each keeps a part.
  let shared = 0
  while (
    paths.length > 1 &&
    paths.every((segments) => segments.length > shared + 1) &&
    new Set(paths.map((segments) => segments[segments.length - 1 - shared])).size === 1
  )
    shared++
  const kept = paths.map((segments) => segments.slice(0, segments.length - shared))
  const longest = Math.max(...kept.map((segments) => segments.length))
  for (let count = 1; count <= longest; count++) {
    const names = kept.map((segments) => segments.slice(-count).join('/'))
    if (new Set(names).size === names.length) return names
  }
  return files.map((file) => resolve(file))
}

/** The file's identity (device and inode), after checking it is a file that may be a ledger. */
function fileIdentity(file: string): string {
  let stats: ReturnType<typeof statSync>
  try {
    stats = statSync(file)
  } catch {
    throw new LedgerError({
      code: 'LEDGER_NOT_FOUND',
      shortMessage: `--ledger ${file}: there is no such file (${resolve(file)}).`,
      remedy: "give the path of a daemon's ledger (its dataDir/stockroute.sqlite)",
      details: { path: resolve(file) },
    })
  }
  const notALedger = (why: string) =>
    new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `--ledger ${file} is not a ledger: ${why}.`,
      remedy: "give the path of a daemon's ledger file (its dataDir/stockroute.sqlite)",
      details: { path: resolve(file) },
    })
  if (!stats.isFile()) throw notALedger(stats.isDirectory() ? 'it is a folder' : 'it is not a file')
  if (stats.size === 0) throw notALedger('the file is empty')
  // Device and inode: the same file by another path, a symbolic or a hard link is the same ledger.
  return stats.ino === 0 ? realpathSync(file) : `${stats.dev}:${stats.ino}`
}
