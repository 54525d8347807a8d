import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { embeddedConnectionPathOf } from '../../src/daemon/embeddedConnection.js'
import { exitOf, repoRoot, runStockroute } from '../helpers/processes.js'

// An embedded config (config/default.json: "sandbox": {"embedded": true}) is accepted by every
// command, as `config check` and `start` accept it: while its daemon runs, the commands that talk
// to the service reach the sandbox the daemon made; once it stops, they say how to start it.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-embedded-config-'))
const configPath = join(folder, 'demo.json')
const ledgerPath = join(folder, 'data', 'stockroute.sqlite')
let daemon: ChildProcess | undefined

afterAll(async () => {
  if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL')
  rmSync(folder, { recursive: true, force: true })
})

beforeAll(async () => {
  const demo = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8'))
  // No strategies: this file's own swaps are the only trades, so the figures below are its own.
  writeFileSync(configPath, JSON.stringify({ ...demo, dataDir: 'data', strategies: [] }))
  daemon = spawn(
    process.execPath,
    ['bin/stockroute.js', 'start', '--config', configPath, '--duration', '300'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  await new Promise<void>((resolve, reject) => {
    let output = ''
    daemon?.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (/^trading /m.test(output)) resolve()
    })
    daemon?.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    daemon?.once('exit', (code) =>
      reject(new Error(`the daemon exited (${code}) before trading:\n${output}`)),
    )
  })
}, 120_000)

const trade = ['--chain', '31338', '--ticker', 'AAPLs', '--exchange', '0', '--side', 'buy', '--amount', '50']

describe('an embedded config, its daemon running', () => {
  it('the daemon writes what a command needs beside its ledger, for its owner only', () => {
    const path = embeddedConnectionPathOf(ledgerPath)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const written = JSON.parse(readFileSync(path, 'utf8'))
    expect(written.pid).toBe(daemon?.pid)
    expect(written.chains.map((chain: { chainId: number }) => chain.chainId).sort()).toEqual([31337, 31338])
  })

  it.each([
    ['chains', []],
    ['tokens', ['--chain', '31338']],
    ['market', ['--market', 'usex', '--symbols', 'AAPL']],
    ['doctor', []],
  ] as const)('%s reads the sandbox the daemon runs', async (command, args) => {
    const result = await runStockroute([command, ...args, '--config', configPath])
    expect(result.stderr).not.toContain('error')
    expect(result.code).toBe(exitCodes.ok)
  })

  it('quote: a signed quote, amounts rounded for people and exact in --json', async () => {
    const text = await runStockroute(['quote', ...trade, '--config', configPath])
    expect(text.code).toBe(exitCodes.ok)
    // 50 USDT buys about 0.22 AAPLs: 18 decimals on chain, at most 6 fraction digits on screen.
    const receive = /receive\s+(\S+) AAPLs/.exec(text.stdout)?.[1]
    expect(receive).toMatch(/^0\.\d{1,6}$/)
    // The daemon owns the ledger the guard reads: said in a line, not as a failure.
    expect(text.stdout).toMatch(/guard\s+not evaluated: the daemon \(pid \d+\) owns the ledger/)
    const json = await runStockroute(['quote', ...trade, '--config', configPath, '--json'])
    expect(JSON.parse(json.stdout).formatted.amountOut).toMatch(/^0\.\d{7,18} AAPLs$/)
  })

  it('swap --dry-run: signs and simulates; it reads as a dry run done, never as rejected', async () => {
    const result = await runStockroute(['swap', ...trade, '--dry-run', '--config', configPath])
    expect(result.stdout).toMatch(/^dry run ok, nothing sent/)
    expect(result.stderr).toMatch(/execution \d+ dry run done: dry run: not broadcast/)
    expect(result.stderr).not.toMatch(/execution \d+ rejected/)
    expect(result.code).toBe(exitCodes.ok)
    const listed = await runStockroute(['executions', '--config', configPath])
    expect(listed.code).toBe(exitCodes.ok)
    // The live ledger's list: the dry run is in the dry-run ledger, not here.
    expect(listed.stdout).not.toContain('dry run')
  })

  it('positions after a fractional buy: readable in the table, exact in --json', async () => {
    const swap = await runStockroute(['swap', ...trade, '--config', configPath])
    expect(swap.code).toBe(exitCodes.ok)
    const json = await runStockroute(['positions', '--config', configPath, '--json'])
    const position = JSON.parse(json.stdout).positions.find((p: { ticker: string }) => p.ticker === 'AAPLs')
    const balance = BigInt(position.balance)
    const table = await runStockroute(['positions', '--config', configPath])
    const row = table.stdout.split('\n').find((line) => /\sAAPLs\s/.test(line)) ?? ''
    const [, , shownBalance, , shownCost] = row.trim().split(/\s+/)
    // Rounded half away from zero to 6 fraction digits, worked out here with integers only:
    // balance / 10^12, rounded, then written with 6 decimals and trailing zeros dropped.
    const micro = (balance + 500_000_000_000n) / 1_000_000_000_000n
    const sixDigits = `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`.replace(
      /\.?0+$/,
      '',
    )
    expect(shownBalance).toBe(sixDigits)
    // 50 USDT paid: a cost basis of 50 (the fee is in the price), not 49.999999999999999…
    expect(shownCost).toBe('50')
  })
})

describe('an embedded config, its daemon stopped', () => {
  it('the file is gone, and a command that needs the sandbox says how to start it (exit 6)', async () => {
    daemon?.kill('SIGINT')
    if (daemon) expect((await exitOf(daemon)).code).toBe(0)
    expect(existsSync(embeddedConnectionPathOf(ledgerPath))).toBe(false)
    const result = await runStockroute(['quote', ...trade, '--config', configPath])
    expect(result.stderr).toContain('error SANDBOX_NOT_RUNNING')
    expect(result.stderr).toContain(`stockroute start --config ${configPath}`)
    expect(result.code).toBe(exitCodes.unreachable)
  }, 60_000)
})
