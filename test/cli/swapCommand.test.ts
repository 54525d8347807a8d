import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createStatusPrinter } from '../../src/cli/commands/swapAction.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import type { ExecutionEvent, ExecutionRecord } from '../../src/store/index.js'
import { openLedger } from '../../src/store/index.js'
import { settlementsOf } from '../helpers/engine.js'
import {
  chainWithoutRouter,
  chainWithRouter,
  clientsFor,
  fundAddress,
  localChains,
} from '../helpers/localChains.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute swap`, `halt` and `resume` as a user runs them: the CLI spawned with a config written
// by writeSandboxConfig (as `stockroute sandbox --write-config` does) against this file's sandbox
// service and the shared anvil chains. The config's wallet would be the sandbox's first test
// wallet, which other files' configs name too; this file trades from a wallet of its own (funded
// here, put in the .env), so no other file ever shares its nonces.

const service = useSandboxService()
let configPath = ''
let dataDir = ''
let wallet: Address

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-swap-'))
  configPath = writeSandboxConfig(dir, describeSandbox(inject('localChains'), service()))
  dataDir = join(dir, 'data')
  const privateKey = generatePrivateKey()
  wallet = privateKeyToAccount(privateKey).address
  await Promise.all(
    localChains().map((chain) => fundAddress(chain, wallet, { asset: '50000', tokens: { AAPL: 10n } })),
  )
  const envPath = join(dir, '.env')
  const env = readFileSync(envPath, 'utf8').replace(
    /^STOCKROUTE_PRIVATE_KEY=.*$/m,
    `STOCKROUTE_PRIVATE_KEY=${privateKey}`,
  )
  writeFileSync(envPath, env, { mode: 0o600 })
})

/** Runs `stockroute <args> --config <this file's config>` and collects its output. */
function stockroute(...args: string[]): Promise<CliRun> {
  return runStockroute([...args, '--config', configPath])
}

/** `stockroute swap` of `amount` (asset on a buy, shares on a sell) on `chain`. */
function swap(chain: LocalChain, side: 'buy' | 'sell', amount: string, ...more: string[]) {
  return stockroute(
    'swap',
    '--chain',
    String(chain.chainId),
    '--ticker',
    'AAPL',
    '--exchange',
    '0',
    '--side',
    side,
    '--amount',
    amount,
    ...more,
  )
}

// biome-ignore lint/suspicious/noExplicitAny: tests read the printed JSON freely
function printed(run: CliRun): any {
  return JSON.parse(run.stdout)
}

/** The wallet's next nonce on `chain`, pending transactions included. */
function nonceOf(chain: LocalChain) {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  return publicClient.getTransactionCount({ address: wallet, blockTag: 'pending' })
}

const hash = /^0x[0-9a-f]{64}$/

describe('stockroute swap', () => {
  it('--json: a confirmed buy, with its transactions and its fill, as settled on chain', async () => {
    const chain = chainWithRouter()
    const before = await nonceOf(chain)
    const run = await swap(chain, 'buy', '1000', '--intent-id', 'swap-test-buy', '--json')
    expect(run.code, run.stderr).toBe(0)
    const result = printed(run)
    expect(result).toMatchObject({
      intentId: 'swap-test-buy',
      state: 'confirmed',
      done: true,
      dryRun: false,
      chainId: chain.chainId,
      ticker: 'AAPL',
      side: 'buy',
      asset: { symbol: 'USDC', decimals: 6 },
      ledgerPath: join(dataDir, 'stockroute.sqlite'),
    })
    expect(result.quoteId).toMatch(hash)
    expect(result.transactions.map((tx: { kind: string; status: string }) => [tx.kind, tx.status])).toEqual([
      ['approve', 'mined'],
      ['execute', 'mined'],
    ])
    for (const tx of result.transactions) expect(tx.hash).toMatch(hash)
    expect(result.transactions.map((tx: { nonce: number }) => tx.nonce)).toEqual([before, before + 1])
    expect(await nonceOf(chain)).toBe(before + 2)

    expect(result.fills).toHaveLength(1)
    const [fill] = result.fills
    const execute = result.transactions[1]
    expect(fill.txHash).toBe(execute.hash)
    const onChain = (await settlementsOf(chain, wallet)).find((settled) => settled.txHash === execute.hash)
    expect(onChain).toBeDefined()
    expect([fill.amountIn, fill.amountOut, fill.feeAmount, fill.logIndex]).toEqual([
      String(onChain?.amountIn),
      String(onChain?.amountOut),
      String(onChain?.feeAmount),
      onChain?.logIndex,
    ])
    expect(fill.formatted.amountOut).toBe(`${fill.amountOut} AAPL`)
    expect(fill.formatted.amountIn).toMatch(/^\d+(\.\d+)? USDC$/)
    expect(fill.formatted.price).toMatch(/^\d+(\.\d+)? USDC$/)

    // Not a terminal: one line per transition on stderr, in order.
    const lines = run.stderr.trimEnd().split('\n')
    expect(lines.map((line) => /^\[\+\d+ ms\] execution \d+ (\w+): ./.exec(line)?.[1])).toEqual([
      'intent',
      'quoting',
      'quoted',
      'submitted',
      'confirmed',
    ])
  })

  it('prints a sell readably (settlement chain, 18-decimal asset); the same intent id is not executed again', async () => {
    const chain = chainWithoutRouter()
    const run = await swap(chain, 'sell', '3', '--intent-id', 'swap-test-sell')
    expect(run.code, run.stderr).toBe(0)
    const symbol = chain.defaultAsset.symbol
    expect(run.stdout).toMatch(
      new RegExp(
        `^confirmed: sell AAPL on chain ${chain.chainId} \\(execution \\d+, intent swap-test-sell\\)\\n`,
      ),
    )
    expect(run.stdout).toMatch(/\n {2}delivered 3 AAPL\n/)
    expect(run.stdout).toMatch(
      new RegExp(`\\n {2}received {2}[\\d.]+ ${symbol} \\(net of fee [\\d.]+ ${symbol}\\)\\n`),
    )
    // A sell's price is what it received per share, net of the fee (reference: the fee is deducted on a sell).
    expect(run.stdout).toMatch(
      new RegExp(`\\n {2}price {5}\\d+(\\.\\d{1,6})? ${symbol} per share, net of fee\\n`),
    )
    expect(run.stdout).not.toMatch(/fee included/)
    expect(run.stdout).toMatch(/\n {2}execute {3}0x[0-9a-f]{64} \(nonce \d+, mined\)\n/)

    const nonce = await nonceOf(chain)
    const again = await swap(chain, 'sell', '3', '--intent-id', 'swap-test-sell', '--json')
    expect(again.code).toBe(0)
    expect(again.stderr).toMatch(
      /intent swap-test-sell has execution \d+ already \(confirmed\): a replay, it is not executed again/,
    )
    expect(printed(again)).toMatchObject({ state: 'confirmed', replay: true })
    const text = await swap(chain, 'sell', '3', '--intent-id', 'swap-test-sell')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^replay of execution \d+, nothing new traded: confirmed: sell AAPL/)

    // The same id with another trade fails, naming what differs, and trades nothing.
    const other = await swap(chain, 'sell', '2', '--intent-id', 'swap-test-sell', '--json')
    expect(other.code).toBe(exitCodes.refused)
    expect(other.stdout).toBe('')
    expect(other.stderr).toMatch(
      /INTENT_ID_REUSED: intent id "swap-test-sell" was already used for execution \d+ \(confirmed\) with other values of amountIn \(was "3", now "2"\)/,
    )
    expect(await nonceOf(chain)).toBe(nonce)
  }, 60_000)

  it('--dry-run: prints what it would send (quantity, price, approval, gas), simulated, nothing broadcast, never "failed"', async () => {
    const chain = chainWithRouter()
    const before = await nonceOf(chain)
    const run = await swap(chain, 'buy', '1000', '--intent-id', 'swap-test-dry', '--dry-run', '--json')
    expect(run.code, run.stderr).toBe(0)
    const result = printed(run)
    expect(result).toMatchObject({ state: 'dry-run', done: true, dryRun: true, replay: false, fills: [] })
    expect(result.reason).toMatch(
      /^dry run: not broadcast; would send approve \d+(\.\d+)? USDC to the executor 0x/,
    )
    expect(result.transactions.map((tx: { kind: string; status: string }) => [tx.kind, tx.status])).toEqual([
      ['approve', 'not-sent'],
      ['execute', 'not-sent'],
    ])
    expect(result.quote.formatted.quantity).toMatch(/^\d+ AAPL$/)
    expect(result.quote.formatted.price).toMatch(/^\d+(\.\d{1,6})? USDC$/)
    const [approval] = result.dryRunPlan.approvals
    expect(approval.spender.toLowerCase()).toBe(chain.executorAddress.toLowerCase())
    expect(approval.amount).toBe(result.quote.assetAmount)
    expect(approval.formatted).toMatch(/^\d+(\.\d{1,6})? USDC$/)
    // Simulated with the allowance its approval would give (the exact approval, by default).
    expect(result.dryRunPlan.simulation).toMatch(
      /^simulated with the allowance of its approval \([\d.]+ USDC\), gas \d+$/,
    )
    expect(Number(result.dryRunPlan.gasEstimate)).toBeGreaterThan(0)
    expect(Number(result.dryRunPlan.execute.gasLimit)).toBeGreaterThan(Number(result.dryRunPlan.gasEstimate))
    expect(await nonceOf(chain)).toBe(before)

    // The same dry run again (same nonce and amounts: the very same signed approval) still shows it.
    const text = await swap(chain, 'buy', '1000', '--dry-run')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^dry run ok, nothing sent: buy AAPL/)
    expect(text.stdout).toMatch(/\n {2}quantity {3}\d+ AAPL\n/)
    expect(text.stdout).toMatch(
      /\n {2}approve {4}[\d.]+ USDC to the executor 0x[0-9a-fA-F]{40} \(tx 0x[0-9a-f]{64}, nonce \d+, signed, not sent\)\n/,
    )
    expect(text.stdout).toMatch(/\n {2}gas {8}\d+ estimated by the simulation\n/)
    expect(text.stdout).toMatch(/\n {2}simulation simulated /)
    expect(text.stdout).not.toMatch(/failed|rejected/)

    const dryLedgerPath = join(dataDir, 'stockroute.dry-run.sqlite')
    expect(result.ledgerPath).toBe(dryLedgerPath)
    expect(existsSync(dryLedgerPath)).toBe(true)
    const dry = openLedger({ path: dryLedgerPath, readonly: true })
    const live = openLedger({ path: join(dataDir, 'stockroute.sqlite'), readonly: true })
    try {
      // Recorded as a terminal rejection whose reason says it is a dry run (the ledger has no such state).
      const recorded = dry.executions.getExecutionByIntent('swap-test-dry')
      expect(recorded?.state).toBe('rejected')
      expect(recorded?.reason).toMatch(/^dry run: not broadcast/)
      expect(live.executions.getExecutionByIntent('swap-test-dry')).toBeUndefined()
    } finally {
      dry.close()
      live.close()
    }
  })

  describe.concurrent('bad input', () => {
    it.each([
      [['--amount', '0'], /option '--amount <amount>' argument '0' is invalid\. It is zero/],
      [
        ['--amount', '10', '--side', 'hold'],
        /option '--side <side>' argument 'hold' is invalid\. must be buy or sell/,
      ],
      [
        ['--amount', '10', '--limit-price', 'cheap'],
        /'--limit-price <price>' argument 'cheap' is invalid\. must be a positive price/,
      ],
      [['--amount', '10', '--limit-price', '0'], /'--limit-price <price>' argument '0' is invalid/],
      [['--amount', '10', '--intent-id', 'two words'], /'--intent-id <id>' argument 'two words' is invalid/],
      [
        ['--amount', '10', '--side', 'sell', '--amount-type', 'stablecoin'],
        /stablecoin applies to buys only/,
      ],
      [['--amount', '10', '--chain', '5'], /Chain 5 is not configured: configured chains are/],
    ])('refuses %j with a clear message, and sends nothing', async (args, message) => {
      const chain = chainWithRouter()
      const before = await nonceOf(chain)
      const run = await stockroute(
        'swap',
        '--chain',
        String(chain.chainId),
        '--ticker',
        'AAPL',
        '--exchange',
        '0',
        '--side',
        'buy',
        ...args,
      )
      expect(run.code).not.toBe(0)
      expect(run.stderr).toMatch(message)
      expect(run.stdout).toBe('')
      expect(await nonceOf(chain)).toBe(before)
    })
  })

  it("refuses an intent that breaks a market rule with the engine's message, before any quote", async () => {
    const chain = chainWithRouter()
    const quotes = service().context.quotes.size
    const run = await stockroute(
      'swap',
      '--chain',
      String(chain.chainId),
      '--ticker',
      '1810',
      '--exchange',
      '1',
      '--side',
      'sell',
      '--amount',
      '150',
    )
    expect(run.code).toBe(exitCodes.refused)
    expect(run.stderr).toMatch(
      /^error INVALID_INTENT: Intent "cli-[0-9a-f-]{36}": Quantity 150 is not a multiple of the lot size 200/m,
    )
    expect(service().context.quotes.size).toBe(quotes)
  })

  it('halt: the next swap is rejected by the kill switch and signs nothing; resume: it confirms', async () => {
    const chain = chainWithRouter()
    const halted = await stockroute('halt', '--json')
    expect(halted.code, halted.stderr).toBe(0)
    expect(printed(halted)).toMatchObject({
      halted: true,
      changed: true,
      reason: 'operator: stockroute halt',
      ledgerPath: join(dataDir, 'stockroute.sqlite'),
    })
    // Halting again keeps the first reason.
    const again = await stockroute('halt', '--reason', 'test: second halt')
    expect(again.stdout).toMatch(
      /^already halted: nothing is signed until `stockroute resume` \(reason: operator: stockroute halt, since /,
    )

    const before = await nonceOf(chain)
    const refused = await swap(chain, 'buy', '1000', '--json')
    expect(refused.code).toBe(exitCodes.refused)
    const result = printed(refused)
    expect(result).toMatchObject({ state: 'rejected', done: false, transactions: [], fills: [] })
    expect(result.reason).toMatch(
      /^kill switch: trading is halted \(operator: stockroute halt\); nothing was signed/,
    )
    expect(await nonceOf(chain)).toBe(before)

    const resumed = await stockroute('resume', '--reason', 'test: all clear', '--json')
    expect(printed(resumed)).toMatchObject({ halted: false, changed: true, reason: 'test: all clear' })
    const confirmed = await swap(chain, 'buy', '1000', '--json')
    expect(confirmed.code, confirmed.stderr).toBe(0)
    expect(printed(confirmed).state).toBe('confirmed')
    expect(await nonceOf(chain)).toBeGreaterThan(before)
  }, 90_000)

  it('halt refuses an empty --reason', async () => {
    const run = await stockroute('halt', '--reason', ' ')
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/'--reason <text>' argument ' ' is invalid\. must say why/)
  })
})

describe('the live status line', () => {
  const execution = { id: 7, intentId: 'cli-1' } as ExecutionRecord
  const event = (to: ExecutionEvent['to'], reason: string) => ({ to, reason }) as ExecutionEvent
  const reason = `execute 0x${'ab'.repeat(32)} signed with nonce 3 (simulated, gas 118227); 9107 ms of validity left`

  it('on a terminal: one line rewritten in place, hashes shortened, cut to the width, ended by a newline', () => {
    const written: string[] = []
    const status = createStatusPrinter(
      { isTTY: true, columns: 80, write: (text) => written.push(text) },
      () => 42,
      'cli-1',
    )
    status.transition(event('quoting', 'executor free: requesting a router quote'), execution)
    status.transition(event('submitted', reason), execution)
    status.end()
    status.end()
    expect(written).toEqual([
      '\r\x1b[2K[+42 ms] execution 7 quoting: executor free: requesting a router quote',
      expect.stringContaining(
        '\r\x1b[2K[+42 ms] execution 7 submitted: execute 0xababab…abab signed with nonce 3 (',
      ),
      '\n',
    ])
    expect(written[1]?.endsWith('…')).toBe(true)
    expect((written[1] ?? '').length - '\r\x1b[2K'.length).toBe(79)
  })

  it('elsewhere: one full line per transition; recovered executions are named by their intent', () => {
    const written: string[] = []
    const status = createStatusPrinter({ write: (text) => written.push(text) }, () => 5, 'cli-1')
    status.transition(event('submitted', reason), execution)
    status.transition(event('confirmed', 'settled'), { id: 3, intentId: 'old' } as ExecutionRecord)
    status.end()
    expect(written).toEqual([
      `[+5 ms] execution 7 submitted: ${reason}\n`,
      '[+5 ms] execution 3 (intent old, recovered) confirmed: settled\n',
    ])
  })
})
