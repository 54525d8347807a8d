// How far a migration's backfill has gone, for the one who opens an old ledger: a backfill replays
// every row of a large ledger inside the migration's transaction (migration 7: about a minute per
// million fills), and says what it counted through an optional callback. Nothing is printed here.

/** One report of a backfill step: `done` of `total` rows counted so far. */
export type MigrationProgress = {
  /** The migration that runs, e.g. 7 "report figures". */
  version: number
  name: string
  /** What the step computes, e.g. `realized PnL and daily figures`. */
  step: string
  /** What `done` and `total` count: `fills`, `executions`. */
  unit: string
  done: number
  total: number
}

/** What a backfill reports to: its steps' counts (openLedger adds the migration's version and name). */
export type BackfillProgress = (progress: Omit<MigrationProgress, 'version' | 'name'>) => void

/** Reports of one step: at most this many in all, and at least one every `maxRowsBetween` rows. */
const reportsPerStep = 100
const maxRowsBetween = 10_000

/**
 * Counts one step's rows for `report`: `0` of `total` at once, then every 1% of `total` (and at
 * least every 10,000 rows), and `total` of `total` at `end()`. Counts only grow. Without `report`
 * it counts nothing.
 *
 * @example
 * const rows = countRows(progress, 'slippage', 'fills', total)
 * for (const row of fills) { compute(row); rows.add() }
 * rows.end()
 */
export function countRows(
  report: BackfillProgress | undefined,
  step: string,
  unit: string,
  total: number,
): { add(rows?: number): void; end(): void } {
  if (!report) return { add() {}, end() {} }
  const every = Math.max(1, Math.min(maxRowsBetween, Math.ceil(total / reportsPerStep)))
  let done = 0
  let reported = 0
  report({ step, unit, done: 0, total })
  return {
    add(rows = 1) {
      done = Math.min(total, done + rows)
      if (done - reported >= every && done < total) {
        reported = done
        report({ step, unit, done, total })
      }
    },
    end() {
      report({ step, unit, done: total, total })
    },
  }
}

/**
 * One line for a progress report.
 *
 * @example
 * formatMigrationProgress({ version: 7, name: 'report figures', step: 'backfilling slippage', unit: 'fills', done: 120000, total: 1000000 })
 * // 'migrating ledger to version 7 (report figures): backfilling slippage 120000/1000000 fills (12%)'
 */
export function formatMigrationProgress(progress: MigrationProgress): string {
  const { version, name, step, unit, done, total } = progress
  const percent = total === 0 ? 100 : Math.floor((done * 100) / total)
  return `migrating ledger to version ${version} (${name}): ${step} ${done}/${total} ${unit} (${percent}%)`
}

/**
 * A progress callback for `openLedger`'s `onMigrationProgress` that prints a line through `print`
 * at most every `intervalMs` (default 1000): a step that ends within it prints nothing, one that
 * printed prints its last line too. The daemon and the CLI pass `process.stderr`.
 *
 * @example
 * const ledger = openLedger({ path, onMigrationProgress: migrationProgressPrinter((line) => process.stderr.write(`${line}\n`)) })
 */
export function migrationProgressPrinter(
  print: (line: string) => void,
  options: { intervalMs?: number | undefined; now?: (() => number) | undefined } = {},
): (progress: MigrationProgress) => void {
  const intervalMs = options.intervalMs ?? 1000
  const now = options.now ?? Date.now
  let step: string | undefined
  let since = 0
  let printedInStep = false
  return (progress) => {
    const at = now()
    const key = `${progress.version}:${progress.step}`
    if (key !== step) {
      step = key
      since = at
      printedInStep = false
    }
    const last = progress.done === progress.total
    if (at - since < intervalMs && !(last && printedInStep)) return
    print(formatMigrationProgress(progress))
    since = at
    printedInStep = true
  }
}
