// bench:approvals — what the approval planner's rule costs on chain: an allowance plan never counts
// on how an unresolved transaction of the wallet ends (docs/architecture.md, "Allowance plans that
// hold whatever becomes of earlier transactions"). So a token that refuses to change a non-zero
// allowance (USDT-like) gets `approve(spender, 0)` before each approval planned while another
// transaction of that token is not final, and under the `buffered`/`unlimited` policies an
// execution overlapping another approves again rather than reuse the pending approval.
//
// Its own sandbox: two anvil chains with a router, one whose asset is reset-first (USDT, 6
// decimals) and one ordinary (USDC, 6 decimals), and the sandbox service over them. Per scenario
// (asset × policy exact|unlimited × run sequential|spaced|burst) an engine over a new SQLite ledger
// for a new funded wallet buys AAPL on exchange 0 for 300 of the asset, N times: one after another
// on automine (`spaced`: with an empty block mined after each, so the one before is final when the
// next is planned), or all at once under 2-second interval mining. Then it counts, from the ledger
// and the receipts, the transactions an execution took by kind and the gas they used, and exits 1
// if any transaction was mined reverted.
// Run: npm run bench:approvals [-- --count 20] [-- --json]  (npm run -s for the JSON alone on stdout)
import { mkdtempSync, rmSync } from 'node:fs'
import { arch, cpus, platform, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { SandboxAssetSpec } from '@stockroute/sandbox/chainSpecs.js'
import { sandboxChain } from '@stockroute/sandbox/deploy.js'
import { fundWallet } from '@stockroute/sandbox/fundWallet.js'
import { type LocalChain, type LocalChains, startLocalChains } from '@stockroute/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import {
  type Address,
  createPublicClient,
  createTestClient,
  decodeFunctionData,
  erc20Abi,
  http,
  isAddressEqual,
  parseTransaction,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createNodeFetch } from '../src/chain/nodeFetch.js'
import {
  type ApprovalPolicy,
  createEngine,
  type EngineSettings,
  type ExecutionOutcome,
  type SwapIntent,
} from '../src/engine/index.js'
import { openLedger, type TransactionRecord } from '../src/store/index.js'
import { printTable } from './engine/report.js'

const usage = 'usage: npm run bench:approvals -- [--count N] [--json]'
const amountIn = '300'
const blockSeconds = 2

type AssetKind = 'reset-first' | 'ordinary'
type PolicyName = 'exact' | 'unlimited'
/**
 * `sequential`: one after another on automine, each planned as soon as the one before ended (its
 * execute in the head block, so not final yet); `spaced`: the same with `confirmations` empty
 * blocks mined after each, so each is planned once the one before is final; `burst`: all at once
 * under interval mining.
 */
type Run = 'sequential' | 'spaced' | 'burst'

const assets: Record<AssetKind, { chainId: number; spec: SandboxAssetSpec }> = {
  'reset-first': {
    chainId: 31_411,
    spec: { symbol: 'USDT', name: 'Tether USD (sandbox)', decimals: 6, zeroAllowanceFirst: true },
  },
  ordinary: {
    chainId: 31_412,
    spec: { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, zeroAllowanceFirst: false },
  },
}
const policies: Record<PolicyName, ApprovalPolicy> = {
  exact: { kind: 'exact' },
  unlimited: { kind: 'unlimited' },
}

/** The engine settings of the test suite on anvil (test/helpers/engine.ts), the approval policy aside. */
const benchEngineSettings: Partial<EngineSettings> = {
  validityMarginMs: 1_000,
  receiptPollMs: 50,
  cancelGraceMs: 500,
}
/** The transaction manager settings of the test suite on anvil. */
const benchTransactionSettings = { confirmations: 1, blockPollMs: 50, checkMs: 200, stuckAfterMs: 3_000 }

type KindCounts = { approve: number; reset: number; execute: number; cancel: number; gapFill: number }

/** One scenario as measured (gas in gas units; fees in wei). */
type ScenarioResult = {
  asset: AssetKind
  symbol: string
  chainId: number
  policy: PolicyName
  run: Run
  executions: number
  confirmed: number
  byState: Record<string, number>
  /** Executions that did not end confirmed, with the ledger's reason. */
  notConfirmed: { executionId: number; state: string; reason: string | null }[]
  /**
   * Each execution's transactions in nonce order, as `kind@nonce` (`reset` for an approve of 0) with
   * the block it was mined in, or its status when it never landed: `reset@4#12`, `execute@6 replaced`.
   */
  sequences: { executionId: number; transactions: string[] }[]
  wallMs: number
  /** The wallet's transactions mined, by kind ("reset": an approve of 0). */
  mined: KindCounts
  /** The same, per execution. */
  perExecution: KindCounts
  /** Versions signed that never landed: replaced (a speed-up, or an execute its cancel replaced), failed, dropped. */
  notLanded: number
  gas: {
    total: bigint
    approvals: bigint
    resets: bigint
    executes: bigint
    cancels: bigint
    gapFills: bigint
  }
  gasPerExecution: { total: number; resets: number }
  /** Gas of the resets over all gas of the scenario. */
  resetGasShare: number
  feesWei: { total: bigint; resets: bigint }
  reverted: { hash: string; kind: string; executionId: number | null }[]
}

const options = (() => {
  try {
    return parseOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(
      `bench:approvals: ${error instanceof Error ? error.message : String(error)}\n${usage}\n`,
    )
    process.exit(2)
  }
})()
const progress = (message: string) => process.stderr.write(`[bench:approvals] ${message}\n`)

/** What to stop, newest first: each entry runs once, from the finally or from SIGINT. */
const closers: { name: string; close: () => unknown }[] = []
const onStop = (name: string, close: () => unknown) => {
  const entry = { name, close }
  closers.push(entry)
  /** Stops it now (and not again). */
  return async () => {
    const at = closers.indexOf(entry)
    if (at < 0) return
    closers.splice(at, 1)
    await close()
  }
}
async function stopEverything() {
  for (let entry = closers.pop(); entry; entry = closers.pop()) {
    try {
      await entry.close()
    } catch (error) {
      progress(`stopping ${entry.name}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
let interrupted = false
let interruptedAt = 0
const onSignal = (signal: NodeJS.Signals) => {
  // Ctrl-C reaches this process twice at once: from the terminal (the whole process group) and
  // relayed by the tsx launcher. A second signal a while later forces the exit.
  if (interrupted && Date.now() - interruptedAt < 2_000) return
  if (interrupted) {
    progress(`${signal} again: exiting without waiting (the anvil chains are killed on exit)`)
    rmSync(ledgerDir, { recursive: true, force: true })
    process.exit(130)
  }
  interrupted = true
  interruptedAt = Date.now()
  progress(
    `${signal}: stopping the engine, the ledger, the service and the chains (${signal} again to exit at once)`,
  )
  void stopEverything().finally(() => process.exit(130))
}
const ledgerDir = mkdtempSync(join(tmpdir(), 'stockroute-bench-approvals-'))
onStop('the ledger folder', () => rmSync(ledgerDir, { recursive: true, force: true }))
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)
const results: ScenarioResult[] = []
let exitCode = 0
try {
  progress('starting two anvil chains (reset-first USDT, ordinary USDC) and the sandbox service')
  const local: LocalChains = await startLocalChains({
    specs: (['reset-first', 'ordinary'] as const).map((kind) => ({
      chainId: assets[kind].chainId,
      name: `Approval Bench ${assets[kind].spec.symbol}`,
      withPlatformRouter: true,
      assets: [assets[kind].spec] as const,
    })),
  })
  onStop('the local chains', () => local.stop())
  // The service's own limit per key is raised, as bench:engine does: a burst is not to wait on it.
  const service: SandboxService = await startSandboxService({ local, requestsPerSecond: 1_000 })
  onStop('the sandbox service', () => service.stop())
  const chainOf = (kind: AssetKind): LocalChain => {
    const chain = local.chains.find((candidate) => candidate.chainId === assets[kind].chainId)
    if (!chain) throw new Error(`the sandbox lacks chain ${assets[kind].chainId}`)
    return chain
  }

  for (const asset of ['reset-first', 'ordinary'] as const)
    for (const policy of ['exact', 'unlimited'] as const)
      for (const run of ['sequential', 'spaced', 'burst'] as const) {
        if (interrupted) break
        const started = performance.now()
        progress(`${asset} ${assets[asset].spec.symbol}, ${policy}, ${run}: ${options.count} buys`)
        const result = await runScenario(service, chainOf(asset), { asset, policy, run })
        results.push(result)
        progress(
          `  ${result.confirmed}/${result.executions} confirmed in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
            `${result.mined.reset} resets, ${result.mined.approve} approvals, ${result.mined.execute} executes, ` +
            `${result.mined.cancel} cancels; ${result.reverted.length} reverted`,
        )
      }

  if (!interrupted) {
    const reverted = results.reduce((sum, result) => sum + result.reverted.length, 0)
    if (options.json) process.stdout.write(`${JSON.stringify(reportOf(results), bigintsAsStrings)}\n`)
    else printResults(results)
    if (reverted > 0) {
      process.stderr.write(
        `WARNING: ${reverted} transaction(s) mined reverted: ${results
          .flatMap((result) =>
            result.reverted.map(
              (tx) => `${tx.kind} ${tx.hash} (${result.asset} ${result.policy} ${result.run})`,
            ),
          )
          .join(', ')}\n`,
      )
      exitCode = 1
    }
  }
} catch (error) {
  if (!interrupted) {
    process.stderr.write(
      `bench:approvals failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    exitCode = 1
  }
} finally {
  if (!interrupted) await stopEverything()
}
if (!interrupted) process.exit(exitCode)

/** One scenario: a new wallet, ledger and engine; N buys; what the ledger and the receipts say. */
async function runScenario(
  service: SandboxService,
  chain: LocalChain,
  scenario: { asset: AssetKind; policy: PolicyName; run: Run },
): Promise<ScenarioResult> {
  const { asset, policy, run } = scenario
  const viemChain = sandboxChain(chain.chainId, chain.name, chain.rpcUrl)
  const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl) })
  const testClient = createTestClient({ chain: viemChain, transport: http(chain.rpcUrl), mode: 'anvil' })
  const account = privateKeyToAccount(generatePrivateKey())
  await fundWallet(chain, account.address, { asset: String(options.count * Number(amountIn) + 1_000) })
  const ledger = openLedger({ path: join(ledgerDir, `${asset}-${policy}-${run}.sqlite`) })
  const closeLedger = onStop(`the ${asset} ${policy} ${run} ledger`, () => ledger.close())
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service.url,
      credentials: service.credential,
      makerAddress: account.address,
      requestsPerSecond: 1_000,
      fetch: createNodeFetch(),
    }),
    account,
    chains: [
      {
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        executorAddress: chain.executorAddress,
        operatorAddress: chain.operatorAddress,
        defaultInclusionMs: 1_000,
        transactions: benchTransactionSettings,
      },
    ],
    settings: { ...benchEngineSettings, approvalPolicy: policies[policy] },
  })
  const closeEngine = onStop(`the ${asset} ${policy} ${run} engine`, () => engine.close())
  await engine.recover()
  const intent = (index: number): SwapIntent => ({
    intentId: `approvals-${asset}-${policy}-${run}-${index}`,
    chainId: chain.chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn,
  })
  const started = performance.now()
  const outcomes: ExecutionOutcome[] = []
  if (run === 'sequential' || run === 'spaced') {
    for (let index = 0; index < options.count && !interrupted; index++) {
      outcomes.push(await engine.execute(intent(index)))
      if (run === 'spaced') {
        // Automine makes blocks only of our transactions: these make the last ones final, and the
        // next plan waits until the engine's head has them (its watcher polls every blockPollMs).
        await testClient.mine({ blocks: benchTransactionSettings.confirmations })
        const head = await publicClient.getBlockNumber({ cacheTime: 0 })
        await until(() => (engine.chains.get(chain.chainId)?.blocks.head()?.number ?? 0n) >= head)
      }
    }
    await settled(ledger, chain.chainId, account.address)
  } else {
    await testClient.setAutomine(false)
    await testClient.setIntervalMining({ interval: blockSeconds })
    try {
      outcomes.push(
        ...(await Promise.all(
          Array.from({ length: options.count }, (_, index) => engine.execute(intent(index))),
        )),
      )
      // Blocks still come while the last cancels and receipts land.
      await settled(ledger, chain.chainId, account.address)
    } finally {
      if (!interrupted) {
        await testClient.setIntervalMining({ interval: 0 })
        await testClient.setAutomine(true)
      }
    }
  }
  const wallMs = performance.now() - started
  await closeEngine()

  const byHash = new Map<string, TransactionRecord>()
  for (const { execution } of outcomes)
    for (const tx of ledger.transactions.listTransactionsForExecution(execution.id)) byHash.set(tx.hash, tx)
  // Transactions of no execution (gap fills) count too: the wallet is the scenario's alone.
  for (const tx of ledger.transactions.listMinedTransactions(chain.chainId, { fromBlock: 0n }))
    if (isAddressEqual(tx.from, account.address)) byHash.set(tx.hash, tx)
  const executions = outcomes.map(
    (outcome) => ledger.executions.getExecution(outcome.execution.id) ?? outcome.execution,
  )
  await closeLedger()

  const mined: KindCounts = { approve: 0, reset: 0, execute: 0, cancel: 0, gapFill: 0 }
  const gas = { total: 0n, approvals: 0n, resets: 0n, executes: 0n, cancels: 0n, gapFills: 0n }
  const feesWei = { total: 0n, resets: 0n }
  const reverted: ScenarioResult['reverted'] = []
  let notLanded = 0
  for (const tx of byHash.values()) {
    if (tx.status !== 'mined') {
      notLanded += 1
      continue
    }
    const receipt = await publicClient.getTransactionReceipt({ hash: tx.hash })
    const fee = receipt.gasUsed * receipt.effectiveGasPrice
    if (receipt.status === 'reverted' || tx.receiptStatus === 'reverted')
      reverted.push({ hash: tx.hash, kind: tx.kind, executionId: tx.executionId })
    gas.total += receipt.gasUsed
    feesWei.total += fee
    if (tx.kind === 'approve' && approvedAmount(tx) === 0n) {
      mined.reset += 1
      gas.resets += receipt.gasUsed
      feesWei.resets += fee
    } else if (tx.kind === 'approve') {
      mined.approve += 1
      gas.approvals += receipt.gasUsed
    } else if (tx.kind === 'execute') {
      mined.execute += 1
      gas.executes += receipt.gasUsed
    } else if (tx.kind === 'cancel') {
      mined.cancel += 1
      gas.cancels += receipt.gasUsed
    } else {
      mined.gapFill += 1
      gas.gapFills += receipt.gasUsed
    }
  }
  const count = Math.max(1, executions.length)
  const byState: Record<string, number> = {}
  for (const execution of executions) byState[execution.state] = (byState[execution.state] ?? 0) + 1
  return {
    asset,
    symbol: assets[asset].spec.symbol,
    chainId: chain.chainId,
    policy,
    run,
    executions: executions.length,
    confirmed: byState.confirmed ?? 0,
    byState,
    notConfirmed: executions
      .filter((execution) => execution.state !== 'confirmed')
      .map((execution) => ({
        executionId: execution.id,
        state: execution.state,
        reason: execution.reason ?? null,
      })),
    sequences: executions.map((execution) => ({
      executionId: execution.id,
      transactions: [...byHash.values()]
        .filter((tx) => tx.executionId === execution.id)
        .sort((a, b) => a.nonce - b.nonce || a.id - b.id)
        .map(
          (tx) =>
            `${tx.kind === 'approve' && approvedAmount(tx) === 0n ? 'reset' : tx.kind}@${tx.nonce}` +
            (tx.status === 'mined' ? `#${tx.blockNumber}` : ` ${tx.status}`),
        ),
    })),
    wallMs,
    mined,
    perExecution: {
      approve: mined.approve / count,
      reset: mined.reset / count,
      execute: mined.execute / count,
      cancel: mined.cancel / count,
      gapFill: mined.gapFill / count,
    },
    notLanded,
    gas,
    gasPerExecution: { total: Number(gas.total) / count, resets: Number(gas.resets) / count },
    resetGasShare: gas.total === 0n ? 0 : Number(gas.resets) / Number(gas.total),
    feesWei,
    reverted,
  }
}

/** Resolves once the wallet has no transaction `signed` or `broadcast` left (or after 60 s, with a note). */
async function settled(ledger: ReturnType<typeof openLedger>, chainId: number, from: Address) {
  const deadline = Date.now() + 60_000
  while (ledger.transactions.countUnresolvedTransactions(chainId, from) > 0) {
    if (Date.now() > deadline || interrupted) {
      progress(
        `  ${ledger.transactions.countUnresolvedTransactions(chainId, from)} transaction(s) still unresolved after 60 s`,
      )
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Resolves once `done` holds (checked every 20 ms), or after 10 s with a note. */
async function until(done: () => boolean) {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) {
      progress('  waited 10 s for the engine to see the new head; going on')
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The amount of a stored `approve(spender, amount)`. */
function approvedAmount(tx: TransactionRecord): bigint | undefined {
  const { data } = parseTransaction(tx.raw)
  if (!data) return undefined
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data })
    return call.functionName === 'approve' ? call.args[1] : undefined
  } catch {
    return undefined
  }
}

function parseOptions(argv: readonly string[]): { count: number; json: boolean } {
  let count = 20
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] as string
    const [name, inline] = argument.startsWith('--count=')
      ? ['--count', argument.slice(8)]
      : [argument, undefined]
    if (name === '--json') json = true
    else if (name === '--count') {
      const text = inline ?? argv[++i]
      if (text === undefined)
        throw new Error('--count needs a number: the buys per scenario, e.g. --count 20')
      if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 500)
        throw new Error(`--count must be a whole number from 1 to 500 (the buys per scenario), not "${text}"`)
      count = Number(text)
    } else if (name === '--help' || name === '-h') {
      process.stdout.write(`${usage}\n`)
      process.exit(0)
    } else throw new Error(`unknown option "${argument}"`)
  }
  return { count, json }
}

function hostLine() {
  return `${platform()} ${arch()}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}`
}

function reportOf(scenarios: readonly ScenarioResult[]) {
  return {
    host: hostLine(),
    count: options.count,
    amountIn,
    ticker: 'AAPL',
    blockSeconds,
    scenarios,
    reverted: scenarios.reduce((sum, result) => sum + result.reverted.length, 0),
  }
}

function bigintsAsStrings(_key: string, value: unknown) {
  return typeof value === 'bigint' ? value.toString() : value
}

function printResults(scenarios: readonly ScenarioResult[]) {
  console.log(`host: ${hostLine()}`)
  console.log(
    `${options.count} buys of AAPL for ${amountIn} of the asset per scenario, a fresh wallet, ledger and engine each; sequential: one after another on automine (each planned while the one before is in the head block, not final); spaced: the same with ${benchTransactionSettings.confirmations} empty block(s) mined after each (the one before final); burst: all at once under ${blockSeconds} s blocks`,
  )
  console.log('')
  const per = (value: number) => value.toFixed(2)
  printTable(
    [
      'asset',
      'policy',
      'run',
      'confirmed',
      'approve / exec',
      'reset / exec',
      'execute / exec',
      'cancel / exec',
      'not landed',
      'gas / exec',
      'reset gas / exec',
      'reset share',
      'reverted',
      'wall s',
    ],
    scenarios.map((result) => [
      `${result.asset} (${result.symbol})`,
      result.policy,
      result.run,
      `${result.confirmed} / ${result.executions}`,
      per(result.perExecution.approve),
      per(result.perExecution.reset),
      per(result.perExecution.execute),
      per(result.perExecution.cancel) +
        (result.mined.gapFill > 0 ? ` (+${result.mined.gapFill} gap fills)` : ''),
      String(result.notLanded),
      Math.round(result.gasPerExecution.total).toLocaleString('en-US'),
      Math.round(result.gasPerExecution.resets).toLocaleString('en-US'),
      `${(result.resetGasShare * 100).toFixed(1)}%`,
      String(result.reverted.length),
      (result.wallMs / 1000).toFixed(1),
    ]),
  )
  const ends = scenarios.flatMap((result) =>
    result.notConfirmed.map(
      (end) =>
        `- ${result.asset} ${result.policy} ${result.run}: execution ${end.executionId} ${end.state}: ${end.reason ?? '(no reason)'}`,
    ),
  )
  if (ends.length > 0) {
    console.log('Executions not confirmed:')
    for (const line of ends) console.log(line)
    console.log('')
  }
}
