import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { describe, expect, it } from 'vitest'
import { checkLoadedConfig } from '../../src/cli/doctor/index.js'
import { loadConfig, loadDaemonConfig, readConfigFile } from '../../src/config/config.js'
import { repoRoot } from '../helpers/processes.js'

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
