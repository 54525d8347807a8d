import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { type Address, erc20Abi, maxUint256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  type ConfigFileInput,
  loadConfig,
  loadDaemonConfig,
  readConfigFile,
  type StockrouteConfig,
} from '../../src/daemon/config.js'
import {
  checkLoadedConfig,
  type DoctorCheck,
  type DoctorReport,
  loadDoctorConfig,
  redactUrl,
  runDoctor,
} from '../../src/daemon/doctor/index.js'
import { describeSandbox } from '../../src/sandbox/describe.js'
import { type SandboxService, startSandboxService } from '../../src/sandbox/service/startSandboxService.js'
import { writeSandboxConfig } from '../../src/sandbox/writeSandboxConfig.js'
import {
  chainWithoutRouter,
  chainWithRouter,
  freshWallet,
  fundAddress,
  localChains,
} from '../helpers/localChains.js'
import { type CliRun, repoRoot, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute doctor` as a user runs it: the CLI spawned against this file's sandbox service and
// the shared anvil chains, with a config written as `stockroute sandbox --write-config` writes it.
// The wallet is one of this file's own (funded here, put in the .env), so its balances and
// allowances are known: no other file trades from it.

const service = useSandboxService()
let dir = ''
let configPath = ''
let configJson: ConfigFileInput
let privateKey: `0x${string}`
let wallet: Address

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stockroute-doctor-'))
  configPath = writeSandboxConfig(dir, describeSandbox(inject('localChains'), service()))
  configJson = JSON.parse(readFileSync(configPath, 'utf8')) as ConfigFileInput
  privateKey = generatePrivateKey()
  wallet = privateKeyToAccount(privateKey).address
  await Promise.all(localChains().map((chain) => fundAddress(chain, wallet, { asset: '5000' })))
  const envPath = join(dir, '.env')
  const env = readFileSync(envPath, 'utf8').replace(
    /^STOCKROUTE_PRIVATE_KEY=.*$/m,
    `STOCKROUTE_PRIVATE_KEY=${privateKey}`,
  )
  writeFileSync(envPath, env, { mode: 0o600 })
})

/** Runs `stockroute doctor <args>` (give --config) and collects its output. */
function doctor(...args: string[]): Promise<CliRun> {
  return runStockroute(['doctor', ...args])
}

/** Writes a variant of the sandbox config beside it (so the same .env applies) and returns its path. */
function variant(name: string, change: (config: ConfigFileInput) => ConfigFileInput): string {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(change(structuredClone(configJson))))
  return path
}

function reportOf(run: CliRun): DoctorReport {
  expect(run.stderr).toBe('')
  return JSON.parse(run.stdout) as DoctorReport
}

function find(report: DoctorReport, name: string, chainId?: number): DoctorCheck {
  const check = report.checks.find((c) => c.name === name && c.chainId === chainId)
  if (!check) throw new Error(`no check ${name} ${chainId ?? ''} in ${JSON.stringify(report.checks)}`)
  return check
}

const perChain = [
  'chain-served',
  'executor-pin',
  'operator-pin',
  'rpc',
  'executor',
  'gas',
  'asset',
  'allowance',
]

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('stockroute doctor against a sandbox', () => {
  it('--json: every check ok on a healthy deployment, exit 0, no secret printed', async () => {
    const run = await doctor('--config', configPath, '--json')
    expect(run.code, run.stdout).toBe(0)
    const report = reportOf(run)
    expect(report.ok).toBe(true)
    expect(report.checks.filter((check) => check.status !== 'ok')).toEqual([])
    expect(report.checks.slice(0, 4).map((check) => check.name)).toEqual([
      'config',
      'service',
      'clock',
      'api-key',
    ])
    for (const chain of localChains())
      expect(report.checks.filter((check) => check.chainId === chain.chainId).map((c) => c.name)).toEqual(
        perChain,
      )
    for (const check of report.checks) expect(check.message).not.toMatch(/\n/)

    expect(find(report, 'service').details).toMatchObject({ baseUrl: service().url })
    expect(find(report, 'clock').details).toMatchObject({ offsetMs: 0 })
    const router = chainWithRouter()
    expect(find(report, 'executor-pin', router.chainId).message).toContain("service's platform router")
    expect(find(report, 'executor-pin', chainWithoutRouter().chainId).message).toContain(
      "service's settlement contract",
    )
    expect(find(report, 'executor', router.chainId).details).toMatchObject({
      executor: router.executorAddress,
      domain: { chainId: router.chainId, verifyingContract: router.executorAddress },
    })
    expect(find(report, 'asset', router.chainId).details).toMatchObject({
      symbol: router.defaultAsset.symbol,
      decimals: router.defaultAsset.decimals,
      wallet,
      formatted: '5000',
    })
    expect(find(report, 'allowance', router.chainId).details).toMatchObject({
      spender: router.executorAddress,
      allowance: '0',
      unlimited: false,
      approvalPolicy: 'exact',
    })
    expect(find(report, 'gas', router.chainId).details).toMatchObject({
      balanceWei: (100n * 10n ** 18n).toString(),
    })

    const { credential } = service()
    for (const secret of [credential.apiKey, credential.apiSecret, privateKey, privateKey.slice(2)])
      expect(run.stdout).not.toContain(secret)
  })

  it('prints a table, one line per check, and a summary', async () => {
    const run = await doctor('--config', configPath)
    expect(run.code, run.stdout).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^CHECK\s+CHAIN\s+STATUS\s+MESSAGE$/)
    expect(lines[1]).toMatch(/^config\s+ok\s+loaded /)
    expect(
      lines.find((line) => line.startsWith('rpc') && line.includes(String(chainWithRouter().chainId))),
    ).toMatch(/\s+ok\s+RPC http:\/\/127\.0\.0\.1:\d+ answers eth_chainId/)
    expect(lines.at(-1)).toBe(`doctor: ${lines.length - 3} checks, no failure`)
  })

  it('a pinned operator that is not the service’s fails that check, naming both addresses: exit 1', async () => {
    const chain = chainWithRouter()
    const wrong = privateKeyToAccount(generatePrivateKey()).address
    const path = variant('wrong-operator', (config) => ({
      ...config,
      chains: config.chains.map((c) => (c.chainId === chain.chainId ? { ...c, operatorAddress: wrong } : c)),
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(1)
    const report = reportOf(run)
    expect(report.ok).toBe(false)
    const operator = find(report, 'operator-pin', chain.chainId)
    expect(operator.status).toBe('fail')
    expect(operator.message).toContain(chain.operatorAddress)
    expect(operator.message).toContain(wrong)
    expect(operator.message).toContain('chains[0].operatorAddress')
    expect(operator.details).toEqual({ pinned: wrong, service: chain.operatorAddress })
    // Only that check fails.
    expect(report.checks.filter((check) => check.status !== 'ok')).toEqual([operator])
  })

  it('an RPC URL on a closed port fails fast with a clear message, the URL path redacted: exit 1', async () => {
    const port = await closedPort()
    const chain = chainWithoutRouter()
    const path = variant('closed-rpc', (config) => ({
      ...config,
      chains: config.chains.map((c) =>
        c.chainId === chain.chainId ? { ...c, rpcUrl: `http://127.0.0.1:${port}/v2/provider-secret` } : c,
      ),
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(1)
    expect(run.elapsedMs).toBeLessThan(15_000)
    const report = reportOf(run)
    const rpc = find(report, 'rpc', chain.chainId)
    expect(rpc.status).toBe('fail')
    expect(rpc.message).toBe(
      `nothing listens on http://127.0.0.1:${port}/… (connection refused), the RPC of chain ${chain.chainId}: start the node, or fix chains[1].rpcUrl (the executor, balances and allowance are not checked until it answers)`,
    )
    expect(rpc.details).toMatchObject({
      connection: 'refused',
      error: expect.stringContaining('ECONNREFUSED'),
    })
    expect(run.stdout).not.toContain('provider-secret')
    // Nothing else is read from an unreachable chain; the service's side of it is still checked.
    expect(report.checks.filter((check) => check.chainId === chain.chainId).map((c) => c.name)).toEqual([
      'chain-served',
      'executor-pin',
      'operator-pin',
      'rpc',
    ])
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([rpc])
  })

  it('a service on a closed port: one attempt, and the service check says nothing listens there: exit 1', async () => {
    const port = await closedPort()
    const path = variant('closed-service', (config) => ({
      ...config,
      service: { ...config.service, baseUrl: `http://127.0.0.1:${port}` },
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(1)
    const service = find(reportOf(run), 'service')
    expect(service).toMatchObject({ status: 'fail', details: { connection: 'refused' } })
    // Not "no answer within its budget … after 7 attempt(s)": the refusal is reported as it is.
    expect(service.message).toBe(
      `nothing listens on http://127.0.0.1:${port} (connection refused): start the service, or fix service.baseUrl (chain pins, assets and the API key are not checked until it answers)`,
    )
  })

  it('a halted kill switch fails its check, naming the ledger, since when and why: exit 1', async () => {
    const path = variant('halted', (config) => ({ ...config, dataDir: 'halted-data' }))
    const healthy = reportOf(await doctor('--config', path, '--json'))
    expect(find(healthy, 'kill-switch')).toMatchObject({ status: 'ok', details: { halted: false } })

    const halt = await runStockroute(['halt', '--config', path, '--reason', 'doctor test: unexpected fills'])
    expect(halt.code, halt.stderr).toBe(0)
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(1)
    const report = reportOf(run)
    const killSwitch = find(report, 'kill-switch')
    const ledgerPath = join(dir, 'halted-data', 'stockroute.sqlite')
    expect(killSwitch).toMatchObject({
      status: 'fail',
      details: { ledgerPath, halted: true, reason: 'doctor test: unexpected fills' },
    })
    expect(killSwitch.message).toMatch(
      new RegExp(
        `^the kill switch of ledger ${ledgerPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is halted since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(reason: doctor test: unexpected fills\\): nothing is signed; once it is safe to trade, run \`stockroute resume --config `,
      ),
    )
    // It is the one failure: the deployment itself is healthy.
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([killSwitch])
  })

  it("a strategy whose share quantity is not whole lots of its ticker's board lot fails the strategies check", async () => {
    const path = variant('odd-lot', (config) => ({
      ...config,
      strategies: [
        {
          kind: 'schedule',
          id: 'odd-lot-0700',
          chainId: chainWithRouter().chainId,
          ticker: '0700',
          exchange: 1,
          side: 'buy',
          amountIn: '50',
          amountType: 'stocktoken',
          cron: '0 14 * * 1-5',
        },
      ],
    }))
    const run = await doctor('--config', path, '--json')
    expect(run.code).toBe(1)
    const report = reportOf(run)
    const strategies = find(report, 'strategies')
    expect(strategies.status).toBe('fail')
    expect(strategies.message).toBe(
      'strategies.0.amountIn: 50 shares is not a whole number of lots of 100 (HKEX board lot of 0700): use 100: every fire would be refused; fix the config',
    )
    expect(report.checks.filter((check) => check.status === 'fail')).toEqual([strategies])
  })

  it('--help documents the exit codes', async () => {
    const run = await doctor('--help')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Exit codes:\n\s+0 +no check failed/)
    expect(run.stdout).toMatch(/\n\s+1 +at least one check failed/)
    expect(run.stdout).toMatch(
      /\n\s+2 +the config cannot be checked: not found, invalid, a secret missing, or an embedded sandbox/,
    )
  })

  describe('a host that accepts connections and never answers', () => {
    let silent: Server
    const sockets: Socket[] = []
    beforeAll(async () => {
      silent = createServer((socket) => sockets.push(socket))
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    })
    afterAll(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    })

    it('as the service and as an RPC: both fail within --timeout, doctor never hangs', async () => {
      const { port } = silent.address() as { port: number }
      const chain = chainWithRouter()
      const path = variant('silent', (config) => ({
        ...config,
        service: { ...config.service, baseUrl: `http://127.0.0.1:${port}` },
        chains: config.chains.map((c) =>
          c.chainId === chain.chainId ? { ...c, rpcUrl: `http://127.0.0.1:${port}` } : c,
        ),
      }))
      const run = await doctor('--config', path, '--json', '--timeout', '1000')
      expect(run.code).toBe(1)
      expect(run.elapsedMs).toBeLessThan(10_000)
      const report = reportOf(run)
      expect(find(report, 'service')).toMatchObject({ status: 'fail' })
      expect(find(report, 'service').message).toMatch(/no answer within its budget of 1000 ms/)
      expect(find(report, 'rpc', chain.chainId)).toMatchObject({ status: 'fail' })
      expect(find(report, 'chain-served', chain.chainId)).toMatchObject({ status: 'warn' })
      // The other chain's RPC side is still checked.
      expect(find(report, 'executor', chainWithoutRouter().chainId)).toMatchObject({ status: 'ok' })
    })
  })

  it('an embedded config cannot be checked: exit 2, saying how to check a service instead', async () => {
    const [table, json] = await Promise.all([
      doctor('--config', 'config/default.json'),
      doctor('--config', 'config/default.json', '--json'),
    ])
    expect(table.code).toBe(2)
    expect(table.stdout).toMatch(/config\s+FAIL\s+.*default\.json runs an embedded sandbox/)
    expect(table.stdout).toContain('stockroute sandbox --write-config ./sbx')
    expect(table.stdout).toContain('stockroute doctor --config ./sbx/stockroute.json')
    expect(json.code).toBe(2)
    const report = reportOf(json)
    expect(report.ok).toBe(false)
    expect(report.checks).toEqual([
      expect.objectContaining({
        name: 'config',
        status: 'fail',
        details: expect.objectContaining({ embedded: true }),
      }),
    ])
  })

  it('a config that does not load (a secret missing, no such file): exit 2 naming what to fix', async () => {
    const path = variant('missing-secret', (config) => ({
      ...config,
      service: { ...config.service, apiSecretEnv: 'DOCTOR_TEST_UNSET_SECRET' },
    }))
    const [missing, absent] = await Promise.all([
      doctor('--config', path, '--json'),
      doctor('--config', join(dir, 'nope.json'), '--json'),
    ])
    expect(missing.code).toBe(2)
    expect(reportOf(missing).checks).toEqual([
      expect.objectContaining({
        name: 'config',
        status: 'fail',
        message: expect.stringMatching(
          /^missing secrets: DOCTOR_TEST_UNSET_SECRET; set them in the environment or in .*\.env/,
        ),
      }),
    ])
    expect(absent.code).toBe(2)
    expect(reportOf(absent).checks[0]?.message).toMatch(
      /^config file not found: .*nope\.json; pass --config FILE: `stockroute sandbox --write-config DIR` writes/,
    )
  })
})

describe('runDoctor (library)', () => {
  const loaded = (): StockrouteConfig => loadConfig(configPath, {})

  it('an unlimited allowance to the executor is a warning under the exact approval policy, ok under unlimited', async () => {
    const chain = chainWithRouter()
    const other = await freshWallet(chain, { asset: '10' })
    const hash = await other.walletClient.writeContract({
      address: chain.defaultAsset.address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [chain.executorAddress, maxUint256],
    })
    await other.publicClient.waitForTransactionReceipt({ hash })
    const config = { ...loaded(), secrets: { ...loaded().secrets, privateKey: other.privateKey } }

    const exact = await runDoctor(config)
    const allowance = find(exact, 'allowance', chain.chainId)
    expect(allowance.status).toBe('warn')
    expect(allowance.message).toMatch(/an unlimited allowance, but approvalPolicy is "exact"/)
    expect(allowance.message).toContain(`approve(${chain.executorAddress}, 0)`)
    // The other chain was never funded for this wallet: no gas is its one failure, no asset a warning.
    const unfunded = chainWithoutRouter().chainId
    expect(exact.checks.filter((check) => check.status === 'fail').map((c) => [c.name, c.chainId])).toEqual([
      ['gas', unfunded],
    ])
    expect(find(exact, 'gas', unfunded).message).toMatch(/holds 0 native gas money: it cannot pay/)
    expect(find(exact, 'asset', unfunded).status).toBe('warn')

    const unlimited = await runDoctor({
      ...config,
      execution: { ...config.execution, approvalPolicy: 'unlimited' },
    })
    expect(find(unlimited, 'allowance', chain.chainId).status).toBe('ok')
  })

  it("checks each wallet of a chain: the main one and the chain's extra ones, gas, asset and allowance each", async () => {
    const router = chainWithRouter()
    const funded = generatePrivateKey()
    const unfunded = generatePrivateKey()
    const fundedAddress = privateKeyToAccount(funded).address
    const unfundedAddress = privateKeyToAccount(unfunded).address
    await fundAddress(router, fundedAddress, { asset: '250' })
    const path = variant('extra-wallets', (config) => ({
      ...config,
      chains: config.chains.map((chain) =>
        chain.chainId === router.chainId
          ? {
              ...chain,
              extraWallets: [
                { privateKeyEnv: 'DOCTOR_WALLET_2_KEY' },
                { privateKeyEnv: 'DOCTOR_WALLET_3_KEY' },
              ],
            }
          : chain,
      ),
    }))
    const report = await runDoctor(
      loadConfig(path, { DOCTOR_WALLET_2_KEY: funded, DOCTOR_WALLET_3_KEY: unfunded }),
    )
    const config = find(report, 'config')
    expect(config.status).toBe('ok')
    expect(config.details).toMatchObject({
      wallet,
      extraWallets: {
        [router.chainId]: [fundedAddress, unfundedAddress],
        [chainWithoutRouter().chainId]: [],
      },
      secrets: { DOCTOR_WALLET_2_KEY: 'set (redacted)', DOCTOR_WALLET_3_KEY: 'set (redacted)' },
    })
    expect(JSON.stringify(report)).not.toContain(funded.slice(2))
    expect(JSON.stringify(report)).not.toContain(unfunded.slice(2))

    const walletChecks = (chainId: number, name: string) =>
      report.checks
        .filter((check) => check.chainId === chainId && check.name === name)
        .map((check) => [check.details.wallet ?? check.details.owner, check.status])
    // The router chain: three wallets, the main one first; the unfunded one cannot pay gas.
    expect(walletChecks(router.chainId, 'gas')).toEqual([
      [wallet, 'ok'],
      [fundedAddress, 'ok'],
      [unfundedAddress, 'fail'],
    ])
    expect(walletChecks(router.chainId, 'asset')).toEqual([
      [wallet, 'ok'],
      [fundedAddress, 'ok'],
      [unfundedAddress, 'warn'],
    ])
    expect(walletChecks(router.chainId, 'allowance')).toEqual([
      [wallet, 'ok'],
      [fundedAddress, 'ok'],
      [unfundedAddress, 'ok'],
    ])
    const unfundedGas = report.checks.find(
      (check) => check.name === 'gas' && check.details.wallet === unfundedAddress,
    )
    expect(unfundedGas?.message).toMatch(
      new RegExp(`^wallet ${unfundedAddress} holds 0 native gas money: it cannot pay`),
    )
    expect(
      report.checks.find((check) => check.name === 'asset' && check.details.wallet === fundedAddress)
        ?.message,
    ).toContain(`wallet ${fundedAddress} holds 250 `)
    // The other chain has the main wallet alone.
    expect(walletChecks(chainWithoutRouter().chainId, 'gas')).toEqual([[wallet, 'ok']])
    expect(report.ok).toBe(false)
  })

  describe('clock skew, from the Date header of a service whose clock is off', () => {
    let skewMs = 0
    let skewed: SandboxService
    let skewedConfigPath = ''
    beforeAll(async () => {
      skewed = await startSandboxService({
        local: inject('localChains'),
        clock: { now: () => Date.now() + skewMs },
      })
      skewedConfigPath = writeSandboxConfig(
        mkdtempSync(join(tmpdir(), 'stockroute-doctor-skew-')),
        describeSandbox(inject('localChains'), skewed),
      )
    })
    afterAll(async () => {
      await skewed?.stop()
    })

    it.each([
      // The Date header has whole seconds: the measured offset is within a second of the true one.
      [10_000, 'warn', /(9|10)\.\d s behind the service's .*inside the API's ±30 s window/],
      [-45_000, 'fail', /4[45]\.\d s ahead of the service's .*beyond the API's ±30 s timestamp window/],
    ] as const)('%i ms: %s', async (offset, status, message) => {
      skewMs = offset
      const report = await runDoctor(loadConfig(skewedConfigPath, {}))
      const clock = find(report, 'clock')
      expect(clock.status).toBe(status)
      expect(clock.message).toMatch(message)
      // The client corrects its API timestamps by the measured offset: the signed call still works.
      expect(find(report, 'api-key').status).toBe('ok')
    })
  })

  it('loadDoctorConfig tells a service config from an embedded one', () => {
    expect(loadDoctorConfig(configPath, {}).kind).toBe('service')
    expect(loadDoctorConfig(join(repoRoot, 'config', 'default.json'), {})).toMatchObject({
      kind: 'unusable',
      reason: 'embedded',
      report: { ok: false },
    })
  })

  it('redactUrl keeps scheme, host and port only', () => {
    expect(redactUrl('https://eth-mainnet.g.alchemy.com/v2/SECRET')).toBe(
      'https://eth-mainnet.g.alchemy.com/…',
    )
    expect(redactUrl('https://user:pass@rpc.example.com:8545/?key=SECRET')).toBe(
      'https://rpc.example.com:8545/…',
    )
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545')
  })
})

describe('config/example.service.json and .env.example', () => {
  const examplePath = join(repoRoot, 'config', 'example.service.json')
  const fakeSecrets = {
    STOCKROUTE_API_KEY: 'example-key',
    STOCKROUTE_API_SECRET: 'example-secret',
    STOCKROUTE_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
    STOCKROUTE_API_TOKEN: 'example-token',
  }

  it('is a complete service config that validates with the real schema', () => {
    const file = readConfigFile(examplePath)
    expect(file.service.baseUrl).toBe('https://api.example.com')
    expect(file.chains).toHaveLength(2)
    expect(file.execution.approvalPolicy).toBe('exact')
    expect(file.execution.risk).toBeDefined()
    expect(file.daemon.strategies.length).toBeGreaterThanOrEqual(2)
    expect(new Set(file.daemon.strategies.map((s) => s.chainId))).toEqual(
      new Set(file.chains.map((c) => c.chainId)),
    )
    expect(file.daemon.api.tokenEnv).toBe('STOCKROUTE_API_TOKEN')

    const config = loadConfig(examplePath, fakeSecrets)
    expect(config.secrets.apiKey).toBe('example-key')
    expect(loadDaemonConfig(examplePath, fakeSecrets).kind).toBe('service')
    expect(checkLoadedConfig(config, fakeSecrets).check.status).toBe('ok')
  })

  it('.env.example names every variable the example config reads, with placeholders only', () => {
    const example = parseDotenv(readFileSync(join(repoRoot, '.env.example')))
    const file = readConfigFile(examplePath)
    expect(Object.keys(example).sort()).toEqual(
      [
        file.service.apiKeyEnv,
        file.service.apiSecretEnv,
        file.wallet.privateKeyEnv,
        file.daemon.api.tokenEnv,
      ].sort(),
    )
    // Its placeholder key has the right form but is no key: doctor says so rather than trading with it.
    const config = loadConfig(examplePath, example)
    const { check, account } = checkLoadedConfig(config, example)
    expect(account).toBeUndefined()
    expect(check).toMatchObject({ name: 'config', status: 'fail' })
    expect(check.message).toMatch(/^STOCKROUTE_PRIVATE_KEY is not a usable private key/)
  })
})
