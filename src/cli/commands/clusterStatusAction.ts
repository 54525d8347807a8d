import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import type { Redis } from 'ioredis'
import { ClusterError } from '../../cluster/clusterError.js'
import type { ClusterSettings } from '../../cluster/clusterSettings.js'
import { connectRedis, redactedUrl } from '../../cluster/connectRedis.js'
import { type LeaseView, type NodeCard, readLeases, readNodeCards } from '../../cluster/nodeCards.js'
import { apiKeyIdOf, type ClusterKeys, clusterKeysOf } from '../../cluster/redisKeys.js'
import { ConfigError, readConfigFile, readEmbeddedConfig } from '../../config/config.js'
import { formatFittedTable } from '../formatTable.js'
import { printResult } from '../printResult.js'

/** The options of `stockroute cluster status`, as commander parsed them (./clusterCommand.ts). */
type StatusOptions = { config: string; json?: boolean; wide?: boolean }

/** A daemon's card, with how long ago it renewed it (by this machine's clock). */
export type NodeStatus = NodeCard & { seenAgoMs: number }

/** One API key's window in Redis (rate-limiter-flexible's `<name>:budget:<key id>`). */
export type KeyWindow = {
  /** The key's id: the first 16 hex digits of its SHA-256, never the key. */
  keyId: string
  /** Requests started with it in the current one-second window, at most the budget. */
  used: number
  /** The window's counter as Redis holds it (above the budget when full, or paused after a 429). */
  consumed: number
  /** When the window (or a 429's pause) ends, ms. */
  resetsInMs: number
  /** Whether it is the key this config names (known only when its secret is at hand). */
  thisConfig: boolean
}

/** The API key budget the cluster shares, and every key's use of it this second. */
export type BudgetStatus = {
  /** Requests a key may start per one-second window: floor(requestsPerSecond × keyBudgetShare); null when the config does not say (an embedded one). */
  perSecond: number | null
  requestsPerSecond: number | null
  share: number
  /** The id of this config's key; null when its secret is not at hand. */
  keyId: string | null
  keys: KeyWindow[]
}

/** What `stockroute cluster status --json` prints. */
export type ClusterStatus = { nodes: NodeStatus[]; leases: LeaseView[]; budget: BudgetStatus }

/** What the command needs of the config: its cluster section, the key's rate, the key if at hand. */
type ClusterTarget = {
  configPath: string
  settings: ClusterSettings
  requestsPerSecond: number | null
  apiKey: string | undefined
}

/**
 * What `stockroute cluster status` runs: reads the cluster's daemons, leases and key windows from
 * its Redis and prints them (tables fitting 120 columns unless --wide, or one JSON object).
 */
export async function clusterStatus(options: StatusOptions): Promise<void> {
  const target = readClusterTarget(options.config)
  const redis = await connectRedis(target.settings.redisUrl)
  let status: ClusterStatus
  try {
    status = await readClusterStatus(redis, target)
  } catch (error) {
    // Connected, then lost (commands fail at once without the connection): unreachable as well.
    if (redis.status === 'ready') throw error
    throw new ClusterError({
      code: 'REDIS_UNREACHABLE',
      shortMessage: `Lost the cluster's Redis at ${redactedUrl(target.settings.redisUrl)} while reading it: ${(error as Error).message}.`,
      remedy: 'Check that Redis runs (redis-server), then run the command again.',
      details: { url: redactedUrl(target.settings.redisUrl) },
      cause: error,
    })
  } finally {
    await redis.quit().catch(() => redis.disconnect())
  }
  printResult(options.json, status, () => describeStatus(status, target, options.wide))
}

/**
 * The config's cluster section (a service config or an embedded one), the key's rate and, when its
 * secret is set in the environment or the .env beside the config, the API key (for its id only).
 */
function readClusterTarget(path: string): ClusterTarget {
  const configPath = resolve(path)
  const embedded = readEmbeddedConfig(configPath)
  const file = embedded ? undefined : readConfigFile(configPath)
  const settings = (embedded ?? file)?.daemon.cluster
  if (!settings)
    throw new ConfigError(
      `${configPath} has no "cluster" section: cluster mode is off, its daemon runs alone.`,
      [
        '  a cluster section names the Redis its daemons share, e.g. "cluster": {"redisUrl": "redis://127.0.0.1:6379"}',
      ],
      {
        remedy:
          'pass --config with the config of a daemon of the cluster, or add a "cluster" section to this one (docs/scale-out.md)',
      },
    )
  return {
    configPath,
    settings,
    requestsPerSecond: file?.service.requestsPerSecond ?? null,
    apiKey: file ? secretOf(configPath, file.service.apiKeyEnv) : undefined,
  }
}

/** A secret as the daemon reads it (the environment, else the .env beside the config); undefined when unset. */
function secretOf(configPath: string, name: string): string | undefined {
  const dotenvPath = join(dirname(configPath), '.env')
  const fromDotenv = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}
  return process.env[name] || fromDotenv[name] || undefined
}

async function readClusterStatus(redis: Redis, target: ClusterTarget): Promise<ClusterStatus> {
  const keys = clusterKeysOf(target.settings.name)
  const [cards, leases, windows] = await Promise.all([
    readNodeCards(redis, keys),
    readLeases(redis, keys),
    readKeyWindows(redis, keys),
  ])
  const now = Date.now()
  const nodes = cards.map((card) => ({ ...card, seenAgoMs: Math.max(0, now - card.seenAtMs) }))
  const perSecond =
    target.requestsPerSecond === null
      ? null
      : Math.max(1, Math.floor(target.requestsPerSecond * target.settings.keyBudgetShare))
  const keyId = target.apiKey === undefined ? null : apiKeyIdOf(target.apiKey)
  const windowsWithMine =
    keyId === null || windows.some((window) => window.keyId === keyId)
      ? windows
      : [...windows, { keyId, consumed: 0, resetsInMs: 0 }]
  return {
    nodes,
    leases,
    budget: {
      perSecond,
      requestsPerSecond: target.requestsPerSecond,
      share: target.settings.keyBudgetShare,
      keyId,
      keys: windowsWithMine.map((window) => ({
        keyId: window.keyId,
        used: perSecond === null ? window.consumed : Math.min(window.consumed, perSecond),
        consumed: window.consumed,
        resetsInMs: window.resetsInMs,
        thisConfig: window.keyId === keyId,
      })),
    },
  }
}

/** Every key's window under `<name>:budget:` (SCAN: no key needed), with its counter and time left. */
async function readKeyWindows(
  redis: Redis,
  keys: ClusterKeys,
): Promise<{ keyId: string; consumed: number; resetsInMs: number }[]> {
  const prefix = `${keys.budgetPrefix}:`
  const names: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200)
    cursor = next
    names.push(...batch)
  } while (cursor !== '0')
  const unique = [...new Set(names)].sort()
  if (unique.length === 0) return []
  const pipeline = redis.pipeline()
  for (const name of unique) pipeline.get(name).pttl(name)
  const replies = (await pipeline.exec()) ?? []
  return unique.flatMap((name, index) => {
    const value = replies[2 * index]?.[1] as string | null
    const ttlMs = Number(replies[2 * index + 1]?.[1] ?? -2)
    // Gone between the SCAN and the GET: the window ended.
    if (value === null || !/^\d+$/.test(value)) return []
    return [{ keyId: name.slice(prefix.length), consumed: Number(value), resetsInMs: Math.max(0, ttlMs) }]
  })
}

function describeStatus(status: ClusterStatus, target: ClusterTarget, wide: boolean | undefined): string {
  const { settings } = target
  const lines = [
    `cluster ${settings.name} on ${redactedUrl(settings.redisUrl)} (wallet leases live ${settings.leaseTtlMs} ms unless renewed)`,
    '',
    `daemons: ${status.nodes.length}${status.nodes.length === 0 ? ' (no daemon of the cluster is running)' : ''}`,
  ]
  if (status.nodes.length > 0) lines.push(nodeTable(status.nodes, wide))
  lines.push(
    '',
    `wallet leases: ${status.leases.length}${status.leases.length === 0 ? ' (no daemon drives a wallet)' : ''}`,
  )
  if (status.leases.length > 0) lines.push(leaseTable(status.leases, wide))
  lines.push('', ...budgetLines(status.budget, wide))
  return lines.join('\n')
}

function nodeTable(nodes: readonly NodeStatus[], wide: boolean | undefined): string {
  return formatFittedTable(
    [
      { header: 'NODE' },
      { header: 'ROLE' },
      { header: 'PID@HOST' },
      { header: 'CONTROL URL' },
      { header: 'SEEN', align: 'right' },
      { header: 'WALLETS' },
      { header: 'STARTED', time: true, wide: true },
      { header: 'LEDGER', wide: true },
    ],
    nodes.map((node) => [
      node.nodeId,
      node.role,
      `${node.pid}@${node.host}`,
      node.controlUrl ?? '-',
      `${seconds(node.seenAgoMs)} ago`,
      node.wallets.length === 0
        ? '-'
        : node.wallets.map((wallet) => `${wallet.chainId}:${wallet.wallet}`).join(', '),
      new Date(node.startedAtMs).toISOString(),
      node.ledgerPath,
    ]),
    { wide },
  )
}

function leaseTable(leases: readonly LeaseView[], wide: boolean | undefined): string {
  return formatFittedTable(
    [
      { header: 'CHAIN', align: 'right' },
      { header: 'WALLET' },
      { header: 'HOLDER' },
      { header: 'TOKEN', align: 'right' },
      { header: 'TIME LEFT', align: 'right' },
    ],
    leases.map((lease) => [
      String(lease.chainId),
      lease.wallet,
      lease.nodeId,
      String(lease.token),
      lease.ttlMs < 0 ? '-' : seconds(lease.ttlMs),
    ]),
    { wide },
  )
}

function budgetLines(budget: BudgetStatus, wide: boolean | undefined): string[] {
  const title =
    budget.perSecond === null
      ? `key budget: unknown (the config does not give service.requestsPerSecond); ${budget.share} of the key's rate`
      : `key budget: ${budget.perSecond} requests a second per API key (service.requestsPerSecond ${budget.requestsPerSecond} × cluster.keyBudgetShare ${budget.share})`
  const mine =
    budget.keyId === null
      ? "(this config's API key is not set in the environment or the .env beside it: its row is not marked)"
      : undefined
  if (budget.keys.length === 0) return [title, 'no request started in this second', ...(mine ? [mine] : [])]
  const table = formatFittedTable(
    [
      { header: 'KEY ID' },
      { header: 'USED', align: 'right' },
      { header: 'BUDGET', align: 'right' },
      { header: 'RESETS IN', align: 'right' },
      { header: 'NOTE' },
    ],
    budget.keys.map((key) => [
      key.keyId,
      String(key.used),
      budget.perSecond === null ? '?' : String(budget.perSecond),
      seconds(key.resetsInMs),
      keyNote(key, budget.perSecond),
    ]),
    { wide },
  )
  return [title, table, ...(mine ? [mine] : [])]
}

/** What a key's row adds: whether it is this config's, whether its window is full. */
function keyNote(key: KeyWindow, perSecond: number | null): string {
  const notes = key.thisConfig ? ["this config's key"] : []
  // A 429's pause fills the window for longer than a second (the limiter's block).
  if (key.resetsInMs > 1_000) notes.push('paused (the service answered 429)')
  else if (perSecond !== null && key.consumed >= perSecond)
    notes.push('full: requests wait for the next second')
  return notes.join('; ')
}

/** Milliseconds as seconds to the tenth: `1.2s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`
}
