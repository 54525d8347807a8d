import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ClusterStatus } from '../../src/cli/commands/clusterStatusAction.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { createClusterLimiter } from '../../src/cluster/clusterLimiter.js'
import { connectRedis } from '../../src/cluster/connectRedis.js'
import { type NodeCard, publishNodeCard } from '../../src/cluster/nodeCards.js'
import { apiKeyIdOf, clusterKeysOf } from '../../src/cluster/redisKeys.js'
import { walletLeases } from '../../src/cluster/walletLeases.js'
import { repoRoot, runStockroute } from '../helpers/processes.js'
import { freePort, useRedisServer } from '../helpers/redisServer.js'

// `stockroute cluster status` (the built CLI) against a real redis-server seeded through the
// cluster's own functions: two daemons' cards, three wallet leases, and two API keys' budget
// windows (this config's, and another key paused after a 429).

const redisServer = useRedisServer()
const folder = mkdtempSync(join(tmpdir(), 'stockroute-cluster-status-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const clusterName = `status-${process.pid}`
const keys = clusterKeysOf(clusterName)
const apiKey = 'cluster-status-test-key'
const otherKey = 'another-desk-key'
const walletA = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const walletB = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
/** service.requestsPerSecond 20 × keyBudgetShare 0.5. */
const budget = 10

// Long ids and paths, so that the default table has to fit them in 120 columns.
const active: NodeCard = {
  nodeId: 'desk-frankfurt-primary-node-with-a-long-name',
  pid: 4242,
  host: 'trading-host-frankfurt-01.internal.example.com',
  role: 'active',
  controlUrl: 'http://10.20.30.40:43900',
  ledgerPath: '/srv/stockroute/desks/frankfurt/primary/data/stockroute.sqlite',
  wallets: [
    { chainId: 31337, wallet: walletA },
    { chainId: 31338, wallet: walletA },
  ],
  startedAtMs: Date.parse('2026-11-25T10:00:00.123Z'),
  seenAtMs: Date.now(),
}
const standby: NodeCard = {
  nodeId: 'desk-frankfurt-standby',
  pid: 777,
  host: 'trading-host-frankfurt-02',
  role: 'standby',
  controlUrl: null,
  ledgerPath: '/srv/stockroute/desks/frankfurt/standby/data/stockroute.sqlite',
  wallets: [{ chainId: 31337, wallet: walletA }],
  startedAtMs: Date.parse('2026-11-25T10:05:00Z'),
  seenAtMs: Date.now(),
}

let redis: Redis

/** A service config (the shape of test/helpers/daemonProcess.ts), with `extra` sections; .env only with `withKey`. */
function writeConfig(name: string, extra: Record<string, unknown>, options: { withKey?: boolean } = {}) {
  const dir = join(folder, name)
  mkdirSync(dir, { recursive: true })
  const config = {
    service: { baseUrl: 'http://127.0.0.1:1', requestsPerSecond: 20 },
    chains: [
      {
        chainId: 31337,
        rpcUrl: 'http://127.0.0.1:8545',
        executorAddress: walletB,
        operatorAddress: walletB,
      },
    ],
    dataDir: 'data',
    ...extra,
  }
  writeFileSync(join(dir, 'stockroute.json'), JSON.stringify(config, null, 2))
  if (options.withKey)
    writeFileSync(
      join(dir, '.env'),
      `STOCKROUTE_API_KEY=${apiKey}\nSTOCKROUTE_API_SECRET=unused\nSTOCKROUTE_PRIVATE_KEY=0x${'11'.repeat(32)}\n`,
    )
  return join(dir, 'stockroute.json')
}

const clusterConfig = () =>
  writeConfig(
    'member',
    { cluster: { redisUrl: redisServer().url, name: clusterName, keyBudgetShare: 0.5 } },
    { withKey: true },
  )

beforeAll(async () => {
  redis = await connectRedis(redisServer().url)
  for (const card of [active, standby]) await publishNodeCard(redis, keys, card, 600_000)
  const leases = walletLeases(redis, keys)
  const take = (chainId: number, wallet: string, nodeId: string, floor: number) =>
    leases.acquire({ chainId, wallet }, { nodeId, ttlMs: 600_000, floor })
  await expect(take(31337, walletA, active.nodeId, 0)).resolves.toEqual({ acquired: true, token: 1 })
  await expect(take(31338, walletA, active.nodeId, 41)).resolves.toEqual({ acquired: true, token: 42 })
  await expect(take(31338, walletB, standby.nodeId, 6)).resolves.toEqual({ acquired: true, token: 7 })
  // Another key of the cluster, paused for a minute after a 429: its window is full until then.
  const paused = createClusterLimiter({ redis, keys, apiKey: otherKey, requestsPerSecond: 20, share: 0.5 })
  paused.pauseFor(60_000)
  await vi.waitFor(async () =>
    expect(await redis.pttl(`${keys.budgetPrefix}:${apiKeyIdOf(otherKey)}`)).toBeGreaterThan(1_000),
  )
})
afterAll(() => redis?.disconnect())

/** Uses 3 requests of this config's key, then runs `cluster status --json`; again while the 1-second window ended before it was read. */
async function statusWithThreeUsed(configPath: string): Promise<ClusterStatus> {
  const limiter = createClusterLimiter({ redis, keys, apiKey, requestsPerSecond: 20, share: 0.5 })
  for (let attempt = 1; ; attempt++) {
    await Promise.all([1, 2, 3].map(() => limiter.schedule(async () => 'ok')))
    const run = await runStockroute(['cluster', 'status', '--config', configPath, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const status = JSON.parse(run.stdout) as ClusterStatus
    const mine = status.budget.keys.find((key) => key.thisConfig)
    // The CLI must start and read within the window: on a loaded machine that can take a few tries.
    if (mine?.consumed !== 0 || attempt === 20) return status
  }
}

describe('stockroute cluster status', () => {
  it('--json: the daemons, the leases and the key budget, as one object', async () => {
    const status = await statusWithThreeUsed(clusterConfig())
    expect(Object.keys(status).sort()).toEqual(['budget', 'leases', 'nodes'])
    expect(status.nodes.map((node) => node.nodeId)).toEqual([active.nodeId, standby.nodeId])
    expect(status.nodes[0]).toMatchObject({ ...active, seenAgoMs: expect.any(Number) })
    expect(status.nodes[1]).toMatchObject(standby)
    // In the order of their Redis keys: by chain, then wallet.
    expect(status.leases).toEqual([
      { chainId: 31337, wallet: walletA, nodeId: active.nodeId, token: 1, ttlMs: expect.any(Number) },
      { chainId: 31338, wallet: walletB, nodeId: standby.nodeId, token: 7, ttlMs: expect.any(Number) },
      { chainId: 31338, wallet: walletA, nodeId: active.nodeId, token: 42, ttlMs: expect.any(Number) },
    ])
    for (const lease of status.leases) expect(lease.ttlMs).toBeGreaterThan(0)
    expect(status.budget).toMatchObject({
      perSecond: budget,
      requestsPerSecond: 20,
      share: 0.5,
      keyId: apiKeyIdOf(apiKey),
    })
    const byId = new Map(status.budget.keys.map((key) => [key.keyId, key]))
    expect(byId.get(apiKeyIdOf(apiKey))).toMatchObject({ used: 3, consumed: 3, thisConfig: true })
    // Blocked at the budget plus one (rate-limiter-flexible's block): shown as the whole budget used.
    expect(byId.get(apiKeyIdOf(otherKey))).toMatchObject({
      used: budget,
      consumed: budget + 1,
      thisConfig: false,
    })
    expect(byId.get(apiKeyIdOf(otherKey))?.resetsInMs).toBeGreaterThan(1_000)
    // The key itself is never shown, only its digest.
    expect(JSON.stringify(status)).not.toContain(apiKey)
  })

  it('prints tables that fit 120 columns, wallets shortened; --wide shows everything whole', async () => {
    const configPath = clusterConfig()
    const run = await runStockroute(['cluster', 'status', '--config', configPath])
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120)
    expect(lines[0]).toBe(
      `cluster ${clusterName} on ${redisServer().url} (wallet leases live 10000 ms unless renewed)`,
    )
    expect(run.stdout).toContain('daemons: 2\n')
    expect(run.stdout).toMatch(/^NODE +ROLE +PID@HOST +CONTROL URL +SEEN +WALLETS/m)
    expect(run.stdout).toMatch(
      /^desk-frankfurt-standby +standby +777@trading-host-\S+ +- +\d+\.\ds ago +31337:0x7099…79c8$/m,
    )
    expect(run.stdout).toContain('http://10.20.30.40:43900')
    expect(run.stdout).toContain('wallet leases: 3\n')
    expect(run.stdout).toMatch(/^CHAIN +WALLET +HOLDER +TOKEN +TIME LEFT$/m)
    expect(run.stdout).toMatch(/^31338 +0x3c44…93bc +desk-frankfurt-standby +7 +\d+\.\ds$/m)
    expect(run.stdout).toMatch(
      /^31338 +0x7099…79c8 +desk-frankfurt-primary-node-with-a-long-name +42 +\d+\.\ds$/m,
    )
    expect(run.stdout).toContain(
      'key budget: 10 requests a second per API key (service.requestsPerSecond 20 × cluster.keyBudgetShare 0.5)',
    )
    expect(run.stdout).toMatch(
      new RegExp(
        `^${apiKeyIdOf(otherKey)} +10 +10 +\\d+\\.\\ds +paused \\(the service answered 429\\)$`,
        'm',
      ),
    )
    expect(run.stdout).toMatch(
      new RegExp(`^${apiKeyIdOf(apiKey)} +\\d+ +10 +\\d+\\.\\ds +this config's key$`, 'm'),
    )
    expect(run.stdout).toContain('more columns with --wide: STARTED, LEDGER')
    expect(run.stdout).not.toContain(walletA)

    const wide = await runStockroute(['cluster', 'status', '--config', configPath, '--wide'])
    expect(wide.code, wide.stderr).toBe(0)
    expect(wide.stdout).toContain(`31337:${walletA}, 31338:${walletA}`)
    expect(wide.stdout).toContain(active.ledgerPath)
    expect(wide.stdout).toContain('2026-11-25T10:00:00.123Z')
    expect(wide.stdout).not.toContain('--wide')
  })

  it("without the API key at hand: every key's window, none marked as the config's", async () => {
    const configPath = writeConfig('no-secrets', {
      cluster: { redisUrl: redisServer().url, name: clusterName, keyBudgetShare: 0.5 },
    })
    const json = await runStockroute(['cluster', 'status', '--config', configPath, '--json'])
    expect(json.code, json.stderr).toBe(0)
    const status = JSON.parse(json.stdout) as ClusterStatus
    expect(status.budget.keyId).toBeNull()
    expect(status.budget.keys.map((key) => key.keyId)).toContain(apiKeyIdOf(otherKey))
    expect(status.budget.keys.every((key) => !key.thisConfig)).toBe(true)
    const text = await runStockroute(['cluster', 'status', '--config', configPath])
    expect(text.stdout).toContain(
      "(this config's API key is not set in the environment or the .env beside it",
    )
  })

  it('an empty cluster says so', async () => {
    const configPath = writeConfig('empty', { cluster: { redisUrl: redisServer().url, name: 'nobody-here' } })
    const run = await runStockroute(['cluster', 'status', '--config', configPath])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('daemons: 0 (no daemon of the cluster is running)')
    expect(run.stdout).toContain('wallet leases: 0 (no daemon drives a wallet)')
    expect(run.stdout).toContain('key budget: 19 requests a second per API key')
    expect(run.stdout).toContain('no request started in this second')
  })

  it('a config without a cluster section: exit 3, cluster mode is off', async () => {
    const configPath = writeConfig('alone', {})
    const run = await runStockroute(['cluster', 'status', '--config', configPath])
    expect(run.stderr).toContain(
      `error CONFIG_INVALID: ${configPath} has no "cluster" section: cluster mode is off`,
    )
    expect(run.stdout).toBe('')
    expect(run.code).toBe(exitCodes.config)
    // An embedded config (the demo's) has none either.
    const demo = join(folder, 'demo.json')
    writeFileSync(demo, readFileSync(join(repoRoot, 'config', 'default.json')))
    const embedded = await runStockroute(['cluster', 'status', '--config', demo])
    expect(embedded.stderr).toContain('has no "cluster" section')
    expect(embedded.code).toBe(exitCodes.config)
  })

  it('a Redis that does not run: exit 6 (unreachable), REDIS_UNREACHABLE', async () => {
    const port = await freePort()
    const configPath = writeConfig('no-redis', { cluster: { redisUrl: `redis://127.0.0.1:${port}` } })
    const run = await runStockroute(['cluster', 'status', '--config', configPath])
    expect(run.stderr).toContain(
      `error REDIS_UNREACHABLE: Cannot reach the cluster's Redis at redis://127.0.0.1:${port}`,
    )
    expect(run.stdout).toBe('')
    expect(run.code).toBe(exitCodes.unreachable)
  })
})
