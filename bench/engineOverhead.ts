// What the execution engine costs per trade over the raw path a taker would code by hand, on the
// sandbox (anvil chains, automine): getRouterQuote → approve(exact) → execute → receipt with viem,
// against engine.execute (ledger file, guard, simulation, exact approvals, persist before
// broadcast). Then 40 intents at once on both chains. Sandbox in this process, loopback.
// Run: npm run bench:engine [-- --trades 40 --concurrent 40 --warmup 2]
// (or BENCH_TRADES, BENCH_CONCURRENT, BENCH_WARMUP)
import { mkdtempSync, rmSync } from 'node:fs'
import { arch, cpus, platform, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  type LocalAccount,
  type PublicClient,
  parseEther,
  parseUnits,
  type Transport,
  type WalletClient,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getRouterQuote } from '../src/api/actions/getRouterQuote.js'
import { createServiceClient, type ServiceClient } from '../src/api/createServiceClient.js'
import { toSignedQuoteStruct } from '../src/api/quoteStruct.js'
import { createEngine, type Engine, type SwapIntent } from '../src/engine/index.js'
import { rfqSettlementAbi } from '../src/sandbox/contracts/artifacts/index.js'
import { sandboxChain } from '../src/sandbox/deploy.js'
import type { SandboxKey } from '../src/sandbox/keys.js'
import { type LocalChain, startLocalChains } from '../src/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '../src/sandbox/service/startSandboxService.js'
import { type Ledger, openLedger } from '../src/store/index.js'

const args = process.argv.slice(2)
const option = (name: string, env: string, fallback: number, max: number) => {
  const at = args.indexOf(`--${name}`)
  const positional =
    name === 'trades' && args[0] !== undefined && !args[0].startsWith('--') ? args[0] : undefined
  const raw = at >= 0 ? args[at + 1] : (positional ?? process.env[env])
  const value = raw === undefined ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} (${env}) must be a whole number`)
  return Math.min(value, max)
}
const trades = Math.max(1, option('trades', 'BENCH_TRADES', 40, 1_000))
const concurrent = Math.max(2, option('concurrent', 'BENCH_CONCURRENT', 40, 1_000))
const warmup = option('warmup', 'BENCH_WARMUP', 2, 20)
const amountIn = '300'
// The only setting changed from the engine's defaults: the baseline polls receipts every 50 ms too.
const receiptPollMs = 50

const progress = (message: string) => process.stderr.write(`[bench:engine] ${message}\n`)

progress('starting local chains and the sandbox service')
const local = await startLocalChains({ walletCount: 1 })
const ledgerDir = mkdtempSync(join(tmpdir(), 'stockroute-bench-engine-'))
let service: SandboxService | undefined
try {
  service = await startSandboxService({ local, logger: { error: (...parts) => console.error(...parts) } })
  const [funder] = local.wallets
  if (!funder) throw new Error('no sandbox test wallet')
  const withRouter = local.chains.find((chain) => chain.platformRouterAddress !== null)
  const withoutRouter = local.chains.find((chain) => chain.platformRouterAddress === null)
  if (!withRouter || !withoutRouter) throw new Error('the sandbox lacks a chain with or without a router')
  const sandbox = service
  const funding = createFunder(funder, sandbox)

  let intentCounter = 0
  const intentFor = (chain: LocalChain): SwapIntent => ({
    intentId: `bench-engine-${process.pid}-${++intentCounter}`,
    chainId: chain.chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn,
  })

  const perChain: ChainResult[] = []
  for (const chain of [withRouter, withoutRouter]) {
    const label = `${chain.chainId} (${chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'}, ${chain.defaultAsset.symbol} ${chain.defaultAsset.decimals} dec)`
    progress(`chain ${label}: baseline, ${warmup} warm-up + ${trades} sequential buys`)
    const rawClients = (await funding.freshTaker([chain], trades + warmup)).clientsOn(chain)
    const baselineMs: number[] = []
    for (let i = 0; i < warmup + trades; i++) {
      const started = performance.now()
      await rawBuy(rawClients, chain)
      if (i >= warmup) baselineMs.push(performance.now() - started)
    }

    progress(`chain ${label}: engine, ${warmup} warm-up + ${trades} sequential buys`)
    const bench = await openBenchEngine(
      sandbox,
      local.chains,
      await funding.freshTaker([chain], trades + warmup),
    )
    const engineMs: number[] = []
    const executionIds: number[] = []
    let failures = 0
    try {
      for (let i = 0; i < warmup + trades; i++) {
        const started = performance.now()
        const { execution } = await bench.engine.execute(intentFor(chain))
        const elapsed = performance.now() - started
        if (execution.state !== 'confirmed') {
          failures += 1
          progress(`engine execution ${execution.id} ended ${execution.state}: ${execution.reason}`)
          continue
        }
        if (i >= warmup) {
          engineMs.push(elapsed)
          executionIds.push(execution.id)
        }
      }
      perChain.push({ label, baselineMs, engineMs, failures, ...eventLatencies(bench.ledger, executionIds) })
    } finally {
      await bench.close()
    }
  }

  const half = Math.floor(concurrent / 2)
  const counts = new Map([
    [withRouter.chainId, half],
    [withoutRouter.chainId, concurrent - half],
  ])
  const both = [withRouter, withoutRouter]

  progress(`concurrent: baseline, ${concurrent} buys, one sequential loop per chain, chains in parallel`)
  const rawTaker = await funding.freshTaker(both, concurrent)
  const rawStarted = performance.now()
  await Promise.all(
    both.map(async (chain) => {
      const clients = rawTaker.clientsOn(chain)
      for (let i = 0; i < (counts.get(chain.chainId) ?? 0); i++) await rawBuy(clients, chain)
    }),
  )
  const rawWallMs = performance.now() - rawStarted

  progress(`concurrent: engine, ${concurrent} intents submitted at once`)
  const concurrentBench = await openBenchEngine(
    sandbox,
    local.chains,
    await funding.freshTaker(both, concurrent),
  )
  let concurrentResult: ConcurrentResult
  try {
    const intents = both.flatMap((chain) =>
      Array.from({ length: counts.get(chain.chainId) ?? 0 }, () => intentFor(chain)),
    )
    const started = performance.now()
    const outcomes = await Promise.all(intents.map((intent) => concurrentBench.engine.execute(intent)))
    const wallMs = performance.now() - started
    const confirmed = outcomes.filter((outcome) => outcome.execution.state === 'confirmed')
    for (const outcome of outcomes)
      if (outcome.execution.state !== 'confirmed')
        progress(
          `engine execution ${outcome.execution.id} ended ${outcome.execution.state}: ${outcome.execution.reason}`,
        )
    concurrentResult = {
      wallMs,
      confirmed: confirmed.length,
      ...eventLatencies(
        concurrentBench.ledger,
        confirmed.map((outcome) => outcome.execution.id),
      ),
    }
  } finally {
    await concurrentBench.close()
  }

  printReport(perChain, { rawWallMs, engine: concurrentResult }, counts)
} finally {
  await service?.stop()
  await local.stop()
  rmSync(ledgerDir, { recursive: true, force: true })
}

type Latencies = { quoteToSubmittedMs: number[]; submittedToConfirmedMs: number[] }
type ChainResult = Latencies & { label: string; baselineMs: number[]; engineMs: number[]; failures: number }
type ConcurrentResult = Latencies & { wallMs: number; confirmed: number }

type Taker = {
  account: LocalAccount
  publicClient: PublicClient<Transport, Chain>
  walletClient: WalletClient<Transport, Chain, LocalAccount>
}

/** The raw path: quote, approve exactly what required_approvals says, execute, receipt; no ledger, guard or simulation. */
async function rawBuy(taker: Taker & { service: ServiceClient }, chain: LocalChain) {
  const reply = await getRouterQuote(taker.service, {
    ticker: 'AAPL',
    exchange: 0,
    isBuy: true,
    chainId: chain.chainId,
    asset: chain.defaultAsset.address,
    amountIn,
  })
  for (const approval of reply.requiredApprovals) {
    const hash = await taker.walletClient.writeContract({
      address: approval.tokenAddress,
      abi: erc20Abi,
      functionName: 'approve',
      args: [approval.spender, approval.amount],
    })
    await mined(taker.publicClient, hash, 'approve')
  }
  const hash = await taker.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [toSignedQuoteStruct(reply.quote), reply.signature],
  })
  await mined(taker.publicClient, hash, 'execute')
}

async function mined(publicClient: PublicClient<Transport, Chain>, hash: Hex, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: receiptPollMs })
  if (receipt.status !== 'success') throw new Error(`${what} ${hash} reverted`)
  return receipt
}

function clientsFor(chain: LocalChain, account: LocalAccount): Taker {
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const transport = http(chain.rpcUrl)
  return {
    account,
    publicClient: createPublicClient({ chain: viemChain, transport }),
    walletClient: createWalletClient({ account, chain: viemChain, transport }),
  }
}

/**
 * New wallets for each part of the bench, funded from a sandbox test wallet (gas money and the
 * default asset for `buys` buys plus a margin), so no two parts share a nonce sequence.
 */
function createFunder(funder: SandboxKey, sandbox: SandboxService) {
  const account = privateKeyToAccount(funder.privateKey)
  // One funding at a time per chain: the funder's nonces are viem's to pick, from the chain.
  let queue: Promise<unknown> = Promise.resolve()
  const fundOn = async (chain: LocalChain, to: `0x${string}`, buys: number) => {
    const { publicClient, walletClient } = clientsFor(chain, account)
    const gas = await walletClient.sendTransaction({ to, value: parseEther('10') })
    await mined(publicClient, gas, 'gas funding')
    const asset = parseUnits(amountIn, chain.defaultAsset.decimals) * BigInt(buys + 2)
    const transfer = await walletClient.writeContract({
      address: chain.defaultAsset.address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, asset],
    })
    await mined(publicClient, transfer, 'asset funding')
  }
  return {
    async freshTaker(chains: readonly LocalChain[], buys: number) {
      const privateKey = generatePrivateKey()
      const taker = privateKeyToAccount(privateKey)
      const funded = queue.then(() => Promise.all(chains.map((chain) => fundOn(chain, taker.address, buys))))
      queue = funded.catch(() => undefined)
      await funded
      return {
        privateKey,
        account: taker,
        clientsOn(chain: LocalChain) {
          const service = createServiceClient({
            baseUrl: sandbox.url,
            credentials: sandbox.credential,
            makerAddress: taker.address,
          })
          return { ...clientsFor(chain, taker), service }
        },
      }
    },
  }
}

/** An engine for `taker` over a new SQLite ledger file, on every sandbox chain, recovered and ready. */
async function openBenchEngine(
  sandbox: SandboxService,
  chains: readonly LocalChain[],
  taker: { account: LocalAccount },
): Promise<{ engine: Engine; ledger: Ledger; close(): Promise<void> }> {
  const ledger = openLedger({ path: join(ledgerDir, `${taker.account.address}.sqlite`) })
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: sandbox.url,
      credentials: sandbox.credential,
      makerAddress: taker.account.address,
    }),
    account: taker.account,
    chains: chains.map((chain) => ({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
    })),
    settings: { receiptPollMs },
  })
  await engine.recover()
  return {
    engine,
    ledger,
    async close() {
      await engine.close()
      ledger.close()
    },
  }
}

/** From the ledger's execution_events: last `quoting` → `submitted`, and `submitted` → `confirmed`. */
function eventLatencies(ledger: Ledger, executionIds: readonly number[]): Latencies {
  const quoteToSubmittedMs: number[] = []
  const submittedToConfirmedMs: number[] = []
  for (const id of executionIds) {
    const events = ledger.executions.listExecutionEvents(id)
    const quoting = events.filter((event) => event.to === 'quoting').at(-1)
    const submitted = events.find((event) => event.to === 'submitted')
    const confirmed = events.find((event) => event.to === 'confirmed')
    if (!quoting || !submitted || !confirmed) continue
    quoteToSubmittedMs.push(submitted.atMs - quoting.atMs)
    submittedToConfirmedMs.push(confirmed.atMs - submitted.atMs)
  }
  return { quoteToSubmittedMs, submittedToConfirmedMs }
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] ?? Number.NaN
}

function table(header: readonly string[], rows: readonly (readonly string[])[]) {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]?.length ?? 0)))
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(line(header))
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`)
  for (const row of rows) console.log(line(row))
  console.log('')
}

function printReport(
  perChain: readonly ChainResult[],
  concurrentRun: { rawWallMs: number; engine: ConcurrentResult },
  counts: ReadonlyMap<number, number>,
) {
  const ms = (value: number) => value.toFixed(1)
  console.log(
    `host: ${platform()} ${arch()}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}`,
  )
  console.log('')
  console.log(
    `## Sequential buys: AAPL (exchange 0), amountIn ${amountIn}, ${trades} measured after ${warmup} warm-up, ms per trade`,
  )
  console.log('')
  console.log(
    'baseline: getRouterQuote → approve(exact, receipt) → execute → receipt with viem; engine: engine.execute (SQLite ledger, guard, simulation, exact approvals, persist before broadcast); both poll receipts every 50 ms',
  )
  console.log('')
  const rows: string[][] = []
  for (const result of perChain) {
    const base = mean(result.baselineMs)
    const engine = mean(result.engineMs)
    rows.push([
      result.label,
      'baseline',
      String(result.baselineMs.length),
      ms(base),
      ms(percentile(result.baselineMs, 50)),
      ms(percentile(result.baselineMs, 95)),
      '',
    ])
    rows.push([
      result.label,
      'engine',
      `${result.engineMs.length}${result.failures ? ` (${result.failures} failed)` : ''}`,
      ms(engine),
      ms(percentile(result.engineMs, 50)),
      ms(percentile(result.engineMs, 95)),
      `${(engine / base).toFixed(2)} (p50 ${(percentile(result.engineMs, 50) / percentile(result.baselineMs, 50)).toFixed(2)})`,
    ])
  }
  table(['chain', 'path', 'trades', 'mean', 'p50', 'p95', 'engine/baseline (mean)'], rows)

  console.log('## Engine latencies from the ledger (execution_events), ms')
  console.log('')
  console.log(
    "quote → submitted: last 'quoting' event to 'submitted' (execute signed and stored, just before broadcast); submitted → confirmed: to the recorded fill",
  )
  console.log('')
  const latencyRow = (label: string, latencies: Latencies) => [
    label,
    ms(percentile(latencies.quoteToSubmittedMs, 50)),
    ms(percentile(latencies.quoteToSubmittedMs, 95)),
    ms(percentile(latencies.submittedToConfirmedMs, 50)),
    ms(percentile(latencies.submittedToConfirmedMs, 95)),
  ]
  table(
    ['run', 'quote→submitted p50', 'p95', 'submitted→confirmed p50', 'p95'],
    [
      ...perChain.map((result) => latencyRow(`sequential, chain ${result.label}`, result)),
      latencyRow('concurrent, both chains', concurrentRun.engine),
    ],
  )

  const split = [...counts.entries()].map(([chainId, count]) => `${count} on ${chainId}`).join(', ')
  console.log(`## ${concurrent} buys on both chains (${split})`)
  console.log('')
  console.log(
    'baseline: one fresh wallet, a sequential raw loop per chain, chains in parallel (the raw path cannot overlap trades of one wallet: approve(exact) overwrites the allowance); engine: one fresh wallet, all intents submitted at once',
  )
  console.log('')
  const total = concurrent
  table(
    ['path', 'confirmed', 'wall s', 'trades/s'],
    [
      [
        'baseline',
        String(total),
        (concurrentRun.rawWallMs / 1000).toFixed(2),
        (total / (concurrentRun.rawWallMs / 1000)).toFixed(1),
      ],
      [
        'engine',
        `${concurrentRun.engine.confirmed} of ${total}`,
        (concurrentRun.engine.wallMs / 1000).toFixed(2),
        (concurrentRun.engine.confirmed / (concurrentRun.engine.wallMs / 1000)).toFixed(1),
      ],
    ],
  )
}
