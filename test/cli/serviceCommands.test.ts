import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { getChainTokens } from '@stockroute/client/api/actions/getChainTokens.js'
import { getMarketQuotes } from '@stockroute/client/api/actions/getMarketQuotes.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import { beforeAll, beforeEach, describe, expect, inject, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The service's clock stands still during each test, so the CLI (a child process) and the action
// called here see the same market prices.
let nowMs = Date.now()
const service = useSandboxService({ clock: { now: () => nowMs } })
beforeEach(() => {
  nowMs = Date.now()
})
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

let configPath = ''
beforeAll(() => {
  configPath = writeSandboxConfig(
    mkdtempSync(join(tmpdir(), 'stockroute-cli-')),
    describeSandbox(inject('localChains'), service()),
  )
})

/** Runs `stockroute <args> --config <the sandbox's config>` and collects its output. */
function stockroute(...args: string[]): Promise<CliRun> {
  return runStockroute([...args, '--config', configPath])
}

function json(run: CliRun): unknown {
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  return JSON.parse(run.stdout)
}

/** A value as printResult writes it: bigints as decimal strings. */
function asPrinted(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v)))
}

describe('stockroute chains', () => {
  it('--json: the chains of the service, as getChains gives them', async () => {
    const run = await stockroute('chains', '--json')
    expect(json(run)).toEqual(asPrinted(await getChains(client())))
  })

  it('a table with one line per chain and the default chain', async () => {
    const run = await stockroute('chains')
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^CHAIN\s+NAME\s+DEFAULT ASSET\s+ASSETS\s+EXECUTES QUOTES\s+EXECUTOR ADDRESS\s+RPC$/,
    )
    const routerLine = lines.find((line) => line.startsWith(String(chainWithRouter().chainId)))
    const settlementLine = lines.find((line) => line.startsWith(String(chainWithoutRouter().chainId)))
    // Addresses shortened to fit 120 columns (0x1234…abcd), whole with --wide.
    const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`
    expect(routerLine).toContain(`platform router  ${short(chainWithRouter().executorAddress)}`)
    expect(settlementLine).toContain(`settlement       ${short(chainWithoutRouter().executorAddress)}`)
    expect(lines.at(-1)).toBe(`default chain: ${chainWithRouter().chainId}`)
    const wide = await stockroute('chains', '--wide')
    expect(wide.stdout).toContain(`platform router  ${chainWithRouter().executorAddress}`)
  })
})

describe('stockroute tokens', () => {
  it('--json with filters: every matching token, as getChainTokens gives them', async () => {
    const chainId = chainWithoutRouter().chainId
    const [hk, shares] = await Promise.all([
      stockroute('tokens', '--chain', String(chainId), '--exchange', '1', '--json'),
      stockroute('tokens', '--chain', String(chainId), '--type', 'share', '--stock-code', 'AAPL', '--json'),
    ])
    expect(json(hk)).toEqual(asPrinted(await getChainTokens(client(), { chainId, exchangeId: 1 })))
    expect(json(hk)).toMatchObject({ chainId, total: 4, pagination: null })
    expect(json(shares)).toMatchObject({
      total: 1,
      tokens: [{ ticker: 'AAPLs', tokenType: 'share', decimals: 18 }],
    })
  })

  it('--page and --page-size: that page only, with its position', async () => {
    const chainId = chainWithRouter().chainId
    const run = await stockroute(
      'tokens',
      '--chain',
      String(chainId),
      '--page',
      '2',
      '--page-size',
      '4',
      '--json',
    )
    expect(json(run)).toEqual(asPrinted(await getChainTokens(client(), { chainId, page: 2, pageSize: 4 })))
    expect(json(run)).toMatchObject({ total: 15, pagination: { page: 2, pageSize: 4, totalPages: 4 } })
  })

  it('a table sorted by ticker, lots right-aligned, with a count', async () => {
    const run = await stockroute('tokens', '--chain', String(chainWithRouter().chainId), '--exchange', '1')
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    // Spread table and stock code are detail columns: shown with --wide.
    expect(lines[0]).toMatch(/^TICKER\s+TYPE\s+EXCHANGE\s+DECIMALS\s+LOT\s+NAME\s+ADDRESS\s+UNDERLYING$/)
    expect(lines.slice(1, 5).map((line) => line.split(/\s+/).slice(0, 5))).toEqual([
      ['0005', 'stock', 'HKEX', '0', '400'],
      ['0700', 'stock', 'HKEX', '0', '100'],
      ['1810', 'stock', 'HKEX', '0', '200'],
      ['9988', 'stock', 'HKEX', '0', '100'],
    ])
    const lotEnd = (lines[0] ?? '').indexOf('LOT') + 'LOT'.length
    expect(lines.slice(1, 5).every((line) => /\d$/.test(line.slice(0, lotEnd)))).toBe(true)
    expect(lines.at(-1)).toBe(`4 tokens on chain ${chainWithRouter().chainId}`)
    const wide = await stockroute(
      'tokens',
      '--chain',
      String(chainWithRouter().chainId),
      '--exchange',
      '1',
      '--wide',
    )
    expect(wide.stdout.split('\n')[0]).toMatch(
      /^TICKER\s+TYPE\s+EXCHANGE\s+DECIMALS\s+LOT\s+SPREAD TABLE\s+STOCK CODE/,
    )
  })
})

describe('stockroute market', () => {
  it('--info --json: quotes with lot, spread table and the tick at the close', async () => {
    const run = await stockroute('market', '--market', 'hkex', '--symbols', '0700, 0005', '--info', '--json')
    const quotes = await getMarketQuotes(client(), { symbols: ['0700', '0005'], market: 'hkex' })
    const rows = json(run) as Record<string, string>[]
    expect(
      rows.map((row) => [row.symbol, row.close, row.prevClose, row.volume, row.lotSize, row.spreadTableCode]),
    ).toEqual(
      quotes.map((quote) => [
        quote.symbol,
        quote.close,
        quote.prevClose,
        quote.volume,
        quote.symbol === '0700' ? '100' : '400',
        '1',
      ]),
    )
    for (const row of rows)
      expect(row.tickSize).toBe(
        formatPrice(tickSize({ market: 'hkex', spreadTableCode: '1', price: parsePrice(row.close ?? '') })),
      )
  })

  it('a table of quotes, one line per symbol in the order asked', async () => {
    const run = await stockroute('market', '--market', 'krex', '--symbols', '000660,005930', '--info')
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^SYMBOL\s+NAME\s+CLOSE\s+CHANGE\s+OPEN\s+HIGH\s+LOW\s+VOLUME\s+TURNOVER\s+LOT\s+TABLE\s+TICK$/,
    )
    expect(lines.slice(1).map((line) => line.split(' ')[0])).toEqual(['000660', '005930'])
    expect(lines.slice(1).every((line) => /\s1\s+KRX\s+\d+$/.test(line))).toBe(true)
  })
})

describe.concurrent('bad input', () => {
  it.each([
    [['tokens', '--chain', 'abc'], /option '--chain <id>' argument 'abc' is invalid\. must be a chain id/],
    [
      ['tokens', '--chain', '31337', '--type', 'bond'],
      /'--type <type>' argument 'bond' is invalid\. must be stock or share/,
    ],
    [
      ['tokens', '--chain', '31337', '--page-size', '501'],
      /'--page-size <n>'.*must be a whole number from 1 to 500/,
    ],
    [['tokens'], /required option '--chain <id>' not specified/],
    [
      ['market', '--market', 'nyse', '--symbols', 'AAPL'],
      /'--market <market>'.*must be a market code: usex, hkex or krex/,
    ],
    [['market', '--market', 'hkex', '--symbols', '0700,,9988'], /item 2 is empty/],
    [
      ['market', '--market', 'usex', '--symbols', 'AAPL', '--info'],
      /^error INVALID_OPTIONS: --info applies to hkex and krex .*\nfix: leave out --info for usex\n$/,
    ],
  ])('%j is refused with a clear message', async (args, message) => {
    const run = await stockroute(...args)
    expect(run.code).toBe(exitCodes.usage)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(message)
  })

  it("a request the service refuses prints the error's message, without a stack", async () => {
    const [unknownChain, mixedMarkets] = await Promise.all([
      stockroute('tokens', '--chain', '5'),
      stockroute('market', '--market', 'hkex', '--symbols', '0700,AAPL'),
    ])
    expect(unknownChain.code).toBe(exitCodes.notFound)
    expect(unknownChain.stderr).toMatch(
      /^error SERVICE_NOT_FOUND: GET \/api\/v1\/chains\/5\/tokens failed with 404 .*not a served chain/,
    )
    expect(mixedMarkets.code).toBe(exitCodes.refused)
    expect(mixedMarkets.stderr).toMatch(
      /^error SERVICE_BAD_REQUEST: GET \/market\/v1\/tickers\/quotes failed with 400 .*"AAPL" \(usex\)/,
    )
    for (const run of [unknownChain, mixedMarkets]) expect(run.stderr).not.toMatch(/\n\s+at /)
  })
})
