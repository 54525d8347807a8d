import { copyFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { runtimeFilePathOf } from '../../src/daemon/runtimeFile.js'
import { openLedger } from '../../src/store/index.js'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { type CliRun, exitOf, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute swap` while a daemon owns the ledger, as an operator runs it: the CLI hands the trade
// to the daemon and prints the outcome from the control API's replies alone (GET /v1/swaps/:id),
// never from the daemon's SQLite file; an intent the ledger holds from a swap made without the
// daemon is found through the API; a daemon lost mid-swap is an error that says how to finish it.

// biome-ignore lint/suspicious/noExplicitAny: tests read the printed JSON freely
const printed = (run: CliRun): any => JSON.parse(run.stdout)

const service = useSandboxService()
const daemons = useDaemonProcesses(service)

/** `stockroute swap` of a 1000-asset AAPL buy (or `amount`) on the router chain. */
function buy(configPath: string, intentId: string, ...more: string[]) {
  return runStockroute([
    'swap',
    '--chain',
    String(chainWithRouter().chainId),
    '--ticker',
    'AAPL',
    '--exchange',
    '0',
    '--side',
    'buy',
    '--amount',
    '1000',
    '--intent-id',
    intentId,
    '--config',
    configPath,
    ...more,
  ])
}

describe('stockroute swap through the daemon', () => {
  it("prints the outcome from the control API: a ledger path that holds a stale copy still shows the daemon's swap", async () => {
    const live = await daemons.writeConfig('api-only', [])
    const daemon = daemons.start(live.configPath)
    await daemon.waitFor(/control API/)

    // A second config whose ledger path holds a copy of the daemon's ledger taken now, with the
    // daemon's runtime file beside it: the CLI finds the daemon there (the copy names it as the
    // owner), but the copy never holds the swap made next. Reading the outcome from the file at
    // the ledger path (as the CLI once did) cannot print it.
    const copyDir = join(daemons.folder, 'api-only-copy')
    const copyLedgerPath = join(copyDir, 'data', 'stockroute.sqlite')
    mkdirSync(dirname(copyLedgerPath), { recursive: true })
    copyFileSync(live.configPath, join(copyDir, 'stockroute.json'))
    copyFileSync(join(live.dir, '.env'), join(copyDir, '.env'))
    const source = openLedger({ path: live.ledgerPath, readonly: true })
    try {
      source.database.exec(`VACUUM INTO '${copyLedgerPath}'`)
    } finally {
      source.close()
    }
    copyFileSync(runtimeFilePathOf(live.ledgerPath), runtimeFilePathOf(copyLedgerPath))
    const copyConfigPath = join(copyDir, 'stockroute.json')

    const run = await buy(copyConfigPath, 'api-only-1', '--json')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(
      new RegExp(`via daemon pid ${daemon.child.pid} at http://127\\.0\\.0\\.1:\\d+`),
    )
    const result = printed(run)
    expect(result).toMatchObject({
      intentId: 'api:api-only-1',
      state: 'confirmed',
      done: true,
      replay: false,
      via: 'daemon',
      daemonPid: daemon.child.pid,
      ledgerPath: copyLedgerPath,
      asset: { symbol: 'USDC', decimals: 6 },
    })
    expect(result.transactions.map((tx: { kind: string; status: string }) => [tx.kind, tx.status])).toEqual([
      ['approve', 'mined'],
      ['execute', 'mined'],
    ])
    expect(result.quote.formatted.quantity).toMatch(/^\d+ AAPL$/)

    // What it printed is the daemon's ledger's record, which the file at its ledger path lacks.
    const copy = openLedger({ path: copyLedgerPath, readonly: true })
    const owned = openLedger({ path: live.ledgerPath, readonly: true })
    try {
      expect(copy.executions.getExecutionByIntent('api:api-only-1')).toBeUndefined()
      const recorded = owned.executions.getExecutionByIntent('api:api-only-1')
      expect(recorded).toMatchObject({ id: result.executionId, state: 'confirmed', quoteId: result.quoteId })
      const transactions = owned.transactions.listTransactionsForExecution(result.executionId)
      expect(result.transactions).toMatchObject(
        transactions.map((tx) => ({
          kind: tx.kind,
          hash: tx.hash,
          nonce: tx.nonce,
          receiptStatus: 'success',
        })),
      )
      const fills = owned.fills.listFills({ executionId: result.executionId })
      expect(result.fills).toHaveLength(1)
      expect(result.fills).toMatchObject(
        fills.map((fill) => ({
          txHash: fill.txHash,
          logIndex: fill.logIndex,
          amountIn: fill.amountIn.toString(),
          amountOut: fill.amountOut.toString(),
          feeAmount: fill.feeAmount.toString(),
          formatted: { amountOut: `${fill.amountOut} AAPL` },
        })),
      )
    } finally {
      copy.close()
      owned.close()
    }

    // The text, as the direct path prints it (the same key again: the daemon answers its execution).
    const text = await buy(copyConfigPath, 'api-only-1')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(
      new RegExp(
        `^confirmed: buy AAPL on chain ${chainWithRouter().chainId} \\(execution ${result.executionId}, intent api:api-only-1\\)\\n`,
      ),
    )
    expect(text.stdout).toMatch(/\n {2}paid {6}[\d.]+ USDC \(fee [\d.]+ USDC included\)\n/)
    expect(text.stdout).toMatch(/\n {2}received {2}\d+ AAPL\n/)
    expect(text.stdout).toMatch(/\n {2}price {5}[\d.]+ USDC per share, fee included\n/)
    expect(text.stdout).toMatch(/\n {2}execute {3}0x[0-9a-f]{64} \(nonce \d+, mined\)\n/)
    expect(text.stdout).toMatch(/\n {2}via {7}daemon pid \d+ at http:\/\/127\.0\.0\.1:\d+\n/)
  }, 120_000)

  it('an intent id the ledger holds from a swap made without the daemon is not sent again; another trade under it is refused', async () => {
    const files = await daemons.writeConfig('earlier-intent', [])
    mkdirSync(dirname(files.ledgerPath), { recursive: true })
    const ledger = openLedger({ path: files.ledgerPath })
    const earlier = ledger.executions.createExecution({
      intentId: 'made-directly',
      chainId: chainWithRouter().chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
    })
    ledger.executions.transition(earlier.id, 'intent', 'rejected', 'test: refused before the daemon started')
    ledger.close()
    const daemon = daemons.start(files.configPath)
    await daemon.waitFor(/control API/)

    const replay = await buy(files.configPath, 'made-directly', '--json')
    expect(replay.stderr).toMatch(/via daemon pid/)
    expect(replay.stderr).toContain(
      `intent made-directly has execution ${earlier.id} already (rejected): it is not executed again`,
    )
    expect(replay.code).toBe(exitCodes.refused) // not confirmed
    expect(printed(replay)).toMatchObject({
      executionId: earlier.id,
      intentId: 'made-directly',
      state: 'rejected',
      reason: 'test: refused before the daemon started',
      replay: true,
      via: 'daemon',
    })

    const other = await buy(files.configPath, 'made-directly', '--amount', '2000')
    expect(other.code).toBe(exitCodes.refused)
    expect(other.stdout).toBe('')
    expect(other.stderr).toMatch(
      new RegExp(
        `intent id "made-directly" was already used for execution ${earlier.id} \\(rejected\\) with other values of amountIn \\(was "1000", now "2000"\\)`,
      ),
    )
    // Nothing reached POST /v1/swaps.
    const after = openLedger({ path: files.ledgerPath, readonly: true })
    try {
      expect(after.executions.getExecutionByIntent('api:made-directly')).toBeUndefined()
    } finally {
      after.close()
    }
  }, 120_000)

  it('a daemon lost mid-swap: the error names the execution and how to finish it, and that finishes it', async () => {
    const files = await daemons.writeConfig('lost-daemon', [])
    // The daemon dies (SIGKILL) right after the node accepted the swap's execute.
    const daemon = daemons.start(files.configPath, [], {
      ...process.env,
      STOCKROUTE_FAILPOINTS: 'broadcast=kill',
    })
    await daemon.waitFor(/control API/)

    const lost = await buy(files.configPath, 'lost-1', '--json')
    expect(await exitOf(daemon.child)).toMatchObject({ signal: 'SIGKILL' })
    expect(lost.code).toBe(exitCodes.unreachable)
    expect(lost.stdout).toBe('')
    const executionId = Number(
      /execution (\d+) \(intent api:lost-1\) handed to the daemon/.exec(lost.stderr)?.[1],
    )
    expect(executionId, lost.stderr).toBeGreaterThan(0)
    expect(lost.stderr).toMatch(
      new RegExp(
        `Lost the daemon while it ran execution ${executionId} \\(intent api:lost-1\\), before its end: The daemon \\(pid ${daemon.child.pid}\\)`,
      ),
    )
    expect(lost.stderr).toMatch(/its process is gone/)
    expect(lost.stderr).toMatch(
      /fix: the swap is recorded and is not lost: run the same `stockroute swap` again with --intent-id lost-1/,
    )

    // Doing what it says: no daemon runs now, so the CLI takes the ledger and sees the swap to its end.
    const again = await buy(files.configPath, 'lost-1', '--json')
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/stale runtime file .* ignored/)
    expect(printed(again)).toMatchObject({
      executionId,
      intentId: 'api:lost-1',
      state: 'confirmed',
      replay: true,
      via: 'ledger',
    })
    expect(printed(again).fills).toHaveLength(1)
  }, 120_000)
})
