import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import type { SandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, expect, inject } from 'vitest'
import type { DoctorCheck, DoctorReport } from '../../src/cli/doctor/index.js'
import type { ConfigFileInput } from '../../src/config/config.js'
import { fundAddress, localChains } from '../helpers/localChains.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute doctor` as a user runs it: the CLI spawned against the test file's sandbox service and
// the shared anvil chains, with a config written as `stockroute sandbox --write-config` writes it.
// The wallet is one of the test file's own (funded here, put in the .env), so its balances and
// allowances are known: no other file trades from it.

// Set by useDoctorSandbox's beforeAll; test files read them (live bindings) inside tests.
export let dir = ''
export let configPath = ''
export let configJson: ConfigFileInput
export let privateKey: `0x${string}`
export let wallet: Address

/**
 * Starts a sandbox service for the test file, writes its config and .env into a new directory and
 * funds a wallet of the file's own on every chain. Returns the service (read it inside tests).
 */
export function useDoctorSandbox(): () => SandboxService {
  const service = useSandboxService()
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
  return service
}

/** Runs `stockroute doctor <args>` (give --config) and collects its output. */
export function doctor(...args: string[]): Promise<CliRun> {
  return runStockroute(['doctor', ...args])
}

/** Writes a variant of the sandbox config beside it (so the same .env applies) and returns its path. */
export function variant(name: string, change: (config: ConfigFileInput) => ConfigFileInput): string {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(change(structuredClone(configJson))))
  return path
}

export function reportOf(run: CliRun): DoctorReport {
  expect(run.stderr).toBe('')
  return JSON.parse(run.stdout) as DoctorReport
}

export function find(report: DoctorReport, name: string, chainId?: number): DoctorCheck {
  const check = report.checks.find((c) => c.name === name && c.chainId === chainId)
  if (!check) throw new Error(`no check ${name} ${chainId ?? ''} in ${JSON.stringify(report.checks)}`)
  return check
}

export const perChain = [
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
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
