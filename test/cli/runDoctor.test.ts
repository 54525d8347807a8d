import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import { type SandboxService, startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import { erc20Abi, maxUint256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loadDoctorConfig, redactUrl, runDoctor } from '../../src/cli/doctor/index.js'
import { loadConfig, type StockrouteConfig } from '../../src/config/config.js'
import { chainWithoutRouter, chainWithRouter, freshWallet, fundAddress } from '../helpers/localChains.js'
import { repoRoot } from '../helpers/processes.js'
import { configPath, find, useDoctorSandbox, variant, wallet } from './doctorSandbox.js'

// The doctor's checks called as a library (runDoctor, loadDoctorConfig, redactUrl), on the config
// `stockroute sandbox --write-config` writes for the test file's sandbox service.

useDoctorSandbox()

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

  it('loadDoctorConfig tells a service config from an embedded one whose sandbox is not running', () => {
    expect(loadDoctorConfig(configPath, {}).kind).toBe('service')
    // The demo's config with a data folder of its own, where no daemon runs.
    const demo = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8'))
    const embedded = join(mkdtempSync(join(tmpdir(), 'stockroute-doctor-embedded-')), 'demo.json')
    writeFileSync(embedded, JSON.stringify({ ...demo, dataDir: 'data' }))
    expect(loadDoctorConfig(embedded, {})).toMatchObject({
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
