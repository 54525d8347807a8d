import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { openLedger } from '../../src/store/index.js'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { expectLedgerMatchesChains } from '../helpers/ledgerAgainstChains.js'
import { chainWithoutRouter, chainWithRouter, localChains } from '../helpers/localChains.js'
import { exitOf } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The daemon as an operator runs it: `stockroute start` in a child process, trading on the
// sandbox service of this test file over the shared chains, with a wallet of its own. While it
// runs, /health and /metrics answer; after it stops, every execution is terminal and the ledger's
// positions equal the chain's balances. SIGTERM stops it within seconds, and a restart continues.

const service = useSandboxService()
const daemons = useDaemonProcesses(service)
const folder = daemons.folder
const startDaemonProcess = daemons.start
const writeDaemonConfig = daemons.writeConfig

const everySecondOnBothChains = () => [
  {
    kind: 'schedule',
    id: 'aapl-alpha',
    chainId: chainWithRouter().chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '300',
    cron: '* * * * * *',
  },
  {
    kind: 'schedule',
    id: 'kr-alpha',
    chainId: chainWithRouter().chainId,
    ticker: '005930',
    exchange: 3,
    side: 'buy',
    amountIn: '2',
    amountType: 'stocktoken',
    cron: '*/2 * * * * *',
  },
  {
    kind: 'schedule',
    id: 'hk-beta',
    chainId: chainWithoutRouter().chainId,
    ticker: '0700',
    exchange: 1,
    side: 'buy',
    amountIn: '6000',
    cron: '*/2 * * * * *',
  },
  {
    kind: 'schedule',
    id: 'aapls-beta',
    chainId: chainWithoutRouter().chainId,
    ticker: 'AAPLs',
    exchange: 0,
    side: 'buy',
    amountIn: '40',
    cron: '* * * * * *',
  },
]

describe('stockroute start', () => {
  it('trades on both chains for a bounded time; /health and /metrics answer; the ledger equals the chains', {
    timeout: 90_000,
  }, async () => {
    const { configPath, ledgerPath, account } = await writeDaemonConfig('bounded', everySecondOnBothChains())
    const run = startDaemonProcess(configPath, ['--duration', '6'])
    const apiLine = await run.waitFor(/^control API http:\/\/127\.0\.0\.1:\d+/)
    const apiUrl = apiLine.split(' ')[2] ?? ''
    await run.waitFor(/✓ buy .* chain 31338 /)
    await run.waitFor(/✓ buy .* chain 31337 /)
    // Without the token, liveness only; the details behind the token the daemon wrote beside the ledger.
    const open = await fetch(`${apiUrl}/health`)
    expect(open.status).toBe(200)
    expect(await open.json()).toEqual({ status: 'ok' })
    const token = readFileSync(`${ledgerPath}.control-token`, 'utf8').trim()
    const health = await fetch(`${apiUrl}/health`, { headers: { authorization: `Bearer ${token}` } })
    expect(health.status).toBe(200)
    const body = (await health.json()) as { status: string; chains: { chainId: number }[] }
    expect(body.status).toBe('ok')
    expect(body.chains.map((chain) => chain.chainId).sort()).toEqual(
      localChains()
        .map((c) => c.chainId)
        .sort(),
    )
    const metrics = await (await fetch(`${apiUrl}/metrics`)).text()
    expect(metrics).toMatch(/stockroute_executions_total\{chain="\d+",outcome="confirmed"\} \d+/)
    expect(metrics).toMatch(/stockroute_quote_to_broadcast_seconds_count\{chain="\d+"\} \d+/)
    await run.waitFor(/summary: \d+ executions/)

    expect(await exitOf(run.child)).toEqual({ code: 0, signal: null })
    expect(run.lines.some((line) => line.startsWith('stopped: duration of 6 s over'))).toBe(true)
    const { executions } = await expectLedgerMatchesChains(ledgerPath, account.address)
    const chainsTraded = new Set(executions.filter((e) => e.state === 'confirmed').map((e) => e.chain_id))
    expect([...chainsTraded].sort()).toEqual(
      localChains()
        .map((c) => c.chainId)
        .sort(),
    )
  })

  it('stops within seconds on SIGTERM with nothing half-written, and a restart continues cleanly', {
    timeout: 120_000,
  }, async () => {
    const { configPath, ledgerPath, account } = await writeDaemonConfig(
      'sigterm',
      everySecondOnBothChains(),
      {
        shutdownGraceMs: 3000,
      },
    )
    const first = startDaemonProcess(configPath)
    // Trading: executions done on both chains, more in flight every second.
    await first.waitFor(/✓ buy .* chain 31338 /)
    await first.waitFor(/✓ buy .* chain 31337 /)
    first.child.kill('SIGTERM')
    // It exits by itself (the stop is bounded by the grace: drainEngine.test.ts drives its clock),
    // saying so in order: no new intents from the signal on, the summary, then stopped.
    const exit = await exitOf(first.child)
    expect(exit).toEqual({ code: 0, signal: null })
    const stopping = first.lines.indexOf(
      'stopping (SIGTERM received): no new intents; executions in flight get 3000 ms to finish',
    )
    expect(stopping, first.lines.join('\n')).toBeGreaterThanOrEqual(0)
    const afterSignal = first.lines.slice(stopping)
    expect(afterSignal.filter((line) => / summary: \d+ executions/.test(line))).toHaveLength(1)
    expect(afterSignal.at(-1)).toBe('stopped: SIGTERM received')

    // Nothing half-written: the file is intact, and anything not terminal has its execute stored.
    const db = new Database(ledgerPath, { readonly: true })
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    const open = db
      .prepare<[], { id: number; state: string }>(
        "SELECT id, state FROM executions WHERE state NOT IN ('confirmed', 'failed', 'expired', 'rejected')",
      )
      .all()
    for (const execution of open) {
      expect(execution.state).toBe('submitted')
      const execute = db
        .prepare<[number], { n: number }>(
          "SELECT count(*) AS n FROM transactions WHERE execution_id = ? AND kind = 'execute'",
        )
        .get(execution.id)
      expect(execute?.n).toBe(1)
    }
    const before = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM executions').get()?.n ?? 0
    db.close()

    const second = startDaemonProcess(configPath, ['--duration', '4'])
    expect(await exitOf(second.child)).toEqual({ code: 0, signal: null })
    const { executions } = await expectLedgerMatchesChains(ledgerPath, account.address)
    expect(executions.length).toBeGreaterThanOrEqual(before)
    expect(readFileSync(join(ledgerPath, '..', 'stockroute.log'), 'utf8')).toContain('"msg":"recovery done"')
  })

  it('stops by itself, cleanly, when its ledger reaches its size limit; a second daemon on a live ledger is refused', {
    // 20 to 25 s alone; on a machine running a second test suite it once passed 90 s (trading slows,
    // and the 30 pages take longer to fill): the bounds are generous, the assertions are the test.
    timeout: 180_000,
  }, async () => {
    const { configPath, ledgerPath, account } = await writeDaemonConfig('full', everySecondOnBothChains())
    // The fault switch: SQLite answers "disk full" once the file would pass this many pages (room for
    // a few seconds of trading).
    const probe = join(folder, 'probe.sqlite')
    const fresh = openLedger({ path: probe })
    const pages = Number(fresh.database.pragma('page_count', { simple: true }))
    fresh.close()
    const run = startDaemonProcess(configPath, [], {
      ...process.env,
      STOCKROUTE_LEDGER_MAX_PAGES: String(pages + 30),
    })
    await run.waitFor(/^control API http:\/\/127\.0\.0\.1:\d+/)

    // Frozen (alive, its claim held) while the second daemon starts: on a loaded machine a start
    // takes longer than the 30 pages last, and the second would find the first already stopped.
    run.child.kill('SIGSTOP')
    const second = startDaemonProcess(configPath)
    const refused = await exitOf(second.child)
    run.child.kill('SIGCONT')
    expect(refused.code).not.toBe(0)
    expect(`${second.lines.join('\n')}${second.stderr()}`).toContain(`in use by process ${run.child.pid}`)
    await run.waitFor(/storage fault/i, 120_000)
    expect(await exitOf(run.child)).toEqual({ code: exitCodes.ledger, signal: null })
    expect(run.lines.join('\n')).toMatch(/free space|size limit/i)

    const raw = new Database(ledgerPath)
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok')
    raw.close()
    // Nothing half written: every execution that reached submitted has its execute stored, and a
    // restart without the limit ends them all with the ledger equal to the chains.
    const restarted = startDaemonProcess(configPath, ['--duration', '4'], process.env)
    expect(await exitOf(restarted.child)).toEqual({ code: 0, signal: null })
    await expectLedgerMatchesChains(ledgerPath, account.address)
  })
})
