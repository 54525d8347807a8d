import type { PriceSimulator } from '@stockroute/sandbox/service/contextTypes.js'
import { armFault, type FaultSwitch } from '@stockroute/sandbox/service/faultSwitch.js'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { type DaemonRun, useDaemonProcesses } from '../helpers/daemonProcess.js'
import { expectLedgerMatchesChains } from '../helpers/ledgerAgainstChains.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { exitOf, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Protective exits as an operator runs them: `stockroute start` in child processes on this file's
// sandbox, whose prices the test steers. The daemon opens three positions, learns a trailing stop's
// high-water mark and stops; the prices move while it is down; the next daemon trips all three exits
// and dies on its first router quote (failpoint), before any sale is signed; the one after gets one
// bad quote (a sale rejected, asked for again) and sells each exactly once, and a fourth sells
// nothing more.

const service = useSandboxService({ faults: true })
const daemons = useDaemonProcesses(service)

/** Pins the last price and the market quote of the tickers given (market currency, on the tick grid); `move` changes them. */
function pinPrices(prices: PriceSimulator, initial: Readonly<Record<string, string>>) {
  const pins = new Map(Object.entries(initial))
  const { lastPrice, marketQuote } = prices
  prices.lastPrice = (ticker, exchange, nowMs) => pins.get(ticker) ?? lastPrice(ticker, exchange, nowMs)
  prices.marketQuote = (symbol, market, nowMs) => {
    const record = marketQuote(symbol, market, nowMs)
    const pinned = pins.get(symbol)
    return record && pinned ? { ...record, open: pinned, high: pinned, low: pinned, close: pinned } : record
  }
  return {
    move(byTicker: Readonly<Record<string, string>>) {
      for (const [ticker, price] of Object.entries(byTicker)) pins.set(ticker, price)
    },
    release() {
      prices.lastPrice = lastPrice
      prices.marketQuote = marketQuote
    },
  }
}

/** Reads the ledger of a daemon (running or not) with a read-only connection of its own. */
function query<Row>(ledgerPath: string, sql: string, ...parameters: unknown[]): Row[] {
  const db = new Database(ledgerPath, { readonly: true, fileMustExist: true })
  try {
    return db.prepare(sql).all(...parameters) as Row[]
  } finally {
    db.close()
  }
}

/** Polls `read` until it returns a value that is not undefined; fails with `what` after `timeoutMs`. */
async function eventually<T>(what: string, read: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    let value: T | undefined
    try {
      value = read()
    } catch {
      value = undefined // the daemon has not created the ledger yet
    }
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

type ExecutionRow = { intent_id: string; side: string; state: string; amount_in: string; ticker: string }

const protectExecutions = (ledgerPath: string) =>
  query<ExecutionRow>(
    ledgerPath,
    "SELECT intent_id, side, state, amount_in, ticker FROM executions WHERE intent_id LIKE 'protect:%' ORDER BY intent_id",
  )

/** Waits until the daemon printed `count` more summary lines than it had: that many ticks later, at least. */
async function afterSummaries(run: DaemonRun, count: number) {
  const seen = run.lines.filter((line) => / summary: /.test(line)).length
  await eventually(`${count} more summaries`, () =>
    run.lines.filter((line) => / summary: /.test(line)).length >= seen + count ? true : undefined,
  )
}

describe('protective exits (stop-loss, take-profit, trailing stop)', () => {
  let pinned: ReturnType<typeof pinPrices> | undefined
  afterAll(() => pinned?.release())

  it('each trips once on the sandbox price moves, across restarts, even one that dies before the sale is signed; a rejected sale is asked for again', {
    timeout: 240_000,
  }, async () => {
    pinned = pinPrices(service().context.prices, { AAPL: '200.00', NVDA: '140.00', TSLA: '250.00' })
    const chainId = chainWithRouter().chainId
    const open = (id: string, ticker: string, amountIn: string, amountType: 'stocktoken' | 'stablecoin') => ({
      kind: 'limit',
      id,
      chainId,
      ticker,
      exchange: 0,
      side: 'buy',
      amountIn,
      amountType,
      limitPrice: '1000',
    })
    const { configPath, ledgerPath, account } = await daemons.writeConfig('protect', [
      open('open-aapl', 'AAPL', '4', 'stocktoken'),
      open('open-nvda', 'NVDA', '4', 'stocktoken'),
      open('open-tslas', 'TSLAs', '500', 'stablecoin'),
      { kind: 'protect', id: 'sl-aapl', chainId, ticker: 'AAPL', exchange: 0, stopLossPct: '10' },
      {
        kind: 'protect',
        id: 'tp-nvda',
        chainId,
        ticker: 'NVDA',
        exchange: 0,
        takeProfitPrice: '150',
        fraction: '0.5',
      },
      { kind: 'protect', id: 'ts-tslas', chainId, ticker: 'TSLAs', exchange: 0, trailingStopPct: '5' },
    ])

    // 1. Positions opened at 200, 140 and 250; TSLA rises to 275, the trailing stop's mark.
    const first = daemons.start(configPath)
    await eventually('the three buys confirmed', () => {
      const rows = query<{ n: number }>(
        ledgerPath,
        "SELECT count(*) AS n FROM executions WHERE intent_id LIKE 'limit:open-%' AND state = 'confirmed'",
      )
      return rows[0]?.n === 3 ? true : undefined
    })
    pinned.move({ TSLA: '275.00' })
    await eventually('the high-water mark of 275 kept in the ledger', () => {
      const rows = query<{ high_water_price: string }>(
        ledgerPath,
        "SELECT high_water_price FROM protective_state WHERE strategy_id = 'ts-tslas'",
      )
      return rows[0]?.high_water_price === '27500000000' ? true : undefined
    })
    first.child.kill('SIGTERM')
    expect(await exitOf(first.child)).toEqual({ code: 0, signal: null })
    expect(protectExecutions(ledgerPath)).toEqual([])

    // 2. While no daemon runs: AAPL under its stop (200 - 10%), NVDA over its take-profit, TSLA 5.5%
    // under its mark of 275 (a daemon that forgot the mark would see 260 as the high).
    pinned.move({ AAPL: '175.00', NVDA: '155.00', TSLA: '260.00' })

    // 3. The next daemon trips the exits and dies at its first router quote: nothing signed.
    const dying = daemons.start(configPath, [], {
      ...process.env,
      STOCKROUTE_FAILPOINTS: 'quote-received=kill',
    })
    expect(await exitOf(dying.child)).toEqual({ code: null, signal: 'SIGKILL' })
    expect(dying.stderr()).toContain('FAILPOINT quote-received')
    const fired = query<{ intent_id: string }>(ledgerPath, 'SELECT intent_id FROM protective_exits')
    expect(fired.length).toBeGreaterThanOrEqual(1)
    expect(
      query<{ n: number }>(
        ledgerPath,
        "SELECT count(*) AS n FROM transactions t JOIN executions e ON e.id = t.execution_id WHERE e.intent_id LIKE 'protect:%'",
      )[0]?.n,
    ).toBe(0)

    // 4. Restarted, the service's next router quote signed by a stranger: the guard rejects that
    // sale, and its exit asks for it again as attempt 2, 15 s later. Each exit sells once; later
    // ticks (prices unchanged) sell nothing more.
    armFault(service().context.faults as FaultSwitch, 'wrong-signer', 1)
    const selling = daemons.start(configPath)
    const sold = await eventually(
      'the three exits confirmed, one at its second attempt',
      () => {
        const rows = protectExecutions(ledgerPath)
        return rows.filter((row) => row.state === 'confirmed').length === 3 ? rows : undefined
      },
      90_000,
    )
    const unsold = sold.filter((row) => row.state !== 'confirmed')
    expect(unsold.map((row) => row.state)).toEqual(['rejected'])
    const retriedId = unsold[0]?.intent_id as string
    expect(sold.map((row) => row.intent_id)).toContain(`${retriedId}:2`)
    await afterSummaries(selling, 2)
    // What the operator is shown through the daemon: NVDA's take-profit sold half and its position
    // stays, with that exit; the closed positions' exits are forgotten with them.
    const listed = await runStockroute(['strategies', '--json', '--config', configPath])
    expect(listed.code, listed.stderr).toBe(0)
    const exitsOf = (id: string) =>
      (JSON.parse(listed.stdout) as { strategies: { id: string; exits?: unknown[] }[] }).strategies.find(
        (strategy) => strategy.id === id,
      )?.exits
    const nvdaSale = sold.find(
      (row) => row.state === 'confirmed' && row.intent_id.startsWith('protect:tp-nvda:'),
    )?.intent_id
    expect(exitsOf('tp-nvda')).toEqual([
      {
        chainId,
        ticker: 'NVDA',
        trigger: 'take-profit',
        price: '155',
        currency: 'USD',
        quantity: '2',
        attempt: nvdaSale === `${retriedId}:2` ? 2 : 1,
        askedAt: expect.any(String),
        intentId: nvdaSale,
        execution: { id: expect.any(Number), state: 'confirmed' },
        state: 'sold',
        retryAt: null,
      },
    ])
    expect(exitsOf('sl-aapl')).toEqual([])
    expect(exitsOf('ts-tslas')).toEqual([])
    selling.child.kill('SIGTERM')
    expect(await exitOf(selling.child)).toEqual({ code: 0, signal: null })

    // 5. One more start: the exits are remembered, nothing is sold again.
    const again = daemons.start(configPath, ['--duration', '3'])
    expect(await exitOf(again.child)).toEqual({ code: 0, signal: null })

    const opened = (ticker: string) =>
      query<{ seq: number }>(
        ledgerPath,
        'SELECT seq FROM fills WHERE chain_id = ? AND ticker = ? AND is_buy = 1 AND reversed_at_ms IS NULL',
        chainId,
        ticker,
      ).map((row) => row.seq)
    const [aaplEpoch] = opened('AAPL')
    const [nvdaEpoch] = opened('NVDA')
    const [tslasEpoch] = opened('TSLAs')
    const bought = query<{ amount_out: string }>(
      ledgerPath,
      "SELECT amount_out FROM fills WHERE ticker = 'TSLAs' AND is_buy = 1",
    )[0]?.amount_out
    const attempted = (intentId: string) => (intentId === retriedId ? `${intentId}:2` : intentId)
    const executions = protectExecutions(ledgerPath)
    expect(executions.filter((row) => row.state !== 'confirmed')).toEqual(unsold)
    expect(executions.filter((row) => row.state === 'confirmed')).toEqual([
      {
        intent_id: attempted(`protect:sl-aapl:stop-loss:${aaplEpoch}`),
        side: 'sell',
        state: 'confirmed',
        amount_in: '4',
        ticker: 'AAPL',
      },
      {
        intent_id: attempted(`protect:tp-nvda:take-profit:${nvdaEpoch}`),
        side: 'sell',
        state: 'confirmed',
        amount_in: '2',
        ticker: 'NVDA',
      },
      {
        intent_id: attempted(`protect:ts-tslas:trailing-stop:${tslasEpoch}`),
        side: 'sell',
        state: 'confirmed',
        amount_in: expect.any(String),
        ticker: 'TSLAs',
      },
    ])
    expect(
      query<{ ticker: string; balance: string }>(
        ledgerPath,
        'SELECT ticker, balance FROM positions WHERE chain_id = ? ORDER BY ticker',
        chainId,
      ),
    ).toEqual([
      { ticker: 'AAPL', balance: '0' },
      { ticker: 'NVDA', balance: '2' },
      { ticker: 'TSLAs', balance: '0' },
    ])
    expect(bought).toBeDefined()
    expect(
      query<{ strategy_id: string; trigger: string; trigger_price: string; quantity: string }>(
        ledgerPath,
        'SELECT strategy_id, trigger, trigger_price, quantity FROM protective_exits ORDER BY strategy_id',
      ),
    ).toEqual([
      { strategy_id: 'sl-aapl', trigger: 'stop-loss', trigger_price: '17500000000', quantity: '4' },
      { strategy_id: 'tp-nvda', trigger: 'take-profit', trigger_price: '15500000000', quantity: '2' },
      { strategy_id: 'ts-tslas', trigger: 'trailing-stop', trigger_price: '26000000000', quantity: bought },
    ])
    await expectLedgerMatchesChains(ledgerPath, account.address)
  })
})
