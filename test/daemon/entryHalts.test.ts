import { appendFileSync, readFileSync } from 'node:fs'
import type { PriceSimulator } from '@stockroute/sandbox/service/contextTypes.js'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { holdPricesAtReference, setLastPrices } from '../helpers/pinnedPrices.js'
import { exitOf } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'
import { startReceiver } from './notifications/receiver.js'

// A drawdown halt reached on the sandbox, as an operator runs the daemon (`stockroute start` in a
// child process): after a buy, AAPL falls 40% on the sandbox (router quotes and market prices both),
// the daemon's next equity mark finds equity 20% below its peak, past maxDrawdownPct 10%, and halts
// new entries by itself: a buy is refused with the reason, a sell (an exit) still executes, /health,
// the kill switch's view, the event stream and a webhook tell it, and it is still in force after a
// restart, until the operator resumes.

const service = useSandboxService()
const daemons = useDaemonProcesses(service)

/** AAPL at a price the test sets (router quotes and market quotes alike); the other stocks held at their reference. */
function steerAapl(prices: PriceSimulator) {
  holdPricesAtReference(prices)
  let current = '227.48'
  setLastPrices(prices, {
    get AAPL() {
      return current
    },
  })
  const { marketQuote } = prices
  prices.marketQuote = (symbol, market, nowMs) => {
    const quote = marketQuote(symbol, market, nowMs)
    return quote && symbol === 'AAPL' ? { ...quote, close: current } : quote
  }
  return {
    set(price: string) {
      current = price
    },
  }
}

/** The daemon's URL and token, from the runtime file it writes beside its ledger (once it is `pid`'s). */
async function runtimeOf(ledgerPath: string, pid: number): Promise<{ url: string; token: string }> {
  for (let tries = 0; tries < 200; tries++) {
    try {
      const runtime = JSON.parse(readFileSync(`${ledgerPath}.runtime.json`, 'utf8'))
      if (runtime.pid === pid) {
        const token = runtime.token.source === 'file' ? readFileSync(runtime.token.path, 'utf8').trim() : ''
        return { url: runtime.url, token }
      }
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no runtime file of pid ${pid} beside ${ledgerPath}`)
}

// biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
type Json = any

function apiOf(target: { url: string; token: string }) {
  const call = async (path: string, init: { method?: string; body?: unknown; key?: string } = {}) => {
    const response = await fetch(`${target.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${target.token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.key === undefined ? {} : { 'idempotency-key': init.key }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    })
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : null) as Json, text }
  }
  /** Posts a swap on the router chain and waits for its end. */
  const swap = async (key: string, side: 'buy' | 'sell', amountIn: string) => {
    const posted = await call('/v1/swaps', {
      key,
      body: { chainId: chainWithRouter().chainId, ticker: 'AAPL', exchange: 0, side, amountIn },
    })
    expect(posted.status, posted.text).toBe(202)
    for (;;) {
      const { body } = await call(`/v1/swaps/${posted.body.executionId}`)
      if (['confirmed', 'failed', 'expired', 'rejected'].includes(body.state)) return body
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  /** The kill switch's view once `ready` holds for it (30 s at most). */
  const killSwitchWhen = async (ready: (view: Json) => boolean) => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const { body } = await call('/v1/kill-switch')
      if (ready(body) || Date.now() > deadline) return body
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  return { call, swap, killSwitchWhen }
}

const haltReason =
  /^drawdown (\d+\.\d)% on all chains from the equity peak ([\d,.]+) USD \(equity ([\d,.]+) USD\) reaches maxDrawdownPct 10%$/

describe('entry halts on the sandbox', () => {
  it('halts new entries by itself at maxDrawdownPct: buys refused, sells executed, still halted after a restart, until a resume', {
    timeout: 180_000,
  }, async () => {
    const aapl = steerAapl(service().context.prices)
    const receiver = await startReceiver()
    const chainId = chainWithRouter().chainId
    const files = await daemons.writeConfig(
      'drawdown',
      // Watches AAPL (a buy limit it never reaches), so that the daemon polls its market price.
      [
        {
          kind: 'limit',
          id: 'watch-aapl',
          chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '100',
          limitPrice: '1',
        },
      ],
      {
        execution: { risk: { capital: '10000', maxDrawdownPct: 10 } },
        marketData: { intervalMs: 500, staleAfterMs: 10_000, equityMarkIntervalMs: 1_000 },
        notifications: {
          pollMs: 100,
          sinks: [
            { name: 'desk', kind: 'webhook', url: receiver.url, secretEnv: 'DESK_SECRET', events: ['halt'] },
          ],
        },
      },
    )
    appendFileSync(`${files.dir}/.env`, 'DESK_SECRET=a-long-shared-secret-for-the-desk\n')

    const first = daemons.start(files.configPath)
    await first.waitFor(/^control API http/)
    const api = apiOf(await runtimeOf(files.ledgerPath, first.child.pid ?? 0))
    const bought = await api.swap('entry-1', 'buy', '5000')
    expect(bought.state, bought.reason).toBe('confirmed')
    expect((await api.call('/v1/kill-switch')).body.entryHalts).toEqual([])

    // AAPL falls 40%: about 2,000 of 10,000 lost, a drawdown of about 20%.
    aapl.set('136.48')
    const halted = await api.killSwitchWhen((view) => view.entryHalts.length > 0)
    expect(halted).toMatchObject({ halted: false, entryHalts: [{ chainId: null, rule: 'maxDrawdownPct' }] })
    const [halt] = halted.entryHalts
    const [, drawdown = '', peak = '', equity = ''] = haltReason.exec(halt.reason) ?? []
    expect(halt.reason).toMatch(haltReason)
    expect(Number(drawdown)).toBeGreaterThanOrEqual(15)
    expect(Number(peak.replaceAll(',', ''))).toBeGreaterThan(9_900)
    expect(Number(equity.replaceAll(',', ''))).toBeLessThan(8_500)
    expect(halt.figures).toMatchObject({ capital: '10000', maxDrawdownPct: '10', unit: 'USD' })
    expect(first.lines.join('\n')).toContain(
      `new entries halted (buys refused, sells still run until \`stockroute resume\`): ${halt.reason}`,
    )

    // No new entry: the buy is refused with the reason, nothing signed.
    const refused = await api.swap('entry-2', 'buy', '1000')
    expect(refused.state).toBe('rejected')
    expect(refused.reason).toBe(
      `risk limit: new entries are halted on all chains since ${halt.since}: ${halt.reason}; sells still run. Run stockroute resume to buy again.`,
    )
    expect(refused.transactions).toEqual([])
    // An exit still runs.
    const sold = await api.swap('exit-1', 'sell', '5')
    expect(sold.state, sold.reason).toBe('confirmed')
    expect(sold.fills).toHaveLength(1)

    const health = await api.call('/health')
    expect(health.body).toMatchObject({ status: 'ok', halted: null, entryHalts: [{ reason: halt.reason }] })
    // The notification: one webhook for the halt, with its reason.
    const deadline = Date.now() + 30_000
    while (receiver.requests.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    expect(receiver.requests.map((request) => JSON.parse(request.body))).toMatchObject([
      {
        type: 'halt',
        text: `New entries halted on all chains (buys refused, sells still run until resumed): ${halt.reason}`,
        event: { kind: 'entry_halt' },
      },
    ])

    first.child.kill('SIGTERM')
    expect(await exitOf(first.child)).toEqual({ code: 0, signal: null })
    // The event stream has it, once, as the ledger kept it.
    const ledger = openLedger({ path: files.ledgerPath, readonly: true })
    try {
      expect(ledger.events.listAfter(0, { kinds: ['entry_halt'] })).toMatchObject([
        { kind: 'entry_halt', chainId: null, data: { rule: 'maxDrawdownPct', reason: halt.reason } },
      ])
    } finally {
      ledger.close()
    }

    // A restart keeps the halt (prices have not moved back, but it would stay even if they had).
    aapl.set('227.48')
    const second = daemons.start(files.configPath)
    await second.waitFor(/^control API http/)
    const again = apiOf(await runtimeOf(files.ledgerPath, second.child.pid ?? 0))
    expect((await again.call('/v1/kill-switch')).body.entryHalts).toEqual([halt])
    const refusedAgain = await again.swap('entry-3', 'buy', '1000')
    expect(refusedAgain.state).toBe('rejected')
    expect(refusedAgain.reason).toContain(halt.reason)

    // The operator's resume clears it; a buy runs again.
    const resumed = await again.call('/v1/kill-switch/resume', {
      body: { reason: 'desk: reviewed the drawdown' },
    })
    expect(resumed.body).toMatchObject({ halted: false, entryHalts: [] })
    const boughtAgain = await again.swap('entry-4', 'buy', '1000')
    expect(boughtAgain.state, boughtAgain.reason).toBe('confirmed')
    second.child.kill('SIGTERM')
    expect(await exitOf(second.child)).toEqual({ code: 0, signal: null })
  })
})
