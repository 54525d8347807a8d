import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { configFieldsRemedy } from '../../src/config/config.js'
import { runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute config check` as a user runs it: a file and the .env beside it; the service is asked
// only for the ticker info of the strategies' tickers (lots and spread tables).

const service = useSandboxService()

const folder = mkdtempSync(join(tmpdir(), 'stockroute-config-check-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const chain = {
  rpcUrl: 'http://127.0.0.1:8545',
  executorAddress: '0x32601bf5989e3f2fe0653510027c596945498eb5',
  operatorAddress: '0x80f0DDdb8aeFFA41B4470090B6577bf448C92545',
}

function write(name: string, config: unknown, env: Record<string, string>) {
  const dir = join(folder, name)
  const path = join(dir, 'stockroute.json')
  mkdirSync(dir, { recursive: true })
  writeFileSync(path, JSON.stringify(config))
  writeFileSync(
    join(dir, '.env'),
    Object.entries(env)
      .map(([key, value]) => `${key}=${value}\n`)
      .join(''),
  )
  return path
}

describe('stockroute config check', () => {
  const mainKey = generatePrivateKey()
  const extraKey = generatePrivateKey()
  const config = {
    service: { baseUrl: 'http://127.0.0.1:8080' },
    chains: [
      { chainId: 31337, ...chain, extraWallets: [{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }] },
      { chainId: 31338, ...chain },
    ],
  }
  const secrets = {
    STOCKROUTE_API_KEY: 'k',
    STOCKROUTE_API_SECRET: 's',
    STOCKROUTE_PRIVATE_KEY: mainKey,
  }

  it("lists each chain's wallets by the variable holding its key, never a key", async () => {
    const path = write('ok', config, { ...secrets, STOCKROUTE_WALLET_2_KEY: extraKey })
    const json = await runStockroute(['config', 'check', '--config', path, '--json'])
    expect(json.code, json.stderr).toBe(0)
    const summary = JSON.parse(json.stdout)
    expect(summary.wallets).toEqual({
      31337: ['STOCKROUTE_PRIVATE_KEY', 'STOCKROUTE_WALLET_2_KEY'],
      31338: ['STOCKROUTE_PRIVATE_KEY'],
    })
    expect(summary.secrets.extraWalletKeys).toEqual({ STOCKROUTE_WALLET_2_KEY: 'set (redacted)' })
    const text = await runStockroute(['config', 'check', '--config', path])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(
      'chains 31337 (wallets STOCKROUTE_PRIVATE_KEY, STOCKROUTE_WALLET_2_KEY), 31338 (wallets STOCKROUTE_PRIVATE_KEY)',
    )
    for (const output of [json.stdout, text.stdout]) {
      expect(output).not.toContain(mainKey.slice(2))
      expect(output).not.toContain(extraKey.slice(2))
    }
  })

  it('a missing extra key: exit 3, naming the variable and the field that names it', async () => {
    const path = write('missing', config, secrets)
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toContain('missing secrets: STOCKROUTE_WALLET_2_KEY')
    expect(run.stderr).toContain(
      'STOCKROUTE_WALLET_2_KEY is named by chains[0].extraWallets[0].privateKeyEnv',
    )
  })

  it('an extra wallet holding the main key: exit 3, naming both variables, no key printed', async () => {
    const path = write('duplicate', config, { ...secrets, STOCKROUTE_WALLET_2_KEY: mainKey })
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toMatch(
      /^error CONFIG_INVALID: chains\[0\]\.extraWallets\[0\]: STOCKROUTE_WALLET_2_KEY holds the same private key as STOCKROUTE_PRIVATE_KEY \(the main wallet, wallet\.privateKeyEnv\)/,
    )
    expect(run.stderr).not.toContain(mainKey.slice(2))
  })
})

describe('stockroute config check: file-level mistakes', () => {
  it('an unknown top-level key: exit 3, listing the keys there are', async () => {
    const path = write(
      'unknown-key',
      { service: { baseUrl: 'http://127.0.0.1:8080' }, chains: [], stratgies: [] },
      {},
    )
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toMatch(
      /\n {2}\(file\): unknown field "stratgies": the fields are \$comment, service, wallet, chains, dataDir, execution, strategies, marketData, api, notifications, jobs, summaryIntervalSeconds, logLevel, shutdownGraceMs, cluster\n/,
    )
    const embedded = write('unknown-key-embedded', { sandbox: { embedded: true }, strategy: [] }, {})
    const embeddedRun = await runStockroute(['config', 'check', '--config', embedded])
    expect(embeddedRun.code).toBe(exitCodes.config)
    expect(embeddedRun.stderr).toMatch(
      /\(file\): unknown field "strategy": the fields are \$comment, sandbox, dataDir, /,
    )
  })

  it('a JSON syntax error: exit 3, the line and column (1-based) and what was expected', async () => {
    const path = write('broken-json', {}, {})
    writeFileSync(
      path,
      '{\n  "service": { "baseUrl": "http://127.0.0.1:8080" },\n  "chains": [] "dataDir": "data"\n}\n',
    )
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toBe(
      [
        `error CONFIG_INVALID: ${path} is not valid JSON: line 3, column 16: Expected ',' or '}' after property value`,
        'fix: fix the JSON syntax at the line and column given',
        '',
      ].join('\n'),
    )
  })

  it('a config file that does not exist: exit 3 from every command, the code, the message, how to make one, the fix', async () => {
    const missing = join(folder, 'nowhere', 'stockroute.json')
    for (const args of [
      ['config', 'check', '--config', missing],
      ['positions', '--config', missing],
    ]) {
      const run = await runStockroute(args)
      expect(run.code, args.join(' ')).toBe(exitCodes.config)
      expect(run.stdout).toBe('')
      // error CODE: message, the message's own lines (indented), then what to do.
      expect(run.stderr).toBe(
        [
          `error CONFIG_INVALID: config file not found: ${missing}`,
          "  pass --config FILE (the default is ./stockroute.json, else the demo's config/default.json). To make one:",
          '  `stockroute sandbox --write-config DIR` writes DIR/stockroute.json and DIR/.env for the local sandbox;',
          "  copy config/example.service.json (and .env.example) from stockroute's folder for a real service;",
          '  or run `stockroute start` with no --config: it runs the embedded demo (config/default.json)',
          'fix: pass --config with the path of an existing stockroute.json, or make one as above (`stockroute sandbox --write-config DIR` is the quickest)',
          '',
        ].join('\n'),
      )
    }
  })
})

describe("stockroute config check: strategies' lots and ticks", () => {
  const oddLot = {
    kind: 'schedule',
    id: 'odd-lot-0700',
    chainId: 31338,
    ticker: '0700',
    exchange: 1,
    side: 'buy',
    amountIn: '50',
    amountType: 'stocktoken',
    cron: '0 14 * * 1-5',
  }

  it("an embedded config: checked against the sandbox's catalogue, 50 shares of 0700 (lot 100) refused", async () => {
    const bad = write('embedded-odd-lot', { sandbox: { embedded: true }, strategies: [oddLot] }, {})
    const run = await runStockroute(['config', 'check', '--config', bad])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toBe(
      `error CONFIG_INVALID: ${bad} is invalid:\n  strategies.0.amountIn: 50 shares is not a whole number of lots of 100 (HKEX board lot of 0700): use 100\nfix: ${configFieldsRemedy}\n`,
    )
    const good = write(
      'embedded-lot',
      { sandbox: { embedded: true }, strategies: [{ ...oddLot, amountIn: '200' }] },
      {},
    )
    const ok = await runStockroute(['config', 'check', '--config', good])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toContain("lots and ticks: ok, checked against the embedded sandbox's catalogue")
  })

  it('the shipped desk demo (config/desk.json): every strategy kind passes, lots and ticks included', async () => {
    const run = await runStockroute(['config', 'check', '--config', 'config/desk.json'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(
      'strategies twap twap-0700, schedule dca-aapl, protect guard-aapl, schedule dca-tsla-us-hours, limit nvda-dip, rebalance core',
    )
    expect(run.stdout).toContain("lots and ticks: ok, checked against the embedded sandbox's catalogue")
  })

  it("a rebalance lotSize that is not the ticker's, and a ticker the market does not list: refused", async () => {
    const path = write(
      'embedded-rules',
      {
        sandbox: { embedded: true },
        strategies: [
          {
            kind: 'rebalance',
            id: 'core',
            chainId: 31337,
            targets: [{ ticker: '0005', exchange: 1, weight: '0.1', lotSize: 100 }],
            driftThreshold: '0.05',
          },
          { ...oddLot, kind: 'limit', id: 'nope', ticker: '0999', cron: undefined, limitPrice: '10' },
        ],
      },
      {},
    )
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toContain(
      '  strategies.0.targets.0.lotSize: is 100, but the HKEX board lot of 0005 is 400: set it to 400\n',
    )
    expect(run.stderr).toContain(
      '  strategies.1.ticker: hkex lists no stock "0999": check the ticker and the exchange (1)\n',
    )
  })

  it("a service config: checked against the service's ticker info, 50 shares of 0700 refused", async () => {
    const config = (amountIn: string) => ({
      service: { baseUrl: service().url },
      chains: [{ chainId: 31338, ...chain }],
      strategies: [{ ...oddLot, amountIn }],
    })
    const secrets = {
      STOCKROUTE_API_KEY: service().credential.apiKey,
      STOCKROUTE_API_SECRET: service().credential.apiSecret,
      STOCKROUTE_PRIVATE_KEY: generatePrivateKey(),
    }
    const bad = write('service-odd-lot', config('50'), secrets)
    const run = await runStockroute(['config', 'check', '--config', bad])
    expect(run.code).toBe(exitCodes.config)
    expect(run.stderr).toBe(
      `error CONFIG_INVALID: ${bad} is invalid:\n  strategies.0.amountIn: 50 shares is not a whole number of lots of 100 (HKEX board lot of 0700): use 100\nfix: ${configFieldsRemedy}\n`,
    )
    const good = write('service-lot', config('300'), secrets)
    const ok = await runStockroute(['config', 'check', '--config', good, '--json'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout).marketRules).toEqual({
      source: `the ticker info of ${service().url}`,
      checked: 1,
      unchecked: [],
    })
  })

  it('a service that is not reachable: config ok, saying the lots and ticks were not checked and why', async () => {
    const path = write(
      'service-down',
      {
        service: { baseUrl: 'http://127.0.0.1:1' },
        chains: [{ chainId: 31338, ...chain }],
        strategies: [oddLot],
      },
      { STOCKROUTE_API_KEY: 'k', STOCKROUTE_API_SECRET: 's', STOCKROUTE_PRIVATE_KEY: generatePrivateKey() },
    )
    const text = await runStockroute(['config', 'check', '--config', path])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(
      /\n {2}lots and ticks: NOT checked for strategies\.0 \(GET \/market\/v1\/tickers\/0700\/info: /,
    )
    const json = await runStockroute(['config', 'check', '--config', path, '--json', '--no-service'])
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout).marketRules).toEqual({
      source: 'none (--no-service)',
      checked: 0,
      unchecked: [{ path: 'strategies.0', reason: 'not asked (--no-service)' }],
    })
  })
})
