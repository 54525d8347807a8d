import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { type AllowancesRepository, createAllowancesRepository } from './allowances.js'
import { type ChainAssetsRepository, createChainAssetsRepository } from './chainAssets.js'
import { type CheckpointsRepository, createCheckpointsRepository } from './checkpoints.js'
import { createCommitGroup } from './commitGroup.js'
import type { RepositoryContext } from './context.js'
import { createEquityMarksRepository, type EquityMarksRepository } from './equityMarks.js'
import { createEventsRepository, type EventsRepository } from './events.js'
import { createExecutionsRepository, type ExecutionsRepository } from './executions.js'
import { createFillsRepository, type FillsRepository } from './fills.js'
import { createIncomeRepository, type IncomeRepository } from './income.js'
import { LedgerError } from './ledgerError.js'
import {
  defaultOwnerCommand,
  describeLedgerOwner,
  type HeldLedgerOwnership,
  type LedgerOwnership,
  ledgerOwnerHeartbeatMs,
  takeLedgerOwnership,
} from './ledgerOwner.js'
import type { Migration } from './migration.js'
import type { MigrationProgress } from './migrationProgress.js'
import { migrations as ledgerMigrations } from './migrations.js'
import { createNoncesRepository, type NoncesRepository } from './nonces.js'
import {
  createNotificationOutboxRepository,
  type NotificationOutboxRepository,
} from './notificationOutbox.js'
import { makeOwnerOnlyFile, makeOwnerOnlyFolder, tightenToOwnerOnly } from './ownerOnlyFiles.js'
import { createPositionsRepository, type PositionsRepository } from './positions.js'
import { createProtectiveStateRepository, type ProtectiveStateRepository } from './protectiveState.js'
import { createRiskRepository, type RiskRepository } from './risk.js'
import { assertStockrouteFile, checkReadonlyVersion, migrate } from './schemaVersion.js'
import { createStorageFaultMonitor, observeErrors, type StorageFault } from './storageFault.js'
import { createStrategySwitchesRepository, type StrategySwitchesRepository } from './strategySwitches.js'
import {
  createTransactionOutcomesRepository,
  type TransactionOutcomesRepository,
} from './transactionOutcomes.js'
import { createTransactionsRepository, type TransactionsRepository } from './transactions.js'
import { useWalJournal } from './useWalJournal.js'
import { startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.js'
import { createWalletFencesRepository, type WalletFencesRepository } from './walletFences.js'

export type OpenLedgerParameters = {
  /**
   * The SQLite file (`config.ledgerPath`; dry runs use a file of their own). A writer creates it and
   * its parent folders owner-only (0600 files, 0700 folders; see ownerOnlyFiles.ts).
   */
  path: string
  /** Open for reading only (reports): never creates, migrates or writes; the schema must be current. */
  readonly?: boolean | undefined
  /** How long a write waits for another process's write lock before failing (default 5000 ms). */
  busyTimeoutMs?: number | undefined
  /** The ledger's clock in Unix milliseconds (default `Date.now`). */
  now?: (() => number) | undefined
  /**
   * Who writes the ledger. By default this process claims it (one writer per ledger): the open
   * fails with `LEDGER_IN_USE` while another live process holds it, and a claim left by a killed
   * process is taken over. `command` names this process in the other's error (default: the script
   * and its subcommand, e.g. `stockroute start`). `false` opens without a claim, beside a running
   * owner: only for single atomic writes that are safe under it (`stockroute halt`/`resume`) and
   * for tests that race two writers on purpose. Read-only opens never claim. A second open in the
   * same process shares the claim; it is released when the last one closes.
   */
  owner?:
    | {
        command: string
        /**
         * Cluster mode: take the ledger over even from a live owner, because this process holds the
         * leases of the ledger's wallets and the owner (frozen, or cut off from Redis) no longer
         * does; the wallet fences keep it from storing anything it signs (docs/scale-out.md).
         */
        takeOverLiveOwner?: boolean | undefined
      }
    | false
    | undefined
  /**
   * Fault switch for tests and drills: `PRAGMA max_page_count`, so that a write that would grow the
   * file beyond this many pages fails with SQLITE_FULL, a real "disk full" as SQLite sees it (the
   * limit never goes below the file's current size). Default: the environment variable
   * `STOCKROUTE_LEDGER_MAX_PAGES` when set, else no limit. Ignored by read-only opens.
   */
  maxPageCount?: number | undefined
  /**
   * Where the WAL is copied into the database file. `background` (the default for a writer that
   * claims the ledger): a worker thread does it, off the JS thread that signs and commits, from a
   * second after the open (see walCheckpointer.ts). `inline`: SQLite does it inside the commit
   * that crosses a thousand pages, as it does by default (the default for `owner: false`).
   * Read-only opens never checkpoint.
   */
  walCheckpoints?: 'background' | 'inline' | undefined
  /** Called once if the background checkpointer fails (the connection then checkpoints inline again: nothing is lost). */
  onWalCheckpointerError?: ((error: Error) => void) | undefined
  /**
   * Called while a migration runs on a ledger written by an older stockroute (migration 7: about a
   * minute per million fills, first its schema changes one statement at a time, then its backfill
   * steps), synchronously from inside the open: for each step `0` of its total first, then every 1%
   * (at least every 10,000 rows), then the total. Counts only grow within a step; an error it throws
   * is ignored. Absent: the open is silent. `migrationProgressPrinter` prints a line a second.
   */
  onMigrationProgress?: ((progress: MigrationProgress) => void) | undefined
  /** @internal Tests only: the migrations to apply instead of the ledger's. */
  migrations?: readonly Migration[] | undefined
}

/** An open ledger: its repositories, bound to one SQLite connection. */
export type Ledger = {
  readonly path: string
  readonly readonly: boolean
  /** The schema version of the file (the last applied migration). */
  readonly schemaVersion: number
  /** The connection, for read queries of reports. Write through the repositories only. */
  readonly database: Database.Database
  readonly executions: ExecutionsRepository
  readonly transactions: TransactionsRepository
  /** What the chain decided about our transactions, handed from the transaction managers to the engine. */
  readonly transactionOutcomes: TransactionOutcomesRepository
  readonly nonces: NoncesRepository
  readonly fills: FillsRepository
  readonly positions: PositionsRepository
  /** Dividends and other income, each recorded once (by the corporate-actions job). */
  readonly income: IncomeRepository
  readonly risk: RiskRepository
  readonly checkpoints: CheckpointsRepository
  /** Allowances left open by approvals whose execute was never sent. */
  readonly allowances: AllowancesRepository
  /** The numbered event stream (transitions, fills, halts…) behind `GET /v1/events` and notifications. */
  readonly events: EventsRepository
  /** Strategies an operator switched on or off (through the control API). */
  readonly strategySwitches: StrategySwitchesRepository
  /** Cluster mode: the newest lease that took each wallet over (docs/scale-out.md). */
  readonly walletFences: WalletFencesRepository
  /** What `protect` strategies remember: epochs, trailing high-water marks, exits that fired (migration 11). */
  readonly protectiveState: ProtectiveStateRepository
  /** The chains' payment assets (symbols for reports). */
  readonly chainAssets: ChainAssetsRepository
  /** The open positions valued at the market over time (the dashboard's equity curve). */
  readonly equityMarks: EquityMarksRepository
  /** The notification outbox: per sink, the events still to deliver (src/daemon/notifications). */
  readonly notifications: NotificationOutboxRepository
  /** The background WAL checkpointer (see `walCheckpoints`), or undefined when SQLite checkpoints inline. */
  readonly walCheckpointer: WalCheckpointer | undefined
  /**
   * This process's claim on the ledger (see `owner` of {@link OpenLedgerParameters}); undefined
   * for read-only opens and `owner: false`. The daemon records its control URL here.
   */
  readonly owner: LedgerOwnership | undefined
  /**
   * The first storage fault a repository call or {@link Ledger.atomically} hit (disk full,
   * read-only file, I/O error, corrupt file), or undefined. Once set, it stays: nothing may be
   * signed, and the process should stop. The failed write was rolled back.
   */
  readonly storageFault: StorageFault | undefined
  /**
   * Calls `listener` once with the first storage fault, in a microtask after the failing call
   * threw (at once, in a microtask, if there already is one). Returns the unsubscribe function.
   *
   * @example
   * ledger.onStorageFault((fault) => logger.error(fault, `${fault.reason}: ${fault.remedy}`))
   */
  onStorageFault(listener: (fault: StorageFault) => void): () => void
  /**
   * Runs `work` in one write transaction (BEGIN IMMEDIATE): repository calls inside it commit
   * together or not at all (each becomes a savepoint). `work` must be synchronous.
   *
   * @example
   * ledger.atomically(() => {
   *   ledger.transactions.markMined(chainId, hash, { blockNumber, status: 'success' })
   *   ledger.fills.recordFill(fill)
   *   ledger.executions.transition(executionId, 'submitted', 'confirmed', 'receipt success')
   * })
   */
  atomically<T>(work: () => T): T
  /**
   * Runs `work` (synchronous) in the write transaction shared by every `commitSoon` of this turn of
   * the event loop, in its own savepoint, and resolves once that transaction has committed: one
   * fsync for a burst of writes that can wait a moment (see commitGroup.ts).
   *
   * @example
   * const execution = await ledger.commitSoon(() => ledger.executions.createExecution(newExecution))
   */
  commitSoon<T>(work: () => T): Promise<T>
  /**
   * Calls `listener` after each write transaction made through `atomically` or `commitSoon` (the
   * transaction managers' critical sections, receipts and fills; not a lone repository call's own)
   * with how long it held the JS thread, ms: its statements, its COMMIT and the disk's fsync. For
   * the daemon's `stockroute_ledger_write_seconds`. Returns the unsubscribe function.
   */
  onWriteTransaction(listener: (ms: number) => void): () => void
  /**
   * Releases this process's claim (if it was the last connection holding it) and closes the
   * connection (the WAL is checkpointed when the last connection closes). Idempotent.
   */
  close(): void
}

/**
 * Opens (creating it if needed) the SQLite ledger at `path`: WAL journal, `synchronous=FULL`
 * (a committed fill survives a power cut), foreign keys on, a busy timeout so that the daemon and
 * the CLI can share the file; applies pending migrations, each in its own transaction; refuses a
 * file written by a newer version; claims the ledger for this process (refused with
 * `LEDGER_IN_USE` while another live process writes it). Every repository call watches for
 * storage faults ({@link Ledger.storageFault}). Throws {@link LedgerError}.
 *
 * @example
 * const ledger = openLedger({ path: config.ledgerPath })
 * try {
 *   const execution = ledger.executions.createExecution({ intentId, chainId, ticker: 'AAPL', exchange: 0,
 *     side: 'buy', amountIn: '1000', amountType: 'stablecoin' })
 * } finally {
 *   ledger.close()
 * }
 */
export function openLedger(parameters: OpenLedgerParameters): Ledger {
  const path = resolve(parameters.path)
  const readonly = parameters.readonly ?? false
  const now = parameters.now ?? Date.now
  const timeout = parameters.busyTimeoutMs ?? 5000
  const maxPageCount = readonly ? undefined : maxPageCountOf(parameters.maxPageCount, path)
  const db = openConnection(path, readonly, timeout)

  let claimed: HeldLedgerOwnership | undefined
  try {
    const schemaVersion = prepareSchema(db, { path, readonly, timeout, now, parameters })
    const ownership =
      readonly || parameters.owner === false
        ? undefined
        : claimLedger(db, path, {
            command: parameters.owner?.command ?? defaultOwnerCommand(),
            now,
            takeOverLiveOwner: parameters.owner?.takeOverLiveOwner ?? false,
          })
    claimed = ownership
    if (maxPageCount !== undefined) db.pragma(`max_page_count = ${maxPageCount}`)
    return ledgerOver(db, { path, readonly, now, schemaVersion, ownership, parameters })
  } catch (error) {
    claimed?.release()
    db.close()
    throw error
  }
}

/**
 * The SQLite connection: the file must exist when read-only. A writer creates its missing parent
 * folders (0700) and the file itself (0600) before SQLite opens it, and tightens a file of an older
 * stockroute (0644): SQLite gives the WAL and shared-memory files it creates the database file's
 * mode, so the whole ledger, signed transactions included, is readable by its owner only.
 */
function openConnection(path: string, readonly: boolean, timeout: number): Database.Database {
  if (readonly && !existsSync(path))
    throw new LedgerError({
      code: 'LEDGER_NOT_FOUND',
      shortMessage: `No ledger at ${path}: check the path (config dataDir), or run the daemon once to create it.`,
      details: { path },
    })
  try {
    if (!readonly) {
      makeOwnerOnlyFolder(dirname(path))
      makeOwnerOnlyFile(path)
      for (const suffix of ['-wal', '-shm']) tightenToOwnerOnly(`${path}${suffix}`)
    }
    return new Database(path, { readonly, fileMustExist: readonly, timeout })
  } catch (error) {
    throw new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `Cannot open the ledger ${path}: ${(error as Error).message}. Check that the folder exists and is writable.`,
      details: { path },
      cause: error,
    })
  }
}

/**
 * Checks that the file is a stockroute ledger, sets its journal (WAL, for a writer) and pragmas,
 * and brings its schema up to date (a read-only open only checks it). Returns the schema version.
 */
function prepareSchema(
  db: Database.Database,
  opening: {
    path: string
    readonly: boolean
    timeout: number
    now: () => number
    parameters: OpenLedgerParameters
  },
): number {
  const { path, readonly, timeout, now, parameters } = opening
  const migrations = parameters.migrations ?? ledgerMigrations
  try {
    assertStockrouteFile(db, path)
  } catch (error) {
    if (error instanceof LedgerError) throw error
    throw new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `Cannot read the ledger ${path}: ${(error as Error).message}. Is it a SQLite file? Point the ledger path at a new file or a stockroute ledger.`,
      details: { path },
      cause: error,
    })
  }
  if (!readonly) useWalJournal({ db, path, timeoutMs: timeout })
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  return readonly
    ? checkReadonlyVersion(db, path, migrations)
    : migrate(db, path, migrations, now, parameters.onMigrationProgress)
}

/** The ledger over a connection whose schema is current (and claimed, unless read-only or `owner: false`). */
function ledgerOver(
  db: Database.Database,
  opened: {
    path: string
    readonly: boolean
    now: () => number
    schemaVersion: number
    ownership: HeldLedgerOwnership | undefined
    parameters: OpenLedgerParameters
  },
): Ledger {
  const { path, readonly, now, schemaVersion, ownership, parameters } = opened
  const faults = createStorageFaultMonitor({ path, now })
  // Every function of every repository (and atomically) reports a storage fault before rethrowing.
  const watched = <T extends object>(repository: T): T => observeErrors(repository, faults.observe)
  const context: RepositoryContext = { db, now }
  const positions = createPositionsRepository(context)
  const heartbeat = ownership ? startHeartbeat(ownership, faults.observe) : undefined
  const writeListeners = new Set<(ms: number) => void>()
  const transaction = watched({ atomically: timedAtomically(db, writeListeners) })
  const group = createCommitGroup(transaction.atomically)
  const checkpointMode = parameters.walCheckpoints ?? (ownership ? 'background' : 'inline')
  const walCheckpointer =
    !readonly && checkpointMode === 'background'
      ? startWalCheckpointer({ db, path, onError: parameters.onWalCheckpointerError })
      : undefined
  return {
    path,
    readonly,
    schemaVersion,
    database: db,
    ...repositoriesOver(context, positions, watched),
    walCheckpointer,
    owner: ownership
      ? watched<LedgerOwnership>({
          takenOverFrom: ownership.takenOverFrom,
          record: ownership.record,
          heartbeat: ownership.heartbeat,
          setControlUrl: ownership.setControlUrl,
        })
      : undefined,
    get storageFault() {
      return faults.fault
    },
    onStorageFault: (listener) => faults.subscribe(listener),
    atomically: transaction.atomically,
    onWriteTransaction(listener) {
      writeListeners.add(listener)
      return () => writeListeners.delete(listener)
    },
    commitSoon: (work) => group.run(work),
    close() {
      clearInterval(heartbeat)
      walCheckpointer?.stop()
      ownership?.release()
      if (db.open) db.close()
    },
  }
}

type LedgerRepositories = Pick<
  Ledger,
  | 'executions'
  | 'transactions'
  | 'transactionOutcomes'
  | 'nonces'
  | 'fills'
  | 'positions'
  | 'income'
  | 'risk'
  | 'checkpoints'
  | 'allowances'
  | 'events'
  | 'strategySwitches'
  | 'walletFences'
  | 'protectiveState'
  | 'chainAssets'
  | 'equityMarks'
  | 'notifications'
>

/** Every repository of the ledger, each watched for storage faults. */
function repositoriesOver(
  context: RepositoryContext,
  positions: PositionsRepository,
  watched: <T extends object>(repository: T) => T,
): LedgerRepositories {
  return {
    executions: watched(createExecutionsRepository(context)),
    transactions: watched(createTransactionsRepository(context)),
    transactionOutcomes: watched(createTransactionOutcomesRepository(context)),
    nonces: watched(createNoncesRepository(context)),
    fills: watched(createFillsRepository(context, positions)),
    positions: watched(positions),
    income: watched(createIncomeRepository(context)),
    risk: watched(createRiskRepository(context)),
    checkpoints: watched(createCheckpointsRepository(context)),
    allowances: watched(createAllowancesRepository(context)),
    events: watched(createEventsRepository(context)),
    strategySwitches: watched(createStrategySwitchesRepository(context)),
    walletFences: watched(createWalletFencesRepository(context)),
    protectiveState: watched(createProtectiveStateRepository(context)),
    chainAssets: watched(createChainAssetsRepository(context)),
    equityMarks: watched(createEquityMarksRepository(context)),
    notifications: watched(createNotificationOutboxRepository(context)),
  }
}

/** Renews this process's claim on the ledger; a failure is a storage fault. */
function startHeartbeat(ownership: HeldLedgerOwnership, observe: (error: unknown) => void) {
  return setInterval(() => {
    try {
      ownership.heartbeat()
    } catch (error) {
      observe(error)
    }
  }, ledgerOwnerHeartbeatMs).unref()
}

/** `atomically`: one write transaction (BEGIN IMMEDIATE), the outermost timed for the listeners. */
function timedAtomically(db: Database.Database, writeListeners: ReadonlySet<(ms: number) => void>) {
  return <T>(work: () => T): T => {
    // Only the outermost transaction is timed: the ones inside it are savepoints.
    if (db.inTransaction || writeListeners.size === 0) return db.transaction(work).immediate()
    const started = performance.now()
    try {
      return db.transaction(work).immediate()
    } finally {
      const ms = performance.now() - started
      // A listener (a metric) must never turn a committed write into an error for its caller.
      for (const listener of writeListeners)
        try {
          listener(ms)
        } catch {}
    }
  }
}

/** Claims the ledger for this process, or throws `LEDGER_IN_USE` naming the live owner. */
function claimLedger(
  db: Database.Database,
  path: string,
  options: { command: string; now: () => number; takeOverLiveOwner: boolean },
): HeldLedgerOwnership {
  let result: ReturnType<typeof takeLedgerOwnership>
  try {
    result = takeLedgerOwnership({ db, path, ...options })
  } catch (error) {
    throw new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `Cannot claim the ledger ${path} for this process: ${(error as Error).message}. Check that the file is writable and that no process holds its write lock for long.`,
      details: { path },
      cause: error,
    })
  }
  if (result.taken) return result.ownership
  const { owner } = result
  throw new LedgerError({
    code: 'LEDGER_IN_USE',
    shortMessage: `The ledger ${path} is in use by ${describeLedgerOwner(owner)}: stop that process, or go through its control API (e.g. POST /v1/swaps on the daemon${owner.controlUrl ? ` at ${owner.controlUrl}` : ''}) instead of opening the ledger a second time.`,
    details: {
      path,
      pid: owner.pid,
      host: owner.host,
      processStart: owner.processStart,
      command: owner.command,
      controlUrl: owner.controlUrl,
      since: new Date(owner.sinceMs).toISOString(),
      sinceMs: owner.sinceMs,
      heartbeatMs: owner.heartbeatMs,
    },
    metaMessages: [
      'Reports (read-only opens) and `stockroute halt` / `stockroute resume` work while it runs.',
    ],
  })
}

/** The `maxPageCount` option, else `STOCKROUTE_LEDGER_MAX_PAGES`, checked: a whole number of pages ≥ 1. */
function maxPageCountOf(option: number | undefined, path: string): number | undefined {
  const fromEnvironment = process.env.STOCKROUTE_LEDGER_MAX_PAGES
  if (option === undefined && (fromEnvironment === undefined || fromEnvironment.trim() === ''))
    return undefined
  const value = option ?? Number(fromEnvironment)
  if (!Number.isSafeInteger(value) || value < 1)
    throw new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `The ledger page limit ${option === undefined ? `STOCKROUTE_LEDGER_MAX_PAGES=${String(fromEnvironment)}` : `maxPageCount ${option}`} is not a whole number ≥ 1: fix it, or unset it for no limit.`,
      details: { path, maxPageCount: option ?? fromEnvironment },
    })
  return value
}

export { LedgerError, type LedgerErrorCode, ledgerApplicationId } from './ledgerError.js'
