import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { unfinishedAtStopLine } from '../../src/cli/commands/startAction.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import type { DaemonReport } from '../../src/daemon/startDaemon.js'
import { openLedger } from '../../src/store/index.js'
import { anvilChildrenOf, exitOf, repoRoot } from '../helpers/processes.js'

// `npm start` runs `stockroute start` on config/default.json: an embedded sandbox (two chains and
// the service in process), the daemon's own funded wallet, and the demo strategies on both chains.
// Here the same configuration, with its data folder moved to a temporary one.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-start-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

function demoConfig(dataDir = 'data'): string {
  const config = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8')) as Record<
    string,
    unknown
  >
  const path = join(folder, `${dataDir}.json`)
  writeFileSync(path, JSON.stringify({ ...config, dataDir }))
  return path
}

async function runFor(
  configPath: string,
  seconds: number,
  options: { whileRunning?: (pid: number) => void } = {},
) {
  const child = spawn(
    process.execPath,
    ['bin/stockroute.js', 'start', '--config', configPath, '--duration', String(seconds)],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const watch =
    options.whileRunning && child.pid !== undefined
      ? setInterval(options.whileRunning, 20, child.pid)
      : undefined
  const exit = await exitOf(child)
  clearInterval(watch)
  return { exit, stdout, stderr }
}

/**
 * `npm start -- --config <configPath>` in a process group of its own, as a terminal runs it; once
 * the daemon traded, SIGINT to the whole group, as Ctrl-C sends it.
 */
async function npmStartUntilCtrlC(configPath: string) {
  const child = spawn('npm', ['start', '--', '--config', configPath], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  const traded = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      if (/✓ buy/.test(stdout)) resolve()
    })
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = exitOf(child)
  await Promise.race([traded, exited])
  if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT')
  const exit = await exited
  return { exit, stdout, stderr }
}

it('runs the embedded demo for a bounded time: trades on both chains, exits 0; npm start exits 0 after Ctrl-C', {
  timeout: 120_000,
}, async () => {
  const configPath = demoConfig()
  const first = await runFor(configPath, 6)
  expect(first.exit, first.stderr).toEqual({ code: 0, signal: null })
  expect(first.stderr).toMatch(/chain 31337 \(Sandbox Alpha\) ready/)
  // One readable line per execution: side, ticker, amounts, price, chain, latency, tx hash.
  expect(first.stdout).toMatch(
    /✓ buy {2}(AAPL \d+|\d+ AAPL) for [\d.]+ USDC @ [\d.]+ USDC {2}chain 31337 {2}\d+ ms {2}tx 0x[0-9a-f]{4}…[0-9a-f]{4}/,
  )
  expect(first.stdout).toMatch(
    /✓ buy {2}(0700 \d+00|\d+00 0700) for [\d.]+ USDT @ [\d.]+ USDT[^\n]* {2}chain 31338 /,
  )
  expect(first.stdout).toMatch(/summary: \d+ executions in [\d.]+ min \(\d+ confirmed/)
  expect(first.stdout).toMatch(/stopped: duration of 6 s over/)
  const ledgerPath = join(folder, 'data', 'stockroute.sqlite')
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  expect(ledger.executions.listUnfinishedExecutions()).toEqual([])
  const chains = new Set(ledger.fills.listFills().map((fill) => fill.chainId))
  ledger.close()
  expect([...chains].sort()).toEqual([31337, 31338])

  // A second run, as `npm start` then Ctrl-C: it starts new chains (the first run's ledger is
  // archived, not mixed with the new one), and npm exits 0 once the daemon stopped cleanly.
  const second = await npmStartUntilCtrlC(configPath)
  expect(second.exit, second.stderr).toEqual({ code: 0, signal: null })
  expect(second.stdout).toMatch(/stopped: SIGINT received/)
  expect(second.stderr).toMatch(/the previous sandbox run's ledger was moved to .*archive/)
  expect(readdirSync(join(folder, 'data', 'archive')).some((name) => name.endsWith('.sqlite'))).toBe(true)
  expect(existsSync(ledgerPath)).toBe(true)
})

it('a start on a ledger whose kill switch is halted archives it but carries the halt over: the new run signs nothing until `stockroute resume`, and says so', {
  timeout: 60_000,
}, async () => {
  const configPath = demoConfig('halted')
  const ledgerPath = join(folder, 'halted', 'stockroute.sqlite')
  // A previous run's ledger, halted by the operator (`stockroute halt`), with no chains of this run.
  const previous = openLedger({ path: ledgerPath })
  const { changedAtMs } = previous.risk.halt('operator: unexpected fills')
  previous.close()

  const run = await runFor(configPath, 3)
  expect(run.exit, run.stderr).toEqual({ code: 0, signal: null })
  const [archived] = /the previous sandbox run's ledger was moved to (\S+)/.exec(run.stderr)?.slice(1) ?? []
  expect(archived).toMatch(/archive/)
  expect(run.stderr).toContain(
    `  its kill switch was halted (reason: operator: unexpected fills, since ${new Date(changedAtMs ?? 0).toISOString()}): this run starts halted too, nothing is signed until \`stockroute resume --config ${configPath}\``,
  )
  expect(run.stdout).not.toMatch(/✓ (buy|sell)/)
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  const killSwitch = ledger.risk.killSwitch()
  const fills = ledger.fills.listFills()
  ledger.close()
  expect(killSwitch).toMatchObject({
    halted: true,
    reason: `operator: unexpected fills (carried over from archive/${basename(archived ?? '')})`,
  })
  expect(fills).toEqual([])
  const old = openLedger({ path: archived ?? '', readonly: true })
  expect(old.risk.killSwitch()).toMatchObject({ halted: true, reason: 'operator: unexpected fills' })
  old.close()
})

it('a second start on a ledger a live process owns is refused before any chain starts', async () => {
  const configPath = demoConfig('owned')
  // This process claims the ledger, as a running daemon does.
  const owner = openLedger({
    path: join(folder, 'owned', 'stockroute.sqlite'),
    owner: { command: 'stockroute start' },
  })
  const anvils = new Set<number>()
  try {
    const run = await runFor(configPath, 3, {
      whileRunning: (pid) => {
        for (const anvil of anvilChildrenOf(pid)) anvils.add(anvil)
      },
    })
    expect(run.exit).toEqual({ code: exitCodes.ledger, signal: null })
    expect(run.stderr).toContain(`LEDGER_IN_USE`)
    expect(run.stderr).toContain(`in use by process ${process.pid} on `)
    expect(run.stderr).not.toMatch(/starting the embedded sandbox|chain \d+ \(.*\) ready/)
    expect([...anvils]).toEqual([])
  } finally {
    owner.close()
  }
})

it('says what becomes of executions left unfinished: on an embedded sandbox they stay as they are (its chains end with the run); on a real deployment the next start recovers them', () => {
  const report = (embedded: boolean, unfinished: number): DaemonReport => ({
    reason: 'SIGINT received',
    durationMs: 1_000,
    executions: { confirmed: 0, failed: 0, expired: 0, rejected: 0 },
    unfinished,
    storageFault: false,
    embedded,
  })
  const ledgerPath = join('data', 'stockroute.sqlite')
  expect(unfinishedAtStopLine(report(true, 1), ledgerPath)).toBe(
    `1 execution left unfinished: the embedded sandbox's chains end with this run, so they stay as they are in ${ledgerPath}, which the next start moves to ${join('data', 'archive')}/`,
  )
  expect(unfinishedAtStopLine(report(true, 2), ledgerPath)).toMatch(
    /^2 executions left unfinished: the embedded/,
  )
  expect(unfinishedAtStopLine(report(true, 2), ledgerPath)).not.toMatch(/recover/)
  expect(unfinishedAtStopLine(report(false, 1), ledgerPath)).toBe(
    '1 execution left unfinished: the next start recovers them',
  )
  expect(unfinishedAtStopLine(report(false, 3), ledgerPath)).toBe(
    '3 executions left unfinished: the next start recovers them',
  )
})
