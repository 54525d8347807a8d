// What bench:engine measured: one JSON object (--json) or tables, with the keys.
import { arch, cpus, platform } from 'node:os'

export type BenchReport = {
  trades: number
  warmup: number
  concurrent: number
  /** Bursts of `concurrent` behind each of throughputRatio and concurrentRatio (absent: 1). */
  rounds?: number
  /** Engine wallets per chain in the throughput and concurrency runs (the config's extra wallets). */
  wallets: number
  /** Per chain id: engine mean / bare mean, one execution end to end. */
  sequentialRatio: Record<number, number>
  perChain?: { chainId: number; bareMs: number[]; engineMs: number[] }[]
  /**
   * Router quote received → execute handed to the node (`sending`), ms, over every execution of the
   * run on loopback (the latency scenario's, slowed on purpose, are in `latency`).
   */
  overheadP50Ms?: number
  overheadP99Ms?: number
  /** The same, per part of the run: one at a time, bursts (throughput, concurrency), the memory run. */
  overheadByRun?: Record<
    string,
    {
      executions: number
      p50Ms: number
      p99Ms: number
      maxMs: number
      /** Executions of the part at 10 ms or more (the target of `overheadP99Ms`). */
      atOrOver10Ms: number
      /** Quote → prepared: the guard beside the allowance read and the simulation (the node answering). */
      toPreparedP50Ms: number
      toPreparedP99Ms: number
      /** Prepared → handed to the node: the wallet's critical section (kill switch, nonce, signatures, one commit). */
      toHandOverP50Ms: number
      toHandOverP99Ms: number
      /** The ledger COMMITs of the part, ms (the JS thread waits for each: WAL writes, fsync, an inline checkpoint). */
      commits: {
        count: number
        p50Ms: number
        p99Ms: number
        maxMs: number
        over5Ms: number
        /** Of those over 5 ms, how many overlapped a disk probe fsync over 5 ms: the disk stalled. */
        over5MsInDiskStall: number
      }
      /** The disk probe's fsyncs in the part (bench/engine/diskProbe.ts); absent with --no-disk-probe. */
      diskProbe?: { count: number; p50Ms: number; p99Ms: number; maxMs: number; over5Ms: number } | undefined
    }
  >
  /**
   * Executions on loopback (not the latency scenario's) that took over 1 s from intent to terminal
   * state; the first 20 are named on stderr with when they reached each stage.
   */
  slowExecutions?: number
  /** Engine trades/s on one chain (intents at once) over the bare path run in a row. */
  throughputRatio?: number
  throughput?: { engineTps: number; bareTps: number; confirmed: number; intents: number }
  /** Engine trades/s over the bare path run with the same concurrency (a wallet per bare worker). */
  concurrentRatio?: number
  concurrency?: { engineTps: number; bareTps: number; confirmed: number; intents: number }
  latency?: {
    intents: number
    wallMs: number
    confirmed: number
    /** Quote → execute handed to the node, ms: the simulation (+150 ms) and the critical section. */
    overheadP50Ms: number
    overheadP99Ms: number
    byState: Record<string, number>
    expiredSubmissions: number
    reverts: number
    unfinished: number
  }
  memory?: {
    executions: number
    rssAfterFirstThousandMiB: number
    rssAtEndMiB: number
    growth: number
    gcExposed: boolean
  }
  /** Executions whose execute was sent and which then expired, over the run. */
  expiredSubmissions?: number
  /** Transactions mined reverted, over the run. */
  reverts?: number
  unfinished?: number
  intents: number
  /** Where the sandbox (anvil chains + service) ran, for the host line. */
  sandbox?: string
  /** The engines' ledgers: where the files lie and who checkpoints their WAL. */
  ledger?: string
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] ?? Number.NaN
}

/** Prints a Markdown table to stdout, columns padded to their widest cell. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]?.length ?? 0)))
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(line(header))
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`)
  for (const row of rows) console.log(line(row))
  console.log('')
}

/** "3 × " when each ratio came from several bursts, taking turns with the bare path's. */
const bursts = (report: BenchReport) => ((report.rounds ?? 1) > 1 ? `${report.rounds} × ` : '')

const fixed = (value: number | undefined, digits = 2) => (value === undefined ? '—' : value.toFixed(digits))

/** The run as tables, with the targets beside the figures. */
export function printReport(report: BenchReport): void {
  console.log(
    `host: ${platform()} ${arch()}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}` +
      (report.sandbox ? `; sandbox: ${report.sandbox}` : '') +
      (report.ledger ? `; ledger: ${report.ledger}` : ''),
  )
  console.log('')
  if (report.perChain) {
    console.log(`## One execution end to end, ${report.trades} in a row after ${report.warmup} warm-up, ms`)
    console.log('')
    printTable(
      ['chain', 'bare mean', 'bare p50', 'engine mean', 'engine p50', 'engine p95', 'ratio (target ≤ 1.10)'],
      report.perChain.map((chain) => [
        String(chain.chainId),
        fixed(mean(chain.bareMs), 1),
        fixed(percentile(chain.bareMs, 50), 1),
        fixed(mean(chain.engineMs), 1),
        fixed(percentile(chain.engineMs, 50), 1),
        fixed(percentile(chain.engineMs, 95), 1),
        fixed(report.sequentialRatio[chain.chainId]),
      ]),
    )
  }
  console.log('## Figures of the run')
  console.log('')
  printTable(
    ['figure', 'value', 'target'],
    [
      [
        'overheadP99Ms (quote received → execute handed to the node, loopback, all executions)',
        fixed(report.overheadP99Ms, 1),
        '< 10',
      ],
      ['overhead p50, ms', fixed(report.overheadP50Ms, 1), ''],
      [
        `throughputRatio (${bursts(report)}${report.concurrent} intents on one chain, ${report.wallets} wallets / bare in a row)`,
        `${fixed(report.throughputRatio)} (${fixed(report.throughput?.engineTps, 1)} / ${fixed(report.throughput?.bareTps, 1)} trades/s)`,
        '≥ 2',
      ],
      [
        `concurrentRatio (${bursts(report)}${report.concurrent} at once, ${report.wallets} wallets a chain / ${report.concurrent} bare workers)`,
        `${fixed(report.concurrentRatio)} (${fixed(report.concurrency?.engineTps, 1)} / ${fixed(report.concurrency?.bareTps, 1)} trades/s)`,
        '≥ 1',
      ],
      [
        'executions on loopback over 1 s from intent to its end (stages of the first 20 on stderr)',
        String(report.slowExecutions ?? 0),
        '',
      ],
      ['expiredSubmissions', String(report.expiredSubmissions ?? '—'), '0'],
      ['reverts', String(report.reverts ?? '—'), '0'],
      ['intents', String(report.intents), ''],
    ],
  )
  if (report.overheadByRun) {
    console.log('## Quote received → execute handed to the node, by part of the run, ms')
    console.log('')
    printTable(
      [
        'part',
        'executions',
        'p50',
        'p99',
        'max',
        '≥ 10 ms',
        'quote → simulated p50 / p99',
        'simulated → handed over p50 / p99',
        'ledger commits: n, p50 / p99 / max, over 5 ms (in a disk stall)',
        'disk probe fsyncs: n, p50 / p99 / max, over 5 ms',
      ],
      Object.entries(report.overheadByRun).map(([part, o]) => [
        part,
        String(o.executions),
        fixed(o.p50Ms, 1),
        fixed(o.p99Ms, 1),
        fixed(o.maxMs, 1),
        String(o.atOrOver10Ms),
        `${fixed(o.toPreparedP50Ms, 1)} / ${fixed(o.toPreparedP99Ms, 1)}`,
        `${fixed(o.toHandOverP50Ms, 1)} / ${fixed(o.toHandOverP99Ms, 1)}`,
        `${o.commits.count}, ${fixed(o.commits.p50Ms, 1)} / ${fixed(o.commits.p99Ms, 1)} / ${fixed(o.commits.maxMs, 0)}, ${o.commits.over5Ms} (${o.diskProbe ? o.commits.over5MsInDiskStall : '—'})`,
        o.diskProbe
          ? `${o.diskProbe.count}, ${fixed(o.diskProbe.p50Ms, 1)} / ${fixed(o.diskProbe.p99Ms, 1)} / ${fixed(o.diskProbe.maxMs, 0)}, ${o.diskProbe.over5Ms}`
          : 'off',
      ]),
    )
    const parts = Object.values(report.overheadByRun)
    const executions = parts.reduce((sum, o) => sum + o.executions, 0)
    const over = parts.reduce((sum, o) => sum + o.atOrOver10Ms, 0)
    // Nearest rank: the p99 is under 10 ms while at most n - ceil(0.99 n) executions are at 10 or more.
    const allowed = executions - Math.ceil(0.99 * executions)
    console.log(
      `overheadP99Ms < 10 allows ${allowed} of the run's ${executions} executions at 10 ms or more; it had ${over}.`,
    )
    console.log('')
  }
  if (report.latency) {
    const l = report.latency
    console.log(`## Latency: ${l.intents} intents, +150 ms per RPC call, +200 ms per service call`)
    console.log('')
    printTable(
      [
        'wall s',
        'confirmed',
        'quote → handed to the node p50 / p99, ms',
        'by state',
        'expired after sending',
        'reverts',
        'unfinished',
      ],
      [
        [
          fixed(l.wallMs / 1000, 1),
          String(l.confirmed),
          `${fixed(l.overheadP50Ms, 0)} / ${fixed(l.overheadP99Ms, 0)}`,
          Object.entries(l.byState)
            .map(([state, n]) => `${state} ${n}`)
            .join(', '),
          String(l.expiredSubmissions),
          String(l.reverts),
          String(l.unfinished),
        ],
      ],
    )
  }
  if (report.memory) {
    const m = report.memory
    console.log(`## Memory: ${m.executions} executions in a row`)
    console.log('')
    printTable(
      ['rss after 1000, MiB', 'rss at end, MiB', 'growth (target < 10%)', 'gc before each reading'],
      [
        [
          fixed(m.rssAfterFirstThousandMiB, 1),
          fixed(m.rssAtEndMiB, 1),
          `${fixed(m.growth * 100, 1)}%`,
          m.gcExposed ? 'yes' : 'no',
        ],
      ],
    )
  }
}
