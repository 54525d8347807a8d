import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { CatalogueStock } from './catalogue.js'
import type { SandboxChainSpec } from './chainSpecs.js'
import * as artifacts from './contracts/artifacts/index.js'
import { type ChainDeployment, deploymentFingerprint } from './deploy.js'
import type { ChainRoleKeys, SandboxKey } from './keys.js'

/**
 * A deployed sandbox chain kept on disk: anvil's state dump and the deployment's addresses, so a
 * later start loads the chain in milliseconds instead of sending its ~80 deployment transactions.
 * Everything a deployment follows from (chain spec, catalogue, keys, contract bytecode, the code
 * that deploys, the anvil build) goes into its key, so a changed input never loads an old chain.
 */
export type CachedChain = {
  key: string
  deployment: ChainDeployment
  /** anvil_dumpState's format (gzipped JSON, hex), the accounts only: loaded, they are block 0's state. */
  state: `0x${string}`
}

/** Bumped when what a cached chain holds changes shape. */
const cacheFormat = 2

/**
 * The folder chains are kept in: `STOCKROUTE_SANDBOX_CACHE` when set (`off` keeps none), else
 * `$XDG_CACHE_HOME/stockroute/sandbox-chains`, else `~/.cache/stockroute/sandbox-chains`.
 */
export function defaultChainStateCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.STOCKROUTE_SANDBOX_CACHE
  if (fromEnv === 'off') return null
  if (fromEnv) return fromEnv
  const cacheHome = env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(cacheHome, 'stockroute', 'sandbox-chains')
}

export type ChainStateKeyParameters = {
  spec: SandboxChainSpec
  catalogue: readonly CatalogueStock[]
  roles: ChainRoleKeys
  wallets: readonly SandboxKey[]
  /** Which anvil build runs the chain: its state dumps load only into the same kind. */
  anvilIdentity: string
}

/** The key of a deployment: a hash of every input its state and addresses follow from. */
export function chainStateKey(parameters: ChainStateKeyParameters): string {
  const { spec, catalogue, roles, wallets, anvilIdentity } = parameters
  const bytecodes = Object.entries(artifacts)
    .filter(([name]) => name.endsWith('Bytecode'))
    .sort(([a], [b]) => a.localeCompare(b))
  const inputs = {
    cacheFormat,
    spec,
    catalogue,
    roles: Object.fromEntries(Object.entries(roles).map(([role, key]) => [role, key.address])),
    wallets: wallets.map((wallet) => wallet.address),
    bytecodes,
    deployCode: deploymentFingerprint(),
    anvilIdentity,
  }
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex')
}

function cachePath(directory: string, chainId: number, key: string): string {
  return join(directory, `chain-${chainId}-${key.slice(0, 24)}.json`)
}

/** The chain kept under `key`, or null when there is none or it cannot be read (it is then removed). */
export function readCachedChain(directory: string, chainId: number, key: string): CachedChain | null {
  const path = cachePath(directory, chainId, key)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return null
  }
  try {
    const cached = JSON.parse(text) as CachedChain
    if (cached.key !== key || !cached.state?.startsWith('0x') || !cached.deployment?.executorAddress)
      throw new Error('not a cached chain of this key')
    return cached
  } catch {
    forgetCachedChain(directory, chainId, key)
    return null
  }
}

/**
 * Keeps a deployed chain. The file is written beside its final name and renamed into place, so a
 * process reading it at the same moment sees the whole file or none; the folder is the user's own (0700).
 */
export function writeCachedChain(directory: string, chainId: number, cached: CachedChain): void {
  // Only the cache's own folder is owner-only: parents it creates (~/.cache) get the usual mode.
  mkdirSync(dirname(directory), { recursive: true })
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  const path = cachePath(directory, chainId, cached.key)
  const partial = `${path}.${process.pid}.partial`
  writeFileSync(partial, JSON.stringify(cached), { mode: 0o600 })
  renameSync(partial, path)
}

/** Removes a kept chain that failed to load, so the next start deploys and keeps a good one. */
export function forgetCachedChain(directory: string, chainId: number, key: string): void {
  rmSync(cachePath(directory, chainId, key), { force: true })
}
