// Soak of the trading daemon on the sandbox with random faults.
// Run: npm run soak -- --minutes N [--seed S] [--dir DIR] [--interval-mining CHAIN:SECONDS] [--json]
//
// The sandbox runs as its own long-lived child (its chains outlive daemon kills); one rpcFaultProxy
// sits in front of each chain's RPC, and the daemon (another child) trades through them. For N minutes
// the soak injects at random: proxy faults (delays, drops, cuts, 502s), interval mining with pending
// transactions dropped from the mempool, reorgs and rollbacks of 1-2 blocks, and SIGKILLs of the
// daemon followed by restarts. `--interval-mining beta:2` keeps a chain on interval mining (a block
// every 2 s) for the whole trading time instead of in random windows. Then it calms everything, lets
// a daemon without strategies settle what is unfinished (60 s at most), stops it with SIGTERM and
// checks the invariants on the ledger and the chains, a reverted transaction of the wallet among
// them. Exit code 0 only when every invariant held; 1 otherwise (2 for a bad option); 130 when
// interrupted.
import { appendFileSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { defaultChainSpecs } from '@stockroute/sandbox/chainSpecs.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { createPublicClient, http } from 'viem'
import { openLedger } from '../src/store/index.js'
import { type AuditChain, auditSoakLedger } from './soak/audit.js'
import { createChaos } from './soak/chaos.js'
import {
  createDaemonProcess,
  type DaemonProcess,
  killAllStarted,
  type SandboxProcess,
  startSandboxProcess,
} from './soak/processes.js'
import {
  formatFaults,
  formatStates,
  logSummary,
  proxyTotals,
  readLedgerSnapshot,
  renderTable,
  type SoakResult,
  type SteadyIntervalMining,
} from './soak/report.js'
import { createRandom, rpc, sleep } from './soak/rpc.js'
import { fundFreshWallet, paymentAssetOf, soakStrategies, writeSoakConfig } from './soak/setup.js'

const usage =
  'usage: npm run soak -- --minutes N [--seed S] [--dir DIR] [--interval-mining CHAIN:SECONDS]… [--json]\n' +
  '  --interval-mining beta:2  the chain mines a block every 2 s for the whole run instead of in random\n' +
  '                            windows (CHAIN: alpha, beta or a chain id; SECONDS: 1 to 60; once per chain)'

/** A command-line option the soak cannot run with: printed with the usage, exit code 2. */
class SoakUsageError extends Error {
  override name = 'SoakUsageError'
}

/** The sandbox's chains as the soak names them: `alpha` has the platform router, `beta` does not. */
const sandboxChainIds = {
  alpha: defaultChainSpecs.find((spec) => spec.withPlatformRouter)?.chainId,
  beta: defaultChainSpecs.find((spec) => !spec.withPlatformRouter)?.chainId,
}

/** `--interval-mining CHAIN:SECONDS`, each occurrence: chain id and block time. */
function parseIntervalMining(
  values: readonly (string | undefined)[],
): { chainId: number; seconds: number }[] {
  const known = defaultChainSpecs.map((spec) => `${spec.chainId} (${spec.name})`).join(', ')
  const parsed = values.map((text) => {
    const match = /^([^:]+):([^:]+)$/.exec(text ?? '')
    if (!match || text === undefined || text.startsWith('--'))
      throw new SoakUsageError(
        `--interval-mining needs CHAIN:SECONDS, e.g. --interval-mining beta:2 (got ${text === undefined || text.startsWith('--') ? 'nothing' : JSON.stringify(text)})`,
      )
    const [, chain = '', time = ''] = match
    const chainId =
      chain === 'alpha' || chain === 'beta'
        ? sandboxChainIds[chain]
        : /^\d+$/.test(chain)
          ? Number(chain)
          : undefined
    if (chainId === undefined || !defaultChainSpecs.some((spec) => spec.chainId === chainId))
      throw new SoakUsageError(
        `--interval-mining ${text}: ${JSON.stringify(chain)} is not a chain of the sandbox; use alpha, beta or one of ${known}`,
      )
    const seconds = /^\d+$/.test(time) ? Number(time) : Number.NaN
    if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > 60)
      throw new SoakUsageError(
        `--interval-mining ${text}: the block time must be a whole number of seconds from 1 to 60, e.g. beta:2`,
      )
    return { chainId, seconds }
  })
  for (const [index, entry] of parsed.entries())
    if (parsed.findIndex((other) => other.chainId === entry.chainId) !== index)
      throw new SoakUsageError(`--interval-mining names chain ${entry.chainId} twice: give it once per chain`)
  return parsed
}

function parseArgs(argv: string[]) {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`)
    return at >= 0 ? argv[at + 1] : undefined
  }
  const known = new Set(['--minutes', '--seed', '--dir', '--interval-mining', '--json', '--help'])
  for (const arg of argv)
    if (arg.startsWith('--') && !known.has(arg)) throw new SoakUsageError(`unknown option ${arg}`)
  const minutes = Number(value('minutes') ?? '5')
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
    throw new SoakUsageError('--minutes must be a number of minutes above 0 and at most 1440')
  const seed = Number(value('seed') ?? String(Date.now() % 1_000_000))
  if (!Number.isSafeInteger(seed) || seed < 0) throw new SoakUsageError('--seed must be a whole number')
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const dir = resolve(value('dir') ?? join('data', `soak-${stamp}`))
  const intervalMining = parseIntervalMining(
    argv.flatMap((arg, at) => (arg === '--interval-mining' ? [argv[at + 1]] : [])),
  )
  return { minutes, seed, dir, intervalMining, json: argv.includes('--json'), help: argv.includes('--help') }
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseArgs>
  try {
    options = parseArgs(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof SoakUsageError)) throw error
    process.stderr.write(`${error.message}\n${usage}\n`)
    return 2
  }
  if (options.help) {
    process.stdout.write(`${usage}\n`)
    return 0
  }
  const { minutes, seed, dir, json } = options
  mkdirSync(dir, { recursive: true })
  const soakLog = join(dir, 'soak.log')
  const log = (line: string) => appendFileSync(soakLog, `${new Date().toISOString()} ${line}\n`)
  const progress = (line: string) => {
    process.stderr.write(`[soak] ${line}\n`)
    log(line)
  }

  const interrupt = new AbortController()
  let signals = 0
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1
    if (signals > 1) {
      process.stderr.write(`[soak] ${signal} again: killing every process the soak started\n`)
      killAllStarted()
      process.exit(130)
    }
    progress(`${signal}: stopping (again to kill at once)`)
    interrupt.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  let sandbox: SandboxProcess | undefined
  let daemon: DaemonProcess | undefined
  const proxies: RpcFaultProxy[] = []
  try {
    progress(`files in ${dir}; starting the sandbox…`)
    sandbox = await startSandboxProcess(dir)
    const chains = sandbox.description.chains
    const alpha = chains.find((chain) => chain.platformRouterAddress !== null)
    const beta = chains.find((chain) => chain.platformRouterAddress === null)
    if (!alpha || !beta) throw new Error('the sandbox lacks the chain with a router or the one without')
    const wallet = await fundFreshWallet(chains)
    for (const chain of chains)
      proxies.push(await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: seed + chain.chainId }))
    const proxyUrls = new Map(chains.map((chain, index) => [chain.chainId, proxies[index]?.url ?? '']))
    const strategies = soakStrategies(alpha.chainId, beta.chainId)
    const steady: SteadyIntervalMining[] = options.intervalMining.map(({ chainId, seconds }) => {
      const chain = chains.find((candidate) => candidate.chainId === chainId)
      if (!chain) throw new Error(`--interval-mining: the sandbox has no chain ${chainId}`)
      if (!strategies.some((strategy) => strategy.chainId === chainId && strategy.side === 'buy'))
        throw new Error(`--interval-mining: no soak strategy buys on chain ${chainId}`)
      const asset = paymentAssetOf(chain)
      return { chainId, seconds, asset: asset.symbol, resetFirst: asset.zeroAllowanceFirst }
    })
    for (const { chainId, seconds, asset, resetFirst } of steady) {
      const rpcUrl = chains.find((chain) => chain.chainId === chainId)?.rpcUrl ?? ''
      await rpc(rpcUrl, 'evm_setIntervalMining', [seconds])
      progress(
        `chain ${chainId}: interval mining, a block every ${seconds} s, for the whole run (automine off); its buys pay ${asset}${resetFirst ? ', reset-first (an allowance must go to 0 before it changes)' : ''}`,
      )
    }
    const paths = writeSoakConfig({ dir, proxyUrls, strategies, privateKey: wallet.privateKey })
    progress(
      `sandbox ${sandbox.description.baseUrl} (pid ${sandbox.pid}); wallet ${wallet.address}; proxies ${[...proxyUrls].map(([id, url]) => `${id} → ${url}`).join(', ')}`,
    )
    if (interrupt.signal.aborted) return 130

    daemon = createDaemonProcess({ dir, configPath: paths.trading })
    daemon.start()
    const chaos = createChaos({
      chains: chains.map((chain, index) => ({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        proxy: proxies[index] as RpcFaultProxy,
      })),
      wallet: wallet.address,
      random: createRandom(seed),
      daemon,
      log,
      steadyIntervalMining: new Map(steady.map(({ chainId, seconds }) => [chainId, seconds])),
    })
    const ledgerPath = join(dir, 'data', 'stockroute.sqlite')
    const startedAt = Date.now()
    const end = startedAt + minutes * 60_000
    let nextProgress = startedAt + 30_000
    progress(`trading ${strategies.length} strategies for ${minutes} min with random faults (seed ${seed})`)
    while (Date.now() < end && !interrupt.signal.aborted) {
      await chaos.tick()
      if (Date.now() >= nextProgress) {
        nextProgress += 30_000
        const left = Math.max(0, Math.round((end - Date.now()) / 1000))
        const snapshot = readLedgerSnapshot(ledgerPath)
        progress(
          `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left | executions: ${snapshot ? formatStates(snapshot.byState) : 'ledger not readable yet'} | faults: ${formatFaults(chaos.counts, proxyTotals(proxies.map((p) => p.stats())))}`,
        )
      }
      await sleep(1_000, interrupt.signal)
    }
    if (interrupt.signal.aborted) return 130

    progress(
      'time is up: faults off, automine on; restarting the daemon without strategies to settle what is unfinished',
    )
    for (const entry of steady) {
      const rpcUrl = chains.find((chain) => chain.chainId === entry.chainId)?.rpcUrl ?? ''
      entry.heldToTheEnd = await rpc<number | null>(rpcUrl, 'anvil_getIntervalMining').then(
        (interval) => interval === entry.seconds,
        () => undefined,
      )
      log(
        `chain ${entry.chainId}: interval mining every ${entry.seconds} s held to the end: ${entry.heldToTheEnd}`,
      )
    }
    await chaos.calm()
    await daemon.stop(20_000)
    daemon.start(paths.drain)
    const drainStart = Date.now()
    let idle = false
    // At least 20 s, so recovery and one reconciliation run (every 15 s) have happened; at most 60 s.
    while (Date.now() - drainStart < 60_000 && !interrupt.signal.aborted) {
      await sleep(2_000, interrupt.signal)
      if (!daemon.running) daemon.start(paths.drain)
      const snapshot = readLedgerSnapshot(ledgerPath)
      idle = snapshot !== undefined && snapshot.unfinished === 0 && snapshot.openTransactions === 0
      if (idle && Date.now() - drainStart >= 20_000) break
    }
    const drainMs = Date.now() - drainStart
    progress(
      `drain: ${idle ? 'nothing unfinished' : 'still unfinished'} after ${Math.round(drainMs / 1000)} s; SIGTERM`,
    )
    await daemon.stop(20_000)
    if (interrupt.signal.aborted) return 130

    const auditChains: AuditChain[] = chains.map((chain) => ({
      chainId: chain.chainId,
      publicClient: createPublicClient({
        chain: sandboxChain(chain.chainId, chain.name, chain.rpcUrl),
        transport: http(chain.rpcUrl, { timeout: 15_000 }),
      }),
      executorAddress: chain.executorAddress,
      tokens: strategies
        .filter((strategy) => strategy.chainId === chain.chainId)
        .flatMap((strategy) => chain.tokens.filter((token) => token.ticker === strategy.ticker))
        .map((token) => ({ ticker: token.ticker, address: token.address })),
    }))
    const ledger = openLedger({ path: ledgerPath, readonly: true })
    let audit: Awaited<ReturnType<typeof auditSoakLedger>>
    try {
      audit = await auditSoakLedger({ ledger, chains: auditChains, wallet: wallet.address })
    } finally {
      ledger.close()
    }
    const result: SoakResult = {
      minutes,
      seed,
      dir,
      wallet: wallet.address,
      intervalMining: steady,
      faults: { ...chaos.counts, proxy: proxyTotals(proxies.map((p) => p.stats())) },
      daemon: { starts: daemon.starts, exits: daemon.exits },
      drain: { waitedMs: drainMs, idle },
      audit,
      log: logSummary(join(dir, 'data', 'stockroute.log')),
      ok: audit.ok,
    }
    process.stdout.write(json ? `${JSON.stringify(result)}\n` : renderTable(result))
    return result.ok ? 0 : 1
  } catch (error) {
    progress(`soak failed: ${(error as Error).stack ?? String(error)}`)
    return 1
  } finally {
    progress('stopping the daemon, the proxies and the sandbox…')
    await daemon?.stop(10_000)
    daemon?.close()
    await Promise.all(proxies.map((proxy) => proxy.stop()))
    await sandbox?.stop()
    progress('stopped')
  }
}

const code = await main()
process.exitCode = code
// Keep-alive sockets of the HTTP clients must not hold the process open once everything is stopped.
setTimeout(() => process.exit(code), 500).unref()
