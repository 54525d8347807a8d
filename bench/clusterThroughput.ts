// bench:cluster — several daemons on one API key (docs/scale-out.md): trades per second and how much
// of the key's budget the service accepted, with 1, 2 and 3 daemons in cluster mode, and 3 daemons
// with cluster mode off (each limiting itself to the key's whole rate), in one run. Real processes:
// a redis-server on loopback, two anvil chains and the sandbox service in this process with an API key
// limited to --rate requests/s (default 30), each daemon `stockroute start` (the built CLI) with a
// fresh funded wallet and a ledger of its own, trading as hard as it can (eight strategies buying
// every second, and four clients each posting a swap to its control API and following it to its end, back to back). The service's own
// counts give the accepted and refused (429) requests of the key over the measured window.
// Run: npm run bench:cluster [-- --seconds 60] [-- --rate 30] [-- --json]
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fundWallet } from '@stockroute/sandbox/fundWallet.js'
import { type LocalChains, startLocalChains } from '@stockroute/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import Database from 'better-sqlite3'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type RedisServer, startRedisServer } from '../test/helpers/redisProcess.js'
import { printTable } from './engine/report.js'

const usage = 'usage: npm run bench:cluster -- [--seconds N] [--rate R] [--json]'
const repoRoot = join(import.meta.dirname, '..')
const scenarios = [
  { daemons: 1, cluster: true },
  { daemons: 2, cluster: true },
  { daemons: 3, cluster: true },
  { daemons: 3, cluster: false },
] as const

type Result = {
  daemons: number
  cluster: boolean
  seconds: number
  confirmed: number
  tradesPerSecond: number
  accepted: number
  limited: number
  /** Accepted requests over the key's budget (rate × seconds). */
  budgetUse: number
  /** Refused (429) over all requests of the key. */
  refusedShare: number
}

const options = parseOptions(process.argv.slice(2))
const progress = (line: string) => process.stderr.write(`[bench:cluster] ${line}\n`)
const folder = mkdtempSync(join(tmpdir(), 'stockroute-bench-cluster-'))
const children = new Set<ChildProcess>()
const token = `bench-${randomUUID()}`
let redis: RedisServer | undefined
let local: LocalChains | undefined
let service: SandboxService | undefined

try {
  progress(
    `redis-server, two anvil chains and the sandbox service (key limited to ${options.rate} requests/s)`,
  )
  redis = await startRedisServer()
  local = await startLocalChains()
  service = await startSandboxService({ local, requestsPerSecond: options.rate })
  const results: Result[] = []
  for (const scenario of scenarios) {
    progress(
      `${scenario.daemons} daemon(s), cluster mode ${scenario.cluster ? 'on' : 'off'}: ${options.seconds} s`,
    )
    results.push(await runScenario(scenario, { redis, local, service }))
    const last = results.at(-1) as Result
    progress(
      `  ${last.tradesPerSecond.toFixed(1)} trades/s, ${(100 * last.budgetUse).toFixed(0)}% of the budget accepted, ${(100 * last.refusedShare).toFixed(1)}% refused`,
    )
  }
  const machine = { cpus: cpus().length, node: process.version }
  if (options.json) console.log(JSON.stringify({ bench: 'cluster', rate: options.rate, machine, results }))
  else {
    console.log(`\nbench:cluster — one API key at ${options.rate} requests/s, ${options.seconds} s per row\n`)
    printTable(
      ['daemons', 'cluster mode', 'trades/s', 'accepted/s', 'budget used', '429 share'],
      results.map((r) => [
        String(r.daemons),
        r.cluster ? 'on' : 'off',
        r.tradesPerSecond.toFixed(1),
        (r.accepted / r.seconds).toFixed(1),
        `${(100 * r.budgetUse).toFixed(1)}%`,
        `${(100 * r.refusedShare).toFixed(2)}%`,
      ]),
    )
    console.log('targets (issue 36): cluster mode on: 429 share ≤ 1%, budget used ≥ 85%; off: many 429s')
  }
} finally {
  for (const child of children) child.kill('SIGKILL')
  await service?.stop()
  await local?.stop()
  await redis?.stop()
  rmSync(folder, { recursive: true, force: true })
}

async function runScenario(
  scenario: (typeof scenarios)[number],
  world: { redis: RedisServer; local: LocalChains; service: SandboxService },
): Promise<Result> {
  const name = `bench-${randomUUID().slice(0, 8)}`
  const daemons = await Promise.all(
    Array.from({ length: scenario.daemons }, (_, index) =>
      startDaemon(`${name}-${index}`, scenario.cluster, world),
    ),
  )
  await Promise.all(daemons.map((daemon) => daemon.controlUrl))
  const urls = await Promise.all(daemons.map((daemon) => daemon.controlUrl))
  let posting = true
  const posters = urls.flatMap((url) =>
    Array.from({ length: 4 }, async () => {
      while (posting)
        await swapToTheEnd(url, world.local, () => posting).catch(
          () => new Promise((resolve) => setTimeout(resolve, 50)),
        )
    }),
  )
  // Warm-up: the daemons' first quotes and approvals are not what the bench measures.
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  const tally = () => world.service.context.rateLimiter.tally().get(`key:${world.service.credential.apiKey}`)
  const before = tally() ?? { accepted: 0, limited: 0 }
  const startedMs = Date.now()
  await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000))
  const after = tally() ?? { accepted: 0, limited: 0 }
  const endedMs = Date.now()
  posting = false
  await Promise.all(posters)
  for (const daemon of daemons) daemon.child.kill('SIGTERM')
  await Promise.all(daemons.map((daemon) => daemon.exited))
  const seconds = (endedMs - startedMs) / 1000
  const confirmed = daemons.reduce(
    (sum, daemon) => sum + confirmedBetween(daemon.ledgerPath, startedMs, endedMs),
    0,
  )
  const accepted = after.accepted - before.accepted
  const limited = after.limited - before.limited
  return {
    daemons: scenario.daemons,
    cluster: scenario.cluster,
    seconds,
    confirmed,
    tradesPerSecond: confirmed / seconds,
    accepted,
    limited,
    budgetUse: accepted / (options.rate * seconds),
    refusedShare: accepted + limited === 0 ? 0 : limited / (accepted + limited),
  }
}

async function startDaemon(
  nodeId: string,
  cluster: boolean,
  world: { redis: RedisServer; local: LocalChains; service: SandboxService },
) {
  const dir = join(folder, nodeId)
  mkdirSync(dir, { recursive: true })
  const privateKey = generatePrivateKey()
  const address = privateKeyToAccount(privateKey).address
  await Promise.all(world.local.chains.map((chain) => fundWallet(chain, address, { asset: '10000000' })))
  const [first, second] = world.local.chains
  const strategies = [first, second].flatMap((chain) =>
    (['AAPL', 'TSLA', 'NVDA', 'AAPLs'] as const).map((ticker) => ({
      kind: 'schedule',
      id: `${ticker.toLowerCase()}-${chain?.chainId}`,
      chainId: chain?.chainId,
      ticker,
      exchange: 0,
      side: 'buy',
      amountIn: ticker === 'AAPLs' ? '50' : '300',
      cron: '* * * * * *',
    })),
  )
  const config = {
    service: { baseUrl: world.service.url, requestsPerSecond: options.rate },
    chains: world.local.chains.map((chain) => ({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
      expectedInclusionMs: 1000,
    })),
    dataDir: 'data',
    strategies,
    marketData: { intervalMs: 500, staleAfterMs: 10_000 },
    api: { tokenEnv: 'STOCKROUTE_API_TOKEN' },
    ...(cluster ? { cluster: { redisUrl: world.redis.url, name: nodeId.replace(/-\d+$/, ''), nodeId } } : {}),
  }
  writeFileSync(join(dir, 'stockroute.json'), JSON.stringify(config, null, 2))
  writeFileSync(
    join(dir, '.env'),
    `STOCKROUTE_API_KEY=${world.service.credential.apiKey}\nSTOCKROUTE_API_SECRET=${world.service.credential.apiSecret}\nSTOCKROUTE_PRIVATE_KEY=${privateKey}\n`,
  )
  const child = spawn(
    process.execPath,
    ['bin/stockroute.js', 'start', '--config', join(dir, 'stockroute.json')],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, STOCKROUTE_API_TOKEN: token },
    },
  )
  children.add(child)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      children.delete(child)
      resolve()
    }),
  )
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const controlUrl = new Promise<string>((resolve, reject) => {
    let buffer = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const match = /^control API (\S+)/m.exec(buffer)
      if (match?.[1]) resolve(match[1])
    })
    void exited.then(() =>
      reject(new Error(`daemon ${nodeId} exited before its control API: ${stderr.slice(-2000)}`)),
    )
  })
  return { child, exited, controlUrl, ledgerPath: join(dir, 'data', 'stockroute.sqlite') }
}

/** Posts a swap and follows it until it ends: a client waiting for its trade, not a flood of intents. */
async function swapToTheEnd(url: string, local: LocalChains, going: () => boolean) {
  const chain = local.chains[Math.floor(Math.random() * local.chains.length)]
  const response = await fetch(`${url}/v1/swaps`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-${randomUUID()}`,
    },
    body: JSON.stringify({
      chainId: chain?.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '300',
    }),
  })
  const { executionId } = (await response.json()) as { executionId: number }
  while (going()) {
    const reply = await fetch(`${url}/v1/swaps/${executionId}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const { state } = (await reply.json()) as { state: string }
    if (['confirmed', 'failed', 'expired', 'rejected'].includes(state)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function confirmedBetween(ledgerPath: string, fromMs: number, toMs: number): number {
  const db = new Database(ledgerPath, { readonly: true })
  try {
    const row = db
      .prepare(
        "SELECT count(*) AS n FROM executions WHERE state = 'confirmed' AND updated_at_ms BETWEEN ? AND ?",
      )
      .get(fromMs, toMs) as { n: number }
    return row.n
  } finally {
    db.close()
  }
}

function parseOptions(args: readonly string[]) {
  const parsed = { seconds: 30, rate: 30, json: false }
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]
    const value = () => {
      const number = Number(args[++i])
      if (!Number.isFinite(number) || number <= 0) {
        process.stderr.write(`bench:cluster: ${arg} needs a positive number\n${usage}\n`)
        process.exit(2)
      }
      return number
    }
    if (arg === '--seconds') parsed.seconds = value()
    else if (arg === '--rate') parsed.rate = value()
    else if (arg === '--json') parsed.json = true
    else {
      process.stderr.write(`bench:cluster: unknown option ${arg}\n${usage}\n`)
      process.exit(2)
    }
  }
  return parsed
}
