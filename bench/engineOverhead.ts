// bench:engine — the engine against the bare viem path an integrator writes by hand (quote, verify,
// approve, writeContract(execute), receipt), side by side in one process on both sandbox chains
// (anvil, automine). The sandbox (its anvil chains and its HTTP service on loopback) runs in a child
// process (bench/engine/sandboxChild.ts, started and stopped by bench/engine/sandboxProcess.ts), as a
// real service is remote: its HTTP handling and quote signing do not compete with the engine and the
// bare path for this process's JS thread. The child is stopped by pid at the end, on errors and on
// Ctrl-C, and its anvils with it. Scenarios:
//   sequential  one execution at a time per chain (sequentialRatio, overheadP99Ms), many intents at
//               once on one chain (throughputRatio), and on both chains against as many bare
//               workers (concurrentRatio)
//   latency     intents over both chains through loopback proxies (in this process) adding 150 ms
//               to every RPC call and 200 ms to every service call: no expired submission, no
//               revert, all terminal
//   memory      executions in a row: resident memory of this process (engine, ledger, viem; not the
//               sandbox service, which lives in the child) after the first thousand and at the end
// Run: npm run bench:engine [-- --json] [options: bench/engine/options.ts, engineBenchUsage]
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startDelayProxy } from '@stockroute/sandbox/delayProxy.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { privateKeyToFastAccount } from '../src/chain/privateKeyToFastAccount.js'
import type { SwapIntent } from '../src/engine/index.js'
import { bareBuy, freshWallet } from './engine/barePath.js'
import { timeCommits } from './engine/commitTimes.js'
import { type DiskProbe, overlapping, startDiskProbe, type TimedSample } from './engine/diskProbe.js'
import {
  type BenchEngine,
  ledgerOutcomes,
  openBenchEngine,
  type TimedExecution,
} from './engine/enginePath.js'
import { engineBenchOptionsOrExit } from './engine/options.js'
import { type BenchReport, mean, percentile, printReport } from './engine/report.js'
import { startSandboxProcess } from './engine/sandboxProcess.js'

const options = engineBenchOptionsOrExit(process.argv.slice(2))
const { trades, warmup, concurrent, rounds, wallets } = options
const amountIn = '300'
const progress = (message: string) => process.stderr.write(`[bench:engine] ${message}\n`)

/** The sandbox key's rate: the bench runs many wallets on one key. */
const serviceRequestsPerSecond = 5_000
const ledgerDir = mkdtempSync(join(options.ledgerParent, 'stockroute-bench-engine-'))
progress('starting local chains and the sandbox service in a child process')
const sandbox = await startSandboxProcess({ requestsPerSecond: serviceRequestsPerSecond }).catch(
  (error: unknown) => {
    rmSync(ledgerDir, { recursive: true, force: true })
    throw error
  },
)
progress(`sandbox child ${sandbox.pid} ready: service at ${sandbox.url}`)
/** The disk's own fsync latency beside the ledgers' commits (bench/engine/diskProbe.ts); off with --no-disk-probe. */
const diskProbe: DiskProbe | undefined = options.diskProbe
  ? await startDiskProbe(join(ledgerDir, 'disk-probe.bin'))
  : undefined
const engines: BenchEngine[] = []
/** Quote → broadcast, ms, of the executions on loopback (sequential, throughput, concurrency, memory). */
const overhead: number[] = []
/** The same for the latency scenario, whose every RPC and service call is slowed on purpose. */
const latencyOverhead: number[] = []
const outcomes: ReturnType<typeof ledgerOutcomes>[] = []
/** Quote → hand-over, ms, per part of the run (the engines' own lists, read when the part ends). */
const overheadByRun = new Map<
  string,
  {
    total: number[]
    toPrepared: number[]
    toHandOver: number[]
    commits: TimedSample[]
    probes: TimedSample[]
  }
>()
/** Every ledger COMMIT's duration: the part's own, taken when it starts (set-up discarded) and ends. */
const commitClock = timeCommits()
/** A part starts: the set-up's commits and probe fsyncs are not its own. */
const startPart = async () => {
  commitClock.take()
  await diskProbe?.take()
}
/** `commits`: the part's own, when it was taken in pieces (rounds with set-up between them). */
const addOverhead = async (part: string, bench: BenchEngine, commits = commitClock.take()) => {
  const run = overheadByRun.get(part) ?? {
    total: [],
    toPrepared: [],
    toHandOver: [],
    commits: [],
    probes: [],
  }
  run.total.push(...bench.overheadMs)
  run.toPrepared.push(...bench.toPreparedMs)
  run.toHandOver.push(...bench.toHandOverMs)
  run.commits.push(...commits)
  run.probes.push(...((await diskProbe?.take()) ?? []))
  overheadByRun.set(part, run)
}
/** Each scenario's engines are read and closed before the next, so none weighs on the memory one. */
const closeEngines = async (into: number[] = overhead) => {
  for (const bench of engines.splice(0)) {
    into.push(...bench.overheadMs)
    outcomes.push(ledgerOutcomes(bench.ledger))
    await bench.close()
  }
}
/** An execution on loopback slower than this end to end (intent → terminal) is named on stderr, with its stages. */
const slowAfterMs = 1_000
let slowNamed = 0
const noteSlow = (part: string, timed: TimedExecution) => {
  if (timed.ms <= slowAfterMs) return
  report.slowExecutions = (report.slowExecutions ?? 0) + 1
  // The first few say where the time went; a stalling disk can make hundreds.
  if (++slowNamed <= 20)
    progress(
      `slow: execution ${timed.execution.id} (${part}) ended ${timed.execution.state} after ${Math.round(timed.ms)} ms: ${timed.stages}`,
    )
}
const report: BenchReport = {
  trades,
  warmup,
  concurrent,
  rounds,
  wallets,
  sequentialRatio: {},
  slowExecutions: 0,
  intents: 0,
  sandbox: `child process (anvil chains + service, API key ${serviceRequestsPerSecond} requests/s)`,
  ledger: `SQLite files in ${ledgerDir}, synchronous=FULL, WAL checkpoints ${options.walCheckpoints === 'background' ? 'in a worker thread' : 'inside commits'}`,
}
try {
  const withRouter = sandbox.chains.find((chain) => chain.platformRouterAddress !== null)
  const withoutRouter = sandbox.chains.find((chain) => chain.platformRouterAddress === null)
  if (!withRouter || !withoutRouter) throw new Error('the sandbox lacks a chain with or without a router')
  const both = [withRouter, withoutRouter]
  let counter = 0
  const intentFor = (chain: LocalChain): SwapIntent => {
    report.intents += 1
    return {
      intentId: `bench-${process.pid}-${++counter}`,
      chainId: chain.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn,
    }
  }
  const engineFor = async (
    chains: readonly LocalChain[],
    buys: number,
    rpcUrlOf?: (chain: LocalChain) => string,
    serviceUrl = sandbox.url,
    walletCount = 1,
  ) => {
    // Each wallet is funded for every buy: which wallet takes an intent is the engine's choice.
    const funded = []
    for (let i = 0; i < walletCount; i++) funded.push(await freshWallet(sandbox, chains, buys, amountIn))
    const [wallet, ...extra] = funded
    if (!wallet) throw new Error('engineFor: at least one wallet')
    const bench = await openBenchEngine({
      ledgerDir,
      serviceUrl,
      credential: sandbox.credential,
      // The engine signs with the account the daemon builds from a key (config/wallets.ts).
      account: privateKeyToFastAccount(wallet.privateKey),
      extraAccounts: extra.map((w) => privateKeyToFastAccount(w.privateKey)),
      chains: sandbox.chains,
      rpcUrlOf,
      settings: options.engineSettings,
      walCheckpoints: options.walCheckpoints,
    })
    engines.push(bench)
    return bench
  }
  /** `part`: on loopback, where an execution over {@link slowAfterMs} is named (not the latency scenario's). */
  const runAll = async (bench: BenchEngine, intents: SwapIntent[], part?: string) => {
    const started = performance.now()
    const outcomes = await Promise.all(intents.map((intent) => bench.execute(intent)))
    const wallMs = performance.now() - started
    if (part !== undefined) for (const outcome of outcomes) noteSlow(part, outcome)
    return { wallMs, confirmed: outcomes.filter((o) => o.execution.state === 'confirmed').length }
  }

  if (options.scenarios.has('sequential')) {
    const bareMean = new Map<number, number>()
    report.perChain = []
    for (const chain of both) {
      progress(
        `chain ${chain.chainId}: ${warmup} warm-up + ${trades} buys in a row, the bare path and the engine taking turns`,
      )
      const bare = (await freshWallet(sandbox, [chain], trades + warmup, amountIn)).takerOn(chain)
      const bench = await engineFor([chain], trades + warmup)
      const bareMs: number[] = []
      const engineMs: number[] = []
      await startPart()
      // One bare buy, then one engine buy, and so on: both see the same minutes of a shared
      // machine, whose speed drifts by a quarter over a run (one at a time: they never overlap).
      for (let i = 0; i < warmup + trades; i++) {
        const bareStarted = performance.now()
        await bareBuy(bare, chain, amountIn)
        if (i >= warmup) bareMs.push(performance.now() - bareStarted)
        const started = performance.now()
        const timed = await bench.execute(intentFor(chain))
        noteSlow('one at a time', timed)
        const { execution } = timed
        if (execution.state !== 'confirmed')
          progress(`execution ${execution.id} ended ${execution.state}: ${execution.reason}`)
        else if (i >= warmup) engineMs.push(performance.now() - started)
      }
      await addOverhead('one at a time', bench)
      bareMean.set(chain.chainId, mean(bareMs))
      report.sequentialRatio[chain.chainId] = mean(engineMs) / mean(bareMs)
      report.perChain.push({ chainId: chain.chainId, bareMs, engineMs })
    }

    progress(
      `throughput: ${rounds} × ${concurrent} intents at once on chain ${withRouter.chainId}, ${wallets} engine wallets`,
    )
    const throughputEngine = await engineFor(
      [withRouter],
      concurrent * rounds,
      undefined,
      sandbox.url,
      wallets,
    )
    await startPart()
    const oneChain = { confirmed: 0, wallMs: 0 }
    for (let round = 0; round < rounds; round++) {
      const burst = await runAll(
        throughputEngine,
        Array.from({ length: concurrent }, () => intentFor(withRouter)),
        `${concurrent} at once, one chain`,
      )
      oneChain.confirmed += burst.confirmed
      oneChain.wallMs += burst.wallMs
    }
    await addOverhead(`${concurrent} at once, one chain`, throughputEngine)
    const engineTps = oneChain.confirmed / (oneChain.wallMs / 1000)
    const bareTps = 1000 / (bareMean.get(withRouter.chainId) ?? Number.NaN)
    report.throughput = { engineTps, bareTps, confirmed: oneChain.confirmed, intents: concurrent * rounds }
    report.throughputRatio = engineTps / bareTps

    progress(
      `concurrency: ${rounds} × ${concurrent} bare workers (a wallet each) against ${concurrent} intents at once, both chains, taking turns`,
    )
    const concurrencyEngine = await engineFor(both, concurrent * rounds, undefined, sandbox.url, wallets)
    let bareWallMs = 0
    const engineRun = { confirmed: 0, wallMs: 0 }
    const engineCommits: TimedSample[] = []
    await startPart()
    for (let round = 0; round < rounds; round++) {
      // Funded one after another: the sandbox's deployer mints, and its nonces are viem's to pick.
      const workers: {
        chain: LocalChain
        taker: ReturnType<Awaited<ReturnType<typeof freshWallet>>['takerOn']>
      }[] = []
      for (let i = 0; i < concurrent; i++) {
        const chain = both[i % 2] as LocalChain
        workers.push({ chain, taker: (await freshWallet(sandbox, [chain], 1, amountIn)).takerOn(chain) })
      }
      const bareStarted = performance.now()
      await Promise.all(workers.map(({ chain, taker }) => bareBuy(taker, chain, amountIn)))
      bareWallMs += performance.now() - bareStarted
      // The engine's commits only: the funding above is set-up.
      commitClock.take()
      const burst = await runAll(
        concurrencyEngine,
        Array.from({ length: concurrent }, (_, i) => intentFor(both[i % 2] as LocalChain)),
        `${concurrent} at once, both chains`,
      )
      engineCommits.push(...commitClock.take())
      engineRun.confirmed += burst.confirmed
      engineRun.wallMs += burst.wallMs
    }
    await addOverhead(`${concurrent} at once, both chains`, concurrencyEngine, engineCommits)
    const engineConcurrentTps = engineRun.confirmed / (engineRun.wallMs / 1000)
    const bareConcurrentTps = (concurrent * rounds) / (bareWallMs / 1000)
    report.concurrency = {
      engineTps: engineConcurrentTps,
      bareTps: bareConcurrentTps,
      confirmed: engineRun.confirmed,
      intents: concurrent * rounds,
    }
    report.concurrentRatio = engineConcurrentTps / bareConcurrentTps
  }

  await closeEngines()
  if (options.scenarios.has('latency')) {
    progress(
      `latency: ${options.latencyIntents} intents over both chains, +150 ms per RPC call, +200 ms per service call`,
    )
    const proxies: RpcFaultProxy[] = await Promise.all(
      both.map((chain) => startRpcFaultProxy({ upstream: chain.rpcUrl, seed: chain.chainId })),
    )
    for (const proxy of proxies) proxy.setFaults({ delayMs: 150 })
    const serviceProxy = await startDelayProxy({ upstream: sandbox.url, delayMs: 200 })
    try {
      const proxyOf = new Map(both.map((chain, i) => [chain.chainId, proxies[i]?.url ?? chain.rpcUrl]))
      const bench = await engineFor(
        both,
        options.latencyIntents,
        (chain) => proxyOf.get(chain.chainId) ?? chain.rpcUrl,
        serviceProxy.url,
      )
      const run = await runAll(
        bench,
        Array.from({ length: options.latencyIntents }, (_, i) => intentFor(both[i % 2] as LocalChain)),
      )
      report.latency = {
        intents: options.latencyIntents,
        wallMs: run.wallMs,
        confirmed: run.confirmed,
        overheadP50Ms: percentile(bench.overheadMs, 50),
        overheadP99Ms: percentile(bench.overheadMs, 99),
        ...ledgerOutcomes(bench.ledger),
      }
    } finally {
      await serviceProxy.stop()
      await Promise.all(proxies.map((proxy) => proxy.stop()))
    }
  }

  await closeEngines(latencyOverhead)
  if (options.scenarios.has('memory')) {
    progress(`memory: ${options.memoryExecutions} executions in a row on chain ${withRouter.chainId}`)
    const bench = await engineFor([withRouter], options.memoryExecutions)
    await startPart()
    const gc = (globalThis as { gc?: () => void }).gc
    const rss = () => {
      gc?.()
      return process.memoryUsage().rss
    }
    let afterFirstThousand = 0
    for (let i = 1; i <= options.memoryExecutions; i++) {
      noteSlow('memory run', await bench.execute(intentFor(withRouter)))
      if (i === Math.min(1_000, options.memoryExecutions)) afterFirstThousand = rss()
      if (i % 1_000 === 0)
        progress(`memory: ${i} executions, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`)
    }
    const atEnd = rss()
    await addOverhead('memory run, one at a time', bench)
    report.memory = {
      executions: options.memoryExecutions,
      rssAfterFirstThousandMiB: afterFirstThousand / 2 ** 20,
      rssAtEndMiB: atEnd / 2 ** 20,
      growth: atEnd / afterFirstThousand - 1,
      gcExposed: gc !== undefined,
    }
  }

  await closeEngines()
  report.overheadP50Ms = percentile(overhead, 50)
  report.overheadP99Ms = percentile(overhead, 99)
  report.overheadByRun = Object.fromEntries(
    [...overheadByRun].map(([part, { total, toPrepared, toHandOver, commits: timed, probes }]) => {
      const commits = timed.map((commit) => commit.ms)
      const fsyncs = probes.map((probe) => probe.ms)
      return [
        part,
        {
          executions: total.length,
          p50Ms: percentile(total, 50),
          p99Ms: percentile(total, 99),
          maxMs: Math.max(...total),
          atOrOver10Ms: total.filter((ms) => ms >= 10).length,
          toPreparedP50Ms: percentile(toPrepared, 50),
          toPreparedP99Ms: percentile(toPrepared, 99),
          toHandOverP50Ms: percentile(toHandOver, 50),
          toHandOverP99Ms: percentile(toHandOver, 99),
          commits: {
            count: commits.length,
            p50Ms: percentile(commits, 50),
            p99Ms: percentile(commits, 99),
            maxMs: Math.max(0, ...commits),
            over5Ms: commits.filter((ms) => ms > 5).length,
            over5MsInDiskStall: overlapping(timed, probes, 5),
          },
          diskProbe: diskProbe && {
            count: fsyncs.length,
            p50Ms: percentile(fsyncs, 50),
            p99Ms: percentile(fsyncs, 99),
            maxMs: Math.max(0, ...fsyncs),
            over5Ms: fsyncs.filter((ms) => ms > 5).length,
          },
        },
      ]
    }),
  )
  report.expiredSubmissions = outcomes.reduce((sum, o) => sum + o.expiredSubmissions, 0)
  report.reverts = outcomes.reduce((sum, o) => sum + o.reverts, 0)
  report.unfinished = outcomes.reduce((sum, o) => sum + o.unfinished, 0)
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`)
  else printReport(report)
} finally {
  for (const bench of engines) await bench.close().catch(() => undefined)
  await diskProbe?.stop().catch(() => undefined)
  await sandbox.stop()
  // --keep-ledgers: the run's SQLite ledgers stay, to read why an execution was slow or expired.
  if (options.keepLedgers) progress(`ledgers kept in ${ledgerDir}`)
  else rmSync(ledgerDir, { recursive: true, force: true })
}
