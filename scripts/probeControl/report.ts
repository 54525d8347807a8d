// What probe:control found, per category: the requests it sent, the statuses it got, and whether
// the daemon held (every answer as expected, no 5xx, still alive); as a table or one JSON object.

/** What one request got: an HTTP status, or `no reply` (closed without an answer), or `error` (reset, timeout). */
export type ProbeStatus = number | 'no reply' | 'error'

/** One request of a category as sent and answered. */
export type ProbeOutcome = {
  /** What it was, e.g. `GET /v1/executions without a token`. */
  label: string
  status: ProbeStatus
  /** The statuses that count as holding for this request. */
  expected: readonly ProbeStatus[]
  /** A problem found beyond the status (a leaked file, a CORS header echoing a foreign origin). */
  problem?: string | undefined
}

/** One category of the probe, once run. */
export type CategoryResult = {
  name: string
  /** What holding means here, in a few words. */
  expectation: string
  outcomes: ProbeOutcome[]
  /** The daemon answered `GET /health` 200 after the category. */
  alive: boolean
  /** Problems of the category as a whole (a cap that never refused, /health too slow). */
  problems: string[]
  /** Measurements worth printing (e.g. `/health` latency during the read burst). */
  notes: string[]
  /** The same as numbers, for --json (e.g. `healthMaxMs`). */
  measurements?: Record<string, number> | undefined
}

/** Whether a category held: every request as expected, no 5xx, no problem, the daemon alive. */
export function categoryHeld(result: CategoryResult): boolean {
  return (
    result.alive &&
    result.problems.length === 0 &&
    result.outcomes.every(
      (outcome) =>
        outcome.problem === undefined &&
        !isServerError(outcome.status) &&
        outcome.expected.includes(outcome.status),
    )
  )
}

/** Counts of each status, e.g. `{ '401': 23, 'no reply': 2 }`, in a stable order. */
export function statusCounts(outcomes: readonly ProbeOutcome[]): Record<string, number> {
  const counts = new Map<string, number>()
  for (const { status } of outcomes) counts.set(String(status), (counts.get(String(status)) ?? 0) + 1)
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)))
}

/** The reasons a category did not hold, at most `limit` of them (empty when it held). */
export function failuresOf(result: CategoryResult, limit = 3): string[] {
  const reasons = [...result.problems]
  if (!result.alive) reasons.push('the daemon did not answer /health 200 afterwards')
  for (const outcome of result.outcomes) {
    if (outcome.problem !== undefined) reasons.push(`${outcome.label}: ${outcome.problem}`)
    else if (isServerError(outcome.status) || !outcome.expected.includes(outcome.status))
      reasons.push(`${outcome.label}: got ${outcome.status}, expected ${outcome.expected.join(' or ')}`)
  }
  return reasons.length > limit ? [...reasons.slice(0, limit), `… ${reasons.length - limit} more`] : reasons
}

function isServerError(status: ProbeStatus): boolean {
  return typeof status === 'number' && status >= 500
}

/** The whole run as one JSON-ready object. */
export function probeReport(run: {
  url: string
  startedDaemon: boolean
  durationMs: number
  categories: readonly CategoryResult[]
  /** Every request sent, /health samples and checks included (default: the categories' own). */
  requests?: number | undefined
}) {
  const categories = run.categories.map((category) => ({
    name: category.name,
    expectation: category.expectation,
    sent: category.outcomes.length,
    statuses: statusCounts(category.outcomes),
    held: categoryHeld(category),
    alive: category.alive,
    notes: category.notes,
    ...(category.measurements ? { measurements: category.measurements } : {}),
    failures: failuresOf(category, 20),
  }))
  return {
    url: run.url,
    startedDaemon: run.startedDaemon,
    durationMs: Math.round(run.durationMs),
    requests: run.requests ?? categories.reduce((sum, category) => sum + category.sent, 0),
    held: categories.every((category) => category.held),
    categories,
  }
}

/**
 * The table a person reads: one line per category (sent, statuses, held), then the notes and, for
 * a category that did not hold, why.
 *
 * @example
 * renderProbeTable(probeReport({ url, startedDaemon: false, durationMs, categories }))
 */
export function renderProbeTable(report: ReturnType<typeof probeReport>): string {
  const header = ['CATEGORY', 'SENT', 'STATUSES', 'HELD']
  const rows = report.categories.map((category) => [
    category.name,
    String(category.sent),
    Object.entries(category.statuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' '),
    category.held ? 'yes' : 'NO',
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 1 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd()
  const details = report.categories.flatMap((category) => [
    ...category.notes.map((note) => `  ${category.name}: ${note}`),
    ...category.failures.map((failure) => `  ${category.name} did not hold: ${failure}`),
  ])
  const summary = `${report.requests} requests to ${report.url} in ${(report.durationMs / 1000).toFixed(1)} s: ${
    report.held
      ? 'every category held'
      : `${report.categories.filter((category) => !category.held).length} of ${report.categories.length} categories did not hold`
  }`
  return [line(header), ...rows.map(line), ...(details.length > 0 ? ['', ...details] : []), '', summary].join(
    '\n',
  )
}
