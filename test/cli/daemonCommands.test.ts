import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { writeRuntimeFile } from '../../src/daemon/runtimeFile.js'
import { openLedger } from '../../src/store/index.js'
import { type DaemonRun, useDaemonProcesses } from '../helpers/daemonProcess.js'
import { chainWithRouter, localChains } from '../helpers/localChains.js'
import { type CliRun, exitOf, repoRoot, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute halt|resume|swap|executions|positions|strategies|events` as an operator runs them:
// first on a ledger no daemon runs on (the ledger directly, read-only for reads), then through a
// running daemon's control API (found by its runtime file beside the ledger).

// biome-ignore lint/suspicious/noExplicitAny: tests read the printed JSON freely
const printed = (run: CliRun): any => JSON.parse(run.stdout)

/** A strategy that never trades: a buy below any price the sandbox makes. */
const idleStrategy = (chainId: number) => ({
  kind: 'limit',
  id: 'idle-aapl',
  chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '100',
  limitPrice: '0.01',
})

describe('without a daemon: the ledger directly', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-cli-ledger-'))
  const configPath = join(dir, 'stockroute.json')
  const ledgerPath = join(dir, 'data', 'stockroute.sqlite')
  // Nothing is contacted: the service and chain are never called by these commands.
  writeFileSync(
    configPath,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:9' },
      chains: [
        {
          chainId: 31337,
          rpcUrl: 'http://127.0.0.1:9',
          executorAddress: '0x0000000000000000000000000000000000000001',
          operatorAddress: '0x0000000000000000000000000000000000000002',
        },
      ],
      dataDir: 'data',
      strategies: [idleStrategy(31337)],
    }),
  )
  mkdirSync(join(dir, 'data'))
  const ledger = openLedger({ path: ledgerPath })
  const first = ledger.executions.createExecution({
    intentId: 'test-1',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
    amountType: 'stablecoin',
  })
  ledger.executions.transition(first.id, 'intent', 'rejected', 'test: refused on purpose')
  const second = ledger.executions.createExecution({
    intentId: 'test-2',
    chainId: 31337,
    ticker: 'TSLA',
    exchange: 0,
    side: 'sell',
    amountIn: '2',
    amountType: 'stocktoken',
    strategy: 'idle-aapl',
  })
  ledger.close()

  const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath])

  it('executions: lists (filtered), shows one with its timeline; cancel and events --follow need the daemon', async () => {
    const [all, rejected, ofStrategy, shown, text, cancel, follow] = await Promise.all([
      stockroute('executions', '--json'),
      stockroute('executions', '--state', 'rejected', '--json'),
      stockroute('executions', '--strategy', 'idle-aapl', '--since', '1h', '--json'),
      stockroute('executions', 'show', String(first.id), '--json'),
      stockroute('executions'),
      stockroute('executions', 'cancel', String(second.id)),
      stockroute('events', '--follow'),
    ])
    expect(all.code, all.stderr).toBe(0)
    expect(all.stderr).toContain(`no daemon runs: using the ledger ${ledgerPath} directly`)
    expect(printed(all).executions.map((row: { executionId: number }) => row.executionId)).toEqual([
      second.id,
      first.id,
    ])
    expect(printed(rejected).executions).toMatchObject([
      { executionId: first.id, state: 'rejected', reason: 'test: refused on purpose', intentId: 'test-1' },
    ])
    expect(printed(ofStrategy).executions).toMatchObject([{ executionId: second.id, strategy: 'idle-aapl' }])
    expect(printed(shown)).toMatchObject({
      executionId: first.id,
      events: [
        { from: null, to: 'intent' },
        { from: 'intent', to: 'rejected', reason: 'test: refused on purpose' },
      ],
      transactions: [],
      fills: [],
    })
    expect(text.stdout).toMatch(
      /^ID\s+STATE\s+CHAIN\s+TICKER\s+SIDE\s+AMOUNT\s+STRATEGY\s+CREATED\s+REASON\n/,
    )
    expect(text.stdout).toMatch(
      new RegExp(`\\n\\s*${first.id}\\s+rejected\\s+31337\\s+AAPL\\s+buy\\s+1000 asset\\s+-`),
    )

    expect(cancel.code).toBe(exitCodes.unreachable)
    expect(cancel.stderr).toMatch(
      /Cancelling an execution needs the running daemon, and none runs on .*: start it with `stockroute start --config .*`, or stop all signing with `stockroute halt`/,
    )
    expect(follow.code).toBe(exitCodes.unreachable)
    expect(follow.stderr).toMatch(/Following events needs the running daemon/)
  })

  it('halt and resume in the ledger, then events, positions and strategies read from it', async () => {
    const halted = await stockroute('halt', '--reason', 'test: stop', '--json')
    expect(halted.code, halted.stderr).toBe(0)
    expect(printed(halted)).toMatchObject({ halted: true, changed: true, via: 'ledger', ledgerPath })
    const resumed = await stockroute('resume', '--json')
    expect(printed(resumed)).toMatchObject({ halted: false, changed: true, via: 'ledger' })

    const [events, haltsOnly, positions, strategies] = await Promise.all([
      stockroute('events', '--json'),
      stockroute('events', '--kinds', 'halt,resume'),
      stockroute('positions', '--json'),
      stockroute('strategies', '--json'),
    ])
    expect(events.code, events.stderr).toBe(0)
    const lines = events.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((event: { kind: string }) => event.kind)).toEqual([
      'execution',
      'execution',
      'execution',
      'halt',
      'resume',
    ])
    expect(haltsOnly.stdout).toMatch(
      /^#\d+ \S+ halt: test: stop\n#\d+ \S+ resume: operator: stockroute resume\n$/,
    )
    expect(printed(positions)).toEqual({ positions: [] })
    expect(printed(strategies)).toEqual({
      strategies: [
        {
          id: 'idle-aapl',
          kind: 'limit',
          enabled: true,
          switched: null,
          lastRun: null,
          trades: { submitted: 1, confirmed: 0, lastAt: null },
          nextRunAt: null,
        },
      ],
    })
  })

  it('a runtime file whose daemon is gone is stale: said so, and the ledger is used', async () => {
    writeRuntimeFile({
      ledgerPath,
      pid: 2 ** 22 + 1, // above Linux's pid_max: never a live process
      url: 'http://127.0.0.1:9',
      startedAt: new Date(),
      token: { source: 'env', name: 'STOCKROUTE_API_TOKEN' },
    })
    const run = await stockroute('halt', '--json')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(
      /stale runtime file .*stockroute\.sqlite\.runtime\.json ignored: its daemon, pid \d+, is not running/,
    )
    expect(printed(run)).toMatchObject({ halted: true, via: 'ledger' })
  })
})

describe('strategies without a daemon: what each traded, from the ledger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-cli-strategies-'))
  const configPath = join(dir, 'stockroute.json')
  writeFileSync(
    configPath,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:9' },
      chains: [
        {
          chainId: 31337,
          rpcUrl: 'http://127.0.0.1:9',
          executorAddress: '0x0000000000000000000000000000000000000001',
          operatorAddress: '0x0000000000000000000000000000000000000002',
        },
      ],
      dataDir: 'data',
      strategies: [idleStrategy(31337), { ...idleStrategy(31337), id: 'buyer-aapl', limitPrice: '1000' }],
    }),
  )
  mkdirSync(join(dir, 'data'))
  const ledger = openLedger({ path: join(dir, 'data', 'stockroute.sqlite') })
  const bought = ledger.executions.createExecution({
    intentId: 'buyer-aapl-1',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '100',
    amountType: 'stablecoin',
    strategy: 'buyer-aapl',
  })
  let state: 'intent' | 'quoting' | 'quoted' | 'submitted' | 'confirmed' = 'intent'
  for (const next of ['quoting', 'quoted', 'submitted', 'confirmed'] as const) {
    ledger.executions.transition(bought.id, state, next, `test: to ${next}`)
    state = next
  }
  const confirmedAt = new Date(ledger.executions.getExecution(bought.id)?.updatedAtMs ?? 0).toISOString()
  ledger.close()

  it('shows per strategy its last trade (or never) and how many it submitted and confirmed', async () => {
    const [json, text] = await Promise.all([
      runStockroute(['strategies', '--json', '--config', configPath]),
      runStockroute(['strategies', '--config', configPath]),
    ])
    expect(json.code, json.stderr).toBe(0)
    expect(printed(json).strategies).toMatchObject([
      { id: 'idle-aapl', trades: { submitted: 0, confirmed: 0, lastAt: null } },
      { id: 'buyer-aapl', trades: { submitted: 1, confirmed: 1, lastAt: confirmedAt } },
    ])
    expect(text.code, text.stderr).toBe(0)
    const lines = text.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^ID\s+KIND\s+ENABLED\s+LAST RUN\s+LAST TRADE\s+SUBMITTED\s+CONFIRMED\s+NEXT RUN\s+SWITCHED$/,
    )
    expect(lines[1]).toMatch(/^idle-aapl\s+limit\s+yes\s+-\s+never\s+0\s+0\s+-\s+-$/)
    expect(lines[2]).toMatch(/^buyer-aapl\s+limit\s+yes\s+-\s+(now|\d+s ago)\s+1\s+1\s+-\s+-$/)
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120)
  })
})

describe('through the running daemon', () => {
  const service = useSandboxService()
  const daemons = useDaemonProcesses(service)

  it('halt, resume, swap, executions, positions, strategies and events --follow go through the daemon', async () => {
    const chain = chainWithRouter()
    const { configPath } = await daemons.writeConfig('cli', [
      idleStrategy(localChains()[0]?.chainId ?? 31337),
    ])
    const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath])
    let daemon: DaemonRun = daemons.start(configPath)
    await daemon.waitFor(/control API/)
    const via = new RegExp(`via daemon pid ${daemon.child.pid} at http://127\\.0\\.0\\.1:\\d+`)

    // The follower starts first and sees everything after it.
    const follower = followEvents(configPath)
    await follower.waitForStderr(/following events via daemon/)

    const halted = await stockroute('halt', '--reason', 'test: through the daemon', '--json')
    expect(halted.code, halted.stderr).toBe(0)
    expect(halted.stderr).toMatch(via)
    expect(printed(halted)).toMatchObject({
      halted: true,
      changed: true,
      via: 'daemon',
      daemonPid: daemon.child.pid,
    })
    const resumed = await stockroute('resume', '--json')
    expect(printed(resumed)).toMatchObject({ halted: false, changed: true, via: 'daemon' })

    const swap = await stockroute(
      'swap',
      '--chain',
      String(chain.chainId),
      '--ticker',
      'AAPL',
      '--exchange',
      '0',
      '--side',
      'buy',
      '--amount',
      '1000',
      '--intent-id',
      'through-daemon-1',
      '--json',
    )
    expect(swap.code, swap.stderr).toBe(0)
    expect(swap.stderr).toMatch(via)
    const swapped = printed(swap)
    expect(swapped).toMatchObject({
      state: 'confirmed',
      done: true,
      via: 'daemon',
      intentId: 'api:through-daemon-1',
    })
    expect(swapped.fills).toHaveLength(1)

    const [list, shown, cancel, positions, strategies] = await Promise.all([
      stockroute('executions', '--json'),
      stockroute('executions', 'show', String(swapped.executionId), '--json'),
      stockroute('executions', 'cancel', String(swapped.executionId)),
      stockroute('positions', '--chain', String(chain.chainId), '--json'),
      stockroute('strategies', '--json'),
    ])
    expect(list.stderr).toMatch(via)
    expect(printed(list).executions).toMatchObject([{ executionId: swapped.executionId, state: 'confirmed' }])
    expect(
      printed(shown)
        .events.map((event: { to: string }) => event.to)
        .at(-1),
    ).toBe('confirmed')
    expect(printed(shown).fills).toHaveLength(1)
    expect(cancel.code).toBe(exitCodes.refused)
    expect(cancel.stdout).toMatch(
      new RegExp(`^not cancelled: execution ${swapped.executionId}: it has finished already`),
    )
    expect(printed(positions).positions).toMatchObject([{ chainId: chain.chainId, ticker: 'AAPL' }])
    expect(printed(strategies).strategies).toMatchObject([
      { id: 'idle-aapl', enabled: true, trades: { submitted: 0, confirmed: 0, lastAt: null } },
    ])

    const disabled = await stockroute('strategies', 'disable', 'idle-aapl', '--reason', 'test: off', '--json')
    expect(disabled.code, disabled.stderr).toBe(0)
    expect(printed(disabled)).toMatchObject({
      id: 'idle-aapl',
      enabled: false,
      switched: { reason: 'test: off' },
    })

    await follower.waitForEvent((event) => event.kind === 'fill')
    // The daemon restarts (new port, new token): the follower reconnects after the last event it saw.
    daemon.child.kill('SIGTERM')
    await exitOf(daemon.child)
    daemon = daemons.start(configPath)
    await daemon.waitFor(/control API/)
    await stockroute('halt', '--reason', 'test: after the restart')
    await follower.waitForEvent(
      (event) => event.kind === 'halt' && event.data.reason === 'test: after the restart',
    )
    const ids = follower.events.map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
    expect(follower.events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(['halt', 'resume', 'execution', 'fill']),
    )
    follower.child.kill('SIGINT')
    expect(await exitOf(follower.child)).toEqual({ code: 0, signal: null })
    expect(follower.stderr()).toMatch(/reconnecting in \d+ ms/)
    daemon.child.kill('SIGTERM')
    await exitOf(daemon.child)
  }, 120_000)
})

/** Followers still running after a test (one that failed) are killed. */
const followers: ChildProcess[] = []
afterEach(() => {
  for (const child of followers.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

type FollowedEvent = { id: number; kind: string; data: Record<string, unknown> }

/** `stockroute events --follow --json` as a child process, its events parsed as they come. */
function followEvents(configPath: string) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('STOCKROUTE_')),
  )
  const child: ChildProcess = spawn(
    process.execPath,
    ['bin/stockroute.js', 'events', '--follow', '--json', '--config', configPath],
    { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  followers.push(child)
  const events: FollowedEvent[] = []
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    for (let newline = stdout.indexOf('\n'); newline >= 0; newline = stdout.indexOf('\n')) {
      events.push(JSON.parse(stdout.slice(0, newline)))
      stdout = stdout.slice(newline + 1)
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const poll = async (done: () => boolean, what: string) => {
    for (const started = Date.now(); !done(); ) {
      if (Date.now() - started > 30_000) throw new Error(`no ${what} in 30 s; stderr:\n${stderr}`)
      if (child.exitCode !== null) throw new Error(`the follower exited (${child.exitCode}):\n${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    child,
    events,
    stderr: () => stderr,
    waitForStderr: (pattern: RegExp) => poll(() => pattern.test(stderr), `stderr line matching ${pattern}`),
    waitForEvent: (match: (event: FollowedEvent) => boolean) =>
      poll(() => events.some(match), 'matching event'),
  }
}
