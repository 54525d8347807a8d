import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Address } from 'viem'
import type { SandboxDescription } from './describe.js'

/**
 * The stockroute.json the sandbox writes: the fields it sets, the rest left to their defaults. The
 * daemon's config schema checks at compile time that it accepts this (src/config/configFile.ts).
 */
export type SandboxConfigFile = {
  service: { baseUrl: string; apiKeyEnv: string; apiSecretEnv: string }
  wallet: { privateKeyEnv: string }
  chains: { chainId: number; rpcUrl: string; executorAddress: Address; operatorAddress: Address }[]
  dataDir: string
}

/**
 * Writes `DIR/stockroute.json` and `DIR/.env` pointing stockroute at a running sandbox: its URL and
 * credentials, every chain's RPC URL with its executor and operator pinned, and the first funded
 * test wallet's key. Returns the config file's path.
 *
 * @example
 * writeSandboxConfig('./sandbox', describeSandbox(local, service)) // './sandbox/stockroute.json'
 */
export function writeSandboxConfig(directory: string, sandbox: SandboxDescription): string {
  const wallet = sandbox.wallets[0]
  if (!wallet) throw new Error('the sandbox has no funded test wallet to put in the config')
  const dir = resolve(directory)
  mkdirSync(dir, { recursive: true })
  // The daemon's data folder, owner-only as the daemon makes its own: the ledger holds signed transactions.
  mkdirSync(join(dir, 'data'), { recursive: true, mode: 0o700 })
  const config: SandboxConfigFile = {
    service: {
      baseUrl: sandbox.baseUrl,
      apiKeyEnv: 'STOCKROUTE_API_KEY',
      apiSecretEnv: 'STOCKROUTE_API_SECRET',
    },
    wallet: { privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY' },
    chains: sandbox.chains.map((chain) => ({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
    })),
    dataDir: 'data',
  }
  const configPath = join(dir, 'stockroute.json')
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`)
  const env = [
    '# Secrets of the local sandbox (worthless elsewhere). Written by `stockroute sandbox --write-config`.',
    `STOCKROUTE_API_KEY=${sandbox.apiKey}`,
    `STOCKROUTE_API_SECRET=${sandbox.apiSecret}`,
    `STOCKROUTE_PRIVATE_KEY=${wallet.privateKey}`,
    '',
  ].join('\n')
  writeFileSync(join(dir, '.env'), env, { mode: 0o600 })
  return configPath
}
