import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { runStockroute } from '../helpers/processes.js'

// `stockroute config check` as a user runs it: a file and the .env beside it, nothing contacted.

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

  it('a missing extra key: exit 2, naming the variable and the field that names it', async () => {
    const path = write('missing', config, secrets)
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('missing secrets: STOCKROUTE_WALLET_2_KEY')
    expect(run.stderr).toContain(
      'STOCKROUTE_WALLET_2_KEY is named by chains[0].extraWallets[0].privateKeyEnv',
    )
  })

  it('an extra wallet holding the main key: exit 2, naming both variables, no key printed', async () => {
    const path = write('duplicate', config, { ...secrets, STOCKROUTE_WALLET_2_KEY: mainKey })
    const run = await runStockroute(['config', 'check', '--config', path])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(
      /^chains\[0\]\.extraWallets\[0\]: STOCKROUTE_WALLET_2_KEY holds the same private key as STOCKROUTE_PRIVATE_KEY \(the main wallet, wallet\.privateKeyEnv\)/,
    )
    expect(run.stderr).not.toContain(mainKey.slice(2))
  })
})
