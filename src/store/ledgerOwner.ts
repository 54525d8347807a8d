import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename } from 'node:path'
import type Database from 'better-sqlite3'

/** The process that writes a ledger: the one row of `ledger_owner`. */
export type LedgerOwnerRecord = {
  pid: number
  host: string
  /** The process's start time (field 22 of /proc/<pid>/stat), telling a reused pid apart; null off Linux. */
  processStart: string | null
  /** What it runs, e.g. `stockroute start`. */
  command: string
  /** Where its control API listens (`POST /v1/swaps`, `/health`), once it does. */
  controlUrl: string | null
  sinceMs: number
  /** Refreshed while it runs; an owner on another host whose heartbeat is older than the stale limit is gone. */
  heartbeatMs: number
}

/** This process's claim on a ledger (see `Ledger.owner`). */
export type LedgerOwnership = {
  /** The row as written now. */
  record(): LedgerOwnerRecord
  /** The dead owner this process took the ledger over from, if any (killed, or stale on another host). */
  readonly takenOverFrom: LedgerOwnerRecord | undefined
  /**
   * Refreshes the heartbeat (the ledger does it on its own every 15 s while open). False when the
   * row is no longer this process's: another process judged it gone and took the ledger over.
   */
  heartbeat(): boolean
  /** Records where this process's control API listens, for the error other processes get. */
  setControlUrl(url: string | null): void
}

/** The open ledger's handle on its claim: {@link LedgerOwnership} plus its release on close. */
export type HeldLedgerOwnership = LedgerOwnership & {
  /** Deletes the row if it is this process's and no other connection of this process holds it. Never throws. */
  release(): void
}

/** An owner on another host is taken for gone once its heartbeat is older than this. */
export const ledgerOwnerStaleAfterMs = 60_000

/** How often an open ledger refreshes its owner's heartbeat. */
export const ledgerOwnerHeartbeatMs = 15_000

/** Open connections of this process that hold the claim, by ledger path: the last one releases it. */
const holders = new Map<string, number>()

type OwnerRow = {
  pid: number
  host: string
  process_start: string | null
  command: string
  control_url: string | null
  since_ms: number
  heartbeat_ms: number
}

function recordOf(row: OwnerRow): LedgerOwnerRecord {
  return {
    pid: row.pid,
    host: row.host,
    processStart: row.process_start,
    command: row.command,
    controlUrl: row.control_url,
    sinceMs: row.since_ms,
    heartbeatMs: row.heartbeat_ms,
  }
}

/** The ledger's owner row, if any. */
export function readLedgerOwner(db: Database.Database): LedgerOwnerRecord | undefined {
  const row = db
    .prepare<[], OwnerRow>(
      'SELECT pid, host, process_start, command, control_url, since_ms, heartbeat_ms FROM ledger_owner WHERE id = 1',
    )
    .get()
  return row ? recordOf(row) : undefined
}

/**
 * The start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * undefined where there is no /proc or no such process.
 */
export function processStartOf(pid: number): string | undefined {
  const stat = readProcStat(pid)
  return stat?.fields[19]
}

/** Fields of /proc/<pid>/stat from the third on (state first), the command name skipped. */
function readProcStat(pid: number): { fields: string[] } | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  return {
    fields: stat
      .slice(stat.lastIndexOf(')') + 2)
      .trim()
      .split(' '),
  }
}

/**
 * A short name of what this process runs, for the owner row: the script's name and its first
 * argument that is no option, e.g. `stockroute start` (arguments that may hold secrets are left out).
 */
export function defaultOwnerCommand(argv: readonly string[] = process.argv): string {
  const script = argv[1] ? basename(argv[1]).replace(/\.[cm]?[jt]s$/, '') : 'node'
  const subcommand = argv.slice(2).find((argument) => !argument.startsWith('-'))
  return subcommand && /^[\w:-]{1,40}$/.test(subcommand) ? `${script} ${subcommand}` : script
}

/** This process, as an owner row sees it. */
function self(): { pid: number; host: string; processStart: string | null } {
  return { pid: process.pid, host: hostname(), processStart: processStartOf(process.pid) ?? null }
}

function isSelf(owner: LedgerOwnerRecord, me: ReturnType<typeof self>): boolean {
  return (
    owner.pid === me.pid &&
    owner.host === me.host &&
    (owner.processStart === null || me.processStart === null || owner.processStart === me.processStart)
  )
}

/**
 * Whether the process an owner row names still runs. On this host: `kill(pid, 0)` answers, it is
 * no zombie, and its start time is the recorded one (else the pid was reused). On another host
 * (whose pids mean nothing here): its heartbeat is younger than `staleAfterMs`.
 */
export function isLedgerOwnerAlive(
  owner: LedgerOwnerRecord,
  options: { nowMs: number; staleAfterMs?: number | undefined },
): boolean {
  if (owner.host !== hostname())
    return options.nowMs - owner.heartbeatMs <= (options.staleAfterMs ?? ledgerOwnerStaleAfterMs)
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
  }
  const stat = readProcStat(owner.pid)
  if (!stat) return true // no /proc: trust kill(pid, 0)
  const state = stat.fields[0]
  if (state === 'Z' || state === 'X') return false
  return owner.processStart === null || stat.fields[19] === owner.processStart
}

/** The outcome of {@link takeLedgerOwnership}. */
export type TakeLedgerOwnershipResult =
  | { taken: true; ownership: HeldLedgerOwnership }
  | { taken: false; owner: LedgerOwnerRecord }

/**
 * Claims the ledger for this process, in one BEGIN IMMEDIATE transaction (two processes can never
 * both hold it): taken when there is no owner, the owner is gone (see {@link isLedgerOwnerAlive})
 * or is this process (a second connection of one process shares the claim). Otherwise returns the
 * live owner, and writes nothing.
 *
 * @example
 * const result = takeLedgerOwnership({ db, path, command: 'stockroute start', now: Date.now })
 * if (!result.taken) throw new Error(`in use by ${result.owner.pid}`)
 */
export function takeLedgerOwnership(parameters: {
  db: Database.Database
  path: string
  command: string
  now: () => number
  staleAfterMs?: number | undefined
  /** Cluster mode: the owner is gone even if its process runs (it lost the wallets' leases). */
  takeOverLiveOwner?: boolean | undefined
}): TakeLedgerOwnershipResult {
  const { db, path, now } = parameters
  const me = self()
  type Claim =
    | { taken: false; owner: LedgerOwnerRecord }
    | { taken: true; previous: LedgerOwnerRecord | undefined }
  const claim = db.transaction((): Claim => {
    const current = readLedgerOwner(db)
    const nowMs = now()
    if (current && isSelf(current, me)) {
      db.prepare('UPDATE ledger_owner SET heartbeat_ms = ? WHERE id = 1').run(nowMs)
      return { taken: true, previous: undefined }
    }
    if (
      current &&
      !parameters.takeOverLiveOwner &&
      isLedgerOwnerAlive(current, { nowMs, staleAfterMs: parameters.staleAfterMs })
    )
      return { taken: false, owner: current }
    db.prepare(
      `INSERT INTO ledger_owner (id, pid, host, process_start, command, control_url, since_ms, heartbeat_ms)
       VALUES (1, ?, ?, ?, ?, NULL, ?, ?)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
         process_start = excluded.process_start, command = excluded.command, control_url = NULL,
         since_ms = excluded.since_ms, heartbeat_ms = excluded.heartbeat_ms`,
    ).run(me.pid, me.host, me.processStart, parameters.command.slice(0, 200), nowMs, nowMs)
    return { taken: true, previous: current }
  })
  const outcome = claim.immediate()
  if (!outcome.taken) return outcome
  const takenOverFrom = outcome.previous

  holders.set(path, (holders.get(path) ?? 0) + 1)
  const ours = 'WHERE id = 1 AND pid = ? AND host = ?'
  let released = false
  const ownership: HeldLedgerOwnership = {
    takenOverFrom,
    record() {
      const record = readLedgerOwner(db)
      if (!record) throw new Error(`the ledger ${path} has no owner row`)
      return record
    },
    heartbeat() {
      return (
        db.prepare(`UPDATE ledger_owner SET heartbeat_ms = ? ${ours}`).run(now(), me.pid, me.host).changes > 0
      )
    },
    setControlUrl(url) {
      db.prepare(`UPDATE ledger_owner SET control_url = ?, heartbeat_ms = ? ${ours}`).run(
        url,
        now(),
        me.pid,
        me.host,
      )
    },
    release() {
      if (released) return
      released = true
      const left = (holders.get(path) ?? 1) - 1
      if (left > 0) {
        holders.set(path, left)
        return
      }
      holders.delete(path)
      if (!db.open) return
      try {
        // Closing must not hang on another process's write lock; a row left behind names a dead
        // process and the next opener takes over.
        db.pragma('busy_timeout = 1000')
        db.prepare(`DELETE FROM ledger_owner ${ours}`).run(me.pid, me.host)
      } catch {
        // Left behind: see above.
      }
    },
  }
  return { taken: true, ownership }
}

/** The owner, in one line for an error: pid, host, command, since when, control API. */
export function describeLedgerOwner(owner: LedgerOwnerRecord): string {
  return `process ${owner.pid} on ${owner.host} (${owner.command}), its writer since ${new Date(owner.sinceMs).toISOString()}${owner.controlUrl ? `, control API ${owner.controlUrl}` : ''}`
}
