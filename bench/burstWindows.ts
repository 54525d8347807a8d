// bench:bursts — a burst's quote windows and trades/s under the engine's default settings and under
// a variant of them (`--variant '{"maxQuotesInFlight":3}'`), burst by burst in one process. A shared
// machine's speed drifts by a quarter within minutes, so the two sides take turns (which one goes
// first alternates too) on the same sandbox child, and the report sets them side by side. Each burst
// has an engine of its own over a new ledger and new funded wallets, warmed by one execution per
// chain; then `--concurrent` intents at once. The window is bench:engine's: the router quote's
// arrival to the execute's hand-over to the node. The tool behind docs/performance.md's "What the
// bursts need" for every row that is a setting.
// Run: npm run bench:bursts -- --variant '<JSON>' [options: bench/engine/burstOptions.ts, burstBenchUsage]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { privateKeyToFastAccount } from '../src/chain/privateKeyToFastAccount.js'
import type { SwapIntent } from '../src/engine/index.js'
import { freshWallet } from './engine/barePath.js'
import { parseBurstBenchOptions } from './engine/burstOptions.js'
import { timeCommits } from './engine/commitTimes.js'
import { openBenchEngine } from './engine/enginePath.js'
import { mean, percentile, printTable } from './engine/report.js'
import { startSandboxProcess } from './engine/sandboxProcess.js'

type Side = 'default' | 'variant'

/** One burst as measured. */
type Burst = {
  side: Side
  tradesPerSecond: number
  confirmed: number
  /** Quote received → execute handed to the node, ms, one per execution of the burst. */
  windowsMs: number[]
  /** The same, split at `prepared` (the simulation answered). */
  toPreparedMs: number[]
  toHandOverMs: number[]
  /** The burst's ledger COMMITs, ms each. */
  commitsMs: number[]
  /** This process's CPU (every thread: JS, GC, the checkpointer) during the burst, ms. */
  cpuMs: number
  /** The share of the burst's time the JS thread's event loop was busy (0 to 1). */
  eventLoopBusy: number
}

const options = (() => {
  try {
    return parseBurstBenchOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`bench:bursts: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
})()
const progress = (message: string) => process.stderr.write(`[bench:bursts] ${message}\n`)
const amountIn = '300'

const ledgerDir = mkdtempSync(join(tmpdir(), 'stockroute-bench-bursts-'))
progress('starting local chains and the sandbox service in a child process')
const sandbox = await startSandboxProcess({ requestsPerSecond: 5_000 }).catch((error: unknown) => {
  rmSync(ledgerDir, { recursive: true, force: true })
  throw error
})
const commitClock = timeCommits()
const bursts: Burst[] = []
try {
  const withRouter = sandbox.chains.find((chain) => chain.platformRouterAddress !== null)
  if (!withRouter) throw new Error('the sandbox lacks a chain with a router')
  const chains: readonly LocalChain[] = options.bothChains ? sandbox.chains : [withRouter]
  let counter = 0
  const intentFor = (chain: LocalChain): SwapIntent => ({
    intentId: `bursts-${process.pid}-${++counter}`,
    chainId: chain.chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn,
  })
  const runBurst = async (side: Side): Promise<Burst> => {
    const funded = []
    // Funded for the burst and the warm-up; which wallet takes an intent is the engine's choice.
    for (let i = 0; i < options.wallets; i++)
      funded.push(await freshWallet(sandbox, chains, options.concurrent + chains.length, amountIn))
    const [first, ...extra] = funded
    if (!first) throw new Error('at least one wallet')
    const bench = await openBenchEngine({
      ledgerDir,
      serviceUrl: sandbox.url,
      credential: sandbox.credential,
      account: privateKeyToFastAccount(first.privateKey),
      extraAccounts: extra.map((wallet) => privateKeyToFastAccount(wallet.privateKey)),
      chains,
      settings: side === 'variant' ? options.variant : undefined,
    })
    try {
      // The engine's first reads (nonces, fees, allowance slots) are not the burst's.
      for (const chain of chains) await bench.execute(intentFor(chain))
      const warm = bench.overheadMs.length
      commitClock.take()
      const cpuBefore = process.cpuUsage()
      const loopBefore = performance.eventLoopUtilization()
      const started = performance.now()
      const outcomes = await Promise.all(
        Array.from({ length: options.concurrent }, (_, i) =>
          bench.execute(intentFor(chains[i % chains.length] as LocalChain)),
        ),
      )
      const wallMs = performance.now() - started
      const cpu = process.cpuUsage(cpuBefore)
      const eventLoopBusy = performance.eventLoopUtilization(loopBefore).utilization
      return {
        side,
        tradesPerSecond: options.concurrent / (wallMs / 1000),
        confirmed: outcomes.filter((outcome) => outcome.execution.state === 'confirmed').length,
        windowsMs: bench.overheadMs.slice(warm),
        toPreparedMs: bench.toPreparedMs.slice(warm),
        toHandOverMs: bench.toHandOverMs.slice(warm),
        commitsMs: commitClock.take().map((commit) => commit.ms),
        cpuMs: (cpu.user + cpu.system) / 1000,
        eventLoopBusy,
      }
    } finally {
      await bench.close()
    }
  }

  for (let pair = 0; pair < options.pairs; pair++) {
    // Which side goes first alternates: a drift within a pair falls on both.
    const order: Side[] = pair % 2 === 0 ? ['default', 'variant'] : ['variant', 'default']
    for (const side of order) {
      const burst = await runBurst(side)
      bursts.push(burst)
      progress(
        `pair ${pair + 1} of ${options.pairs}, ${side}: ${burst.tradesPerSecond.toFixed(1)} trades/s, window p50 ${percentile(burst.windowsMs, 50).toFixed(1)} ms, ${burst.confirmed} of ${options.concurrent} confirmed`,
      )
    }
  }

  const summary = Object.fromEntries(
    (['default', 'variant'] as const).map((side) => [side, summarize(bursts.filter((b) => b.side === side))]),
  ) as Record<Side, ReturnType<typeof summarize>>
  const report = {
    variantSettings: options.variant,
    pairs: options.pairs,
    concurrent: options.concurrent,
    wallets: options.wallets,
    chains: chains.map((chain) => chain.chainId),
    default: summary.default,
    variant: summary.variant,
    tradesPerSecondRatio: summary.variant.tradesPerSecond.mean / summary.default.tradesPerSecond.mean,
    windowP50Ratio: summary.variant.window.p50Ms / summary.default.window.p50Ms,
  }
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`)
  else printBurstReport(report, options.variantText)
} finally {
  commitClock.stop()
  await sandbox.stop()
  rmSync(ledgerDir, { recursive: true, force: true })
}

/** One side's bursts, pooled: trades/s per burst, the windows and commits of all of them. */
function summarize(side: readonly Burst[]) {
  const all = (pick: (burst: Burst) => number[]) => side.flatMap(pick)
  const windows = all((burst) => burst.windowsMs)
  const commits = all((burst) => burst.commitsMs)
  const trades = side.reduce((sum, burst) => sum + burst.windowsMs.length, 0)
  const rates = side.map((burst) => burst.tradesPerSecond)
  return {
    bursts: side.length,
    confirmed: side.reduce((sum, burst) => sum + burst.confirmed, 0),
    tradesPerSecond: { mean: mean(rates), min: Math.min(...rates), max: Math.max(...rates) },
    window: {
      executions: windows.length,
      p50Ms: percentile(windows, 50),
      p90Ms: percentile(windows, 90),
      p99Ms: percentile(windows, 99),
      atOrOver10Ms: windows.filter((ms) => ms >= 10).length,
      toPreparedP50Ms: percentile(
        all((burst) => burst.toPreparedMs),
        50,
      ),
      toHandOverP50Ms: percentile(
        all((burst) => burst.toHandOverMs),
        50,
      ),
    },
    commits: { perTrade: commits.length / Math.max(1, trades), meanMs: mean(commits) },
    cpuMsPerTrade: side.reduce((sum, burst) => sum + burst.cpuMs, 0) / Math.max(1, trades),
    eventLoopBusy: mean(side.map((burst) => burst.eventLoopBusy)),
  }
}

function printBurstReport(
  report: { default: ReturnType<typeof summarize>; variant: ReturnType<typeof summarize> } & {
    pairs: number
    concurrent: number
    wallets: number
    chains: number[]
  },
  variantText: string,
) {
  console.log(
    `${report.pairs} bursts a side of ${report.concurrent} intents at once, ${report.wallets} wallets, chain${report.chains.length > 1 ? 's' : ''} ${report.chains.join(' and ')}; variant ${variantText}\n`,
  )
  const row = (name: string, s: ReturnType<typeof summarize>) => [
    name,
    `${s.tradesPerSecond.mean.toFixed(1)} (${s.tradesPerSecond.min.toFixed(0)} to ${s.tradesPerSecond.max.toFixed(0)})`,
    `${s.window.p50Ms.toFixed(1)} / ${s.window.p90Ms.toFixed(1)} / ${s.window.p99Ms.toFixed(1)}`,
    `${s.window.atOrOver10Ms} of ${s.window.executions} (${((100 * s.window.atOrOver10Ms) / Math.max(1, s.window.executions)).toFixed(0)}%)`,
    `${s.window.toPreparedP50Ms.toFixed(1)} / ${s.window.toHandOverP50Ms.toFixed(1)}`,
    `${s.commits.perTrade.toFixed(2)}, ${s.commits.meanMs.toFixed(2)} ms`,
    `${s.cpuMsPerTrade.toFixed(2)}, ${(100 * s.eventLoopBusy).toFixed(0)}%`,
    `${s.confirmed} of ${s.bursts * report.concurrent}`,
  ]
  printTable(
    [
      'settings',
      'trades/s, mean (bursts)',
      'window p50 / p90 / p99, ms',
      'windows at 10 ms or more',
      'quote → simulated / simulated → handed over, p50 ms',
      'commits a trade, mean',
      'CPU ms a trade (process), event loop busy',
      'confirmed',
    ],
    [row('default', report.default), row('variant', report.variant)],
  )
}
