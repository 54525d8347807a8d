import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { chainWithoutRouter, chainWithRouter, localChains } from '../helpers/localChains.js'
import { repoRoot } from '../helpers/processes.js'
import {
  configPath,
  dir,
  doctor,
  find,
  perChain,
  privateKey,
  reportOf,
  useDoctorSandbox,
  variant,
  wallet,
} from './doctorSandbox.js'

// `stockroute doctor` on a healthy sandbox deployment (exit 0), its output, and configs it cannot
// check (exit 3, or 6 for an embedded sandbox that is not running). Failing checks (exit 6) are in
// doctorCommandFailures.test.ts.

const service = useDoctorSandbox()

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

  it('--help documents the exit codes', async () => {
    const run = await doctor('--help')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Exit codes \(every command's: stockroute --help\):\n\s+0 +no check failed/)
    expect(run.stdout).toMatch(/\n\s+3 +the config cannot be checked: not found, invalid, a secret missing/)
    expect(run.stdout).toMatch(/\n\s+6 +at least one check failed/)
  })

  it('an embedded config whose sandbox is not running: exit 6, saying how to start it', async () => {
    // The demo's config with a data folder of its own, where no daemon runs.
    const demo = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8'))
    const embedded = join(dir, 'embedded-demo.json')
    writeFileSync(embedded, JSON.stringify({ ...demo, dataDir: 'embedded-data' }))
    const [table, json] = await Promise.all([
      doctor('--config', embedded),
      doctor('--config', embedded, '--json'),
    ])
    expect(table.code).toBe(exitCodes.unreachable)
    expect(table.stdout).toMatch(
      /config\s+FAIL\s+.*embedded-demo\.json runs an embedded sandbox, and none is running/,
    )
    expect(table.stdout).toContain(`stockroute start --config ${embedded}`)
    expect(json.code).toBe(exitCodes.unreachable)
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

  it('a config that does not load (a secret missing, no such file): exit 3 naming what to fix', async () => {
    const path = variant('missing-secret', (config) => ({
      ...config,
      service: { ...config.service, apiSecretEnv: 'DOCTOR_TEST_UNSET_SECRET' },
    }))
    const [missing, absent] = await Promise.all([
      doctor('--config', path, '--json'),
      doctor('--config', join(dir, 'nope.json'), '--json'),
    ])
    expect(missing.code).toBe(exitCodes.config)
    expect(reportOf(missing).checks).toEqual([
      expect.objectContaining({
        name: 'config',
        status: 'fail',
        message: expect.stringMatching(
          /^missing secrets: DOCTOR_TEST_UNSET_SECRET; set them in the environment or in .*\.env/,
        ),
      }),
    ])
    expect(absent.code).toBe(exitCodes.config)
    expect(reportOf(absent).checks[0]?.message).toMatch(
      /^config file not found: .*nope\.json; pass --config FILE: `stockroute sandbox --write-config DIR` writes/,
    )
  })
})
