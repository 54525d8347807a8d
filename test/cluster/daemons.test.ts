import { randomUUID } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DaemonConfigFiles, type DaemonRun, useDaemonProcesses } from '../helpers/daemonProcess.js'
import { expectLedgerMatchesChains } from '../helpers/ledgerAgainstChains.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { exitOf } from '../helpers/processes.js'
import { type RedisServer, startRedisServer } from '../helpers/redisServer.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Cluster mode with real processes (docs/scale-out.md): a redis-server on loopback, this file's
// sandbox service with an API key limited to 30 requests/s, and three daemons A, B, C trading on
// it as hard as their strategies make them, plus standbys for A and B on the same ledgers. The
// service's own counts say how many requests it accepted and refused; the ledgers say what was
// signed under which lease.

const keyRate = 30
const leaseTtlMs = 3_000
const renewMs = leaseTtlMs / 4
const token = `cluster-token-${randomUUID()}`
const service = useSandboxService({ requestsPerSecond: keyRate })
const daemons = useDaemonProcesses(service)
const env = { ...process.env, STOCKROUTE_API_TOKEN: token }
let redis: RedisServer

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(async () => {
  await redis?.stop()
})

/** Buys on both chains every second: more requests than a third of the key's budget. */
const hardTrading = (name: string) =>
  (
    [
      [chainWithRouter().chainId, 'AAPL', '300'],
      [chainWithRouter().chainId, 'TSLA', '300'],
      [chainWithRouter().chainId, 'NVDA', '200'],
      [chainWithoutRouter().chainId, 'AAPLs', '40'],
    ] as const
  ).map(([chainId, ticker, amountIn]) => ({
    kind: 'schedule',
    id: strategyIdOf(name, chainId, ticker),
    chainId,
    ticker,
    exchange: 0,
    side: 'buy',
    amountIn,
    cron: '* * * * * *',
  }))

const strategyIdOf = (name: string, chainId: number, ticker: string) =>
  `${name}-${chainId}-${ticker.toLowerCase()}`

/**
 * Once the budget is measured, a daemon keeps one strategy of four: a trade a second is enough to
 * see a standby trade, and the file's five daemons leave the CPU to the other test files. The
 * switches are kept in the ledger, so its standbys trade the one strategy too.
 */
async function easeOff(url: string, name: string) {
  for (const [chainId, ticker] of [
    [chainWithRouter().chainId, 'TSLA'],
    [chainWithRouter().chainId, 'NVDA'],
    [chainWithoutRouter().chainId, 'AAPLs'],
  ] as const) {
    const response = await fetch(`${url}/v1/strategies/${strategyIdOf(name, chainId, ticker)}/disable`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.status, await response.text()).toBe(200)
  }
}

const clusterSection = (nodeId: string) => ({
  redisUrl: redis.url,
  name: `test-${process.pid}`,
  nodeId,
  leaseTtlMs,
})

async function writeClusterConfig(name: string): Promise<DaemonConfigFiles> {
  return daemons.writeConfig(name, hardTrading(name), {
    service: { baseUrl: service().url, requestsPerSecond: keyRate },
    api: { tokenEnv: 'STOCKROUTE_API_TOKEN' },
    cluster: clusterSection(name),
  })
}

/** A standby of `active`: the same wallet and the same ledger (shared storage), another node id. */
function writeStandbyConfig(active: DaemonConfigFiles, nodeId: string): string {
  const dir = join(daemons.folder, nodeId)
  mkdirSync(dir, { recursive: true })
  const config = JSON.parse(readFileSync(active.configPath, 'utf8'))
  config.dataDir = join(active.dir, 'data')
  config.cluster = clusterSection(nodeId)
  writeFileSync(join(dir, 'stockroute.json'), JSON.stringify(config, null, 2))
  cpSync(join(active.dir, '.env'), join(dir, '.env'))
  return join(dir, 'stockroute.json')
}

const keyTally = () => {
  const count = service().context.rateLimiter.tally().get(`key:${service().credential.apiKey}`)
  return count ?? { accepted: 0, limited: 0 }
}

const controlUrlOf = async (run: DaemonRun) => (await run.waitFor(/^control API /)).split(' ')[2] as string

/** Fencing tokens a daemon printed when it took its leases. */
const tokensOf = async (run: DaemonRun) =>
  (await run.waitFor(/holds the leases/))
    .replace(/.*fencing tokens /, '')
    .replace(/\).*/, '')
    .split(', ')
    .map(Number)

const readLedger = <T>(path: string, read: (db: Database.Database) => T): T => {
  const db = new Database(path, { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

/** Executions of the ledger confirmed since `sinceMs`. */
const confirmedSince = (path: string, sinceMs: number) =>
  readLedger(
    path,
    (db) =>
      (
        db
          .prepare("SELECT count(*) AS n FROM executions WHERE state = 'confirmed' AND updated_at_ms > ?")
          .get(sinceMs) as { n: number }
      ).n,
  )

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function postSwap(url: string, idempotencyKey: string, amountIn = '300') {
  const response = await fetch(`${url}/v1/swaps`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({
      chainId: chainWithRouter().chainId,
      ticker: 'NVDA',
      exchange: 0,
      side: 'buy',
      amountIn,
    }),
  })
  return {
    status: response.status,
    node: response.headers.get('x-stockroute-node'),
    body: (await response.json()) as { executionId: number },
  }
}

/** Posts a swap and follows it until it ends or `going` turns false (a client that waits for its trade, not a flood of intents). */
async function swapToTheEnd(url: string, going: () => boolean) {
  const posted = await postSwap(url, `load-${randomUUID()}`, '300')
  while (going()) {
    const response = await fetch(`${url}/v1/swaps/${posted.body.executionId}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const { state } = (await response.json()) as { state: string }
    if (['confirmed', 'failed', 'expired', 'rejected'].includes(state)) return state
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('three daemons on one API key, in cluster mode', { timeout: 240_000 }, () => {
  const configs: Record<string, DaemonConfigFiles> = {}
  const runs: Record<string, DaemonRun> = {}

  it('share the key: the service refuses at most 1% of their requests, and accepts no more than the key allows', async () => {
    for (const name of ['A', 'B', 'C']) configs[name] = await writeClusterConfig(name)
    for (const name of ['A', 'B', 'C'])
      runs[name] = daemons.start((configs[name] as DaemonConfigFiles).configPath, [], env, {
        untilFileEnds: true,
      })
    for (const run of Object.values(runs)) await run.waitFor(/^trading /, 60_000)
    // Besides their strategies, four swaps at a time on each daemon, each followed to its end.
    const urls = await Promise.all(Object.values(runs).map(controlUrlOf))
    let posting = true
    const posters = urls.flatMap((url) =>
      Array.from({ length: 4 }, async () => {
        while (posting) await swapToTheEnd(url, () => posting).catch(() => undefined)
      }),
    )
    // check-tests-ignore sleep-then-expect: the budget is a figure over a measured window (issue 36), read from the service's own counts
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const before = keyTally()
    const startedAt = Date.now()
    // check-tests-ignore sleep-then-expect: the budget is a figure over a measured window (issue 36)
    await new Promise((resolve) => setTimeout(resolve, 8_000))
    const after = keyTally()
    posting = false
    await Promise.all(posters)
    const seconds = (Date.now() - startedAt) / 1000
    const accepted = after.accepted - before.accepted
    const limited = after.limited - before.limited
    expect(limited / (accepted + limited), `${limited} of ${accepted + limited} refused`).toBeLessThanOrEqual(
      0.01,
    )
    // Within the key's rate and its burst of twice the rate. How much of the budget they reach (at
    // least 85%) is throughput, measured by npm run bench:cluster: on this 2-core machine, other test
    // files running beside this one leave the daemons too little CPU to ask for the whole budget.
    // check-tests-ignore timed-assertion: the key's rate over the measured window is the bound cluster mode keeps (issue 36)
    expect(accepted, `${accepted} accepted in ${seconds} s`).toBeLessThanOrEqual(
      keyRate * seconds + 2 * keyRate,
    )
    expect(accepted).toBeGreaterThan(0)
    await Promise.all(['A', 'B', 'C'].map((name, index) => easeOff(urls[index] as string, name)))
  })

  it('the same idempotency key posted to two daemons at once makes one execution', async () => {
    const [a, b] = await Promise.all([controlUrlOf(runs.A as DaemonRun), controlUrlOf(runs.B as DaemonRun)])
    const key = `twice-${randomUUID()}`
    const replies = await Promise.all([postSwap(a, key), postSwap(b, key)]).catch((error) => {
      throw new Error(
        `${error} ${error.cause}\nA: ${runs.A?.stderr()}\nB: ${runs.B?.stderr()}\nA out: ${runs.A?.lines.slice(-5).join('\n')}`,
      )
    })
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 202])
    expect(replies[0]?.body.executionId).toBe(replies[1]?.body.executionId)
    const rows = ['A', 'B', 'C'].map((name) =>
      readLedger(
        (configs[name] as DaemonConfigFiles).ledgerPath,
        (db) =>
          (
            db.prepare('SELECT count(*) AS n FROM executions WHERE intent_id = ?').get(`api:${key}`) as {
              n: number
            }
          ).n,
      ),
    )
    expect(rows.reduce((sum, n) => sum + n, 0)).toBe(1)
  })

  it('a standby takes a killed daemon over within the time to live plus one renewal; the ledger then equals the chain', async () => {
    const active = configs.A as DaemonConfigFiles
    const standby = daemons.start(writeStandbyConfig(active, 'A2'), [], env)
    await standby.waitFor(/^standby: .* driven by A/, 30_000)
    ;(runs.A as DaemonRun).child.kill('SIGKILL')
    const killedAt = Date.now()
    await standby.waitFor(/holds the leases/, 30_000)
    // check-tests-ignore timed-assertion: the takeover's bound is the time to live plus one renewal (issue 36); 500 ms for the process to print it
    expect(Date.now() - killedAt).toBeLessThanOrEqual(leaseTtlMs + renewMs + 500)
    await standby.waitFor(/^trading /, 60_000)
    await until(() => confirmedSince(active.ledgerPath, killedAt) > 0, 20_000, 'the standby confirms a trade')
    standby.child.kill('SIGTERM')
    expect((await exitOf(standby.child)).code).toBe(0)
    await expectLedgerMatchesChains(active.ledgerPath, active.account.address)
  })

  it('a standby whose ledger a frozen writer keeps locked waits for the lock, then trades', async () => {
    const active = configs.A as DaemonConfigFiles
    // A writer stopped inside a ledger transaction: the lock stays until it runs again (or dies).
    const frozenWriter = new Database(active.ledgerPath)
    frozenWriter.prepare('BEGIN IMMEDIATE').run()
    try {
      const standby = daemons.start(writeStandbyConfig(active, 'A3'), [], env)
      await standby.waitFor(/holds the leases/, 30_000)
      await standby.waitFor(/the ledger is locked by another process/, 30_000)
      expect(standby.lines.some((line) => /^trading /.test(line))).toBe(false)
      frozenWriter.prepare('COMMIT').run()
      const unlockedAt = Date.now()
      await standby.waitFor(/^trading /, 60_000)
      await until(
        () => confirmedSince(active.ledgerPath, unlockedAt) > 0,
        20_000,
        'the standby confirms a trade',
      )
      standby.child.kill('SIGTERM')
      expect((await exitOf(standby.child)).code).toBe(0)
    } finally {
      if (frozenWriter.inTransaction) frozenWriter.prepare('ROLLBACK').run()
      frozenWriter.close()
    }
  })

  it('a frozen daemon whose wallets were taken over signs nothing after it wakes, and stops', async () => {
    const active = configs.B as DaemonConfigFiles
    const frozen = runs.B as DaemonRun
    const tokens = await tokensOf(frozen)
    const standby = daemons.start(writeStandbyConfig(active, 'B2'), [], env, { untilFileEnds: true })
    await standby.waitFor(/^standby: .* driven by B/, 30_000)
    frozen.child.kill('SIGSTOP')
    const frozenAt = Date.now()
    await standby.waitFor(/holds the leases/, 30_000)
    // Frozen mid-write, B keeps the ledger's lock: the standby then waits for it (said in a line)
    // until B runs again; otherwise it trades at once. Either way B wakes to a lease taken.
    frozen.child.kill('SIGCONT')
    await frozen.waitFor(/lease of wallet .* lost/, 20_000)
    await exitOf(frozen.child)
    await standby.waitFor(/^trading /, 60_000)
    await until(() => confirmedSince(active.ledgerPath, frozenAt) > 0, 20_000, 'the standby confirms a trade')
    // B may wake between a signature and its store (both before the freeze by its lease's clock):
    // the store then comes after waking, and is refused unless it lands before the standby raised the
    // ledger's fence, where the standby's recovery reads it. Nothing of B's is stored after the fence.
    const signedAfterWaking = readLedger(
      active.ledgerPath,
      (db) =>
        (
          db
            .prepare(
              `SELECT count(*) AS n FROM transactions t JOIN wallet_fences f
                 ON f.chain_id = t.chain_id AND f.wallet = t.from_address
               WHERE t.fence_token IN (${tokens.map(() => '?').join(', ')}) AND t.created_at_ms > f.since_ms`,
            )
            .get(...tokens) as { n: number }
        ).n,
    )
    expect(signedAfterWaking).toBe(0)
    const fences = readLedger(active.ledgerPath, (db) =>
      db.prepare('SELECT token FROM wallet_fences').all(),
    ) as { token: number }[]
    expect(fences.length).toBeGreaterThan(0)
    for (const fence of fences) expect(fence.token).toBeGreaterThan(Math.max(...tokens))
    runs.B2 = standby
  })

  it('Redis restarted mid-trade: no wallet is driven by two daemons, and trading resumes within 10 s', async () => {
    const ledgers = [configs.B, configs.C].map((config) => (config as DaemonConfigFiles).ledgerPath)
    const newestToken = (path: string) =>
      readLedger(
        path,
        (db) =>
          (db.prepare('SELECT max(fence_token) AS token FROM transactions').get() as { token: number }).token,
      )
    const tokensBefore = ledgers.map(newestToken)
    await redis.restart({ downMs: 500 })
    const answeredAt = Date.now()
    // Resumed: a transaction signed after Redis answered, under a lease taken again (a newer token).
    for (const [index, ledger] of ledgers.entries())
      await until(
        () =>
          readLedger(
            ledger,
            (db) =>
              (
                db
                  .prepare(
                    'SELECT count(*) AS n FROM transactions WHERE created_at_ms > ? AND fence_token > ?',
                  )
                  .get(answeredAt, tokensBefore[index]) as { n: number }
              ).n > 0,
          ),
        10_000,
        `a transaction signed under a new lease on ${ledger}`,
      )
    for (const run of [runs.B2, runs.C] as DaemonRun[]) {
      run.child.kill('SIGTERM')
      expect((await exitOf(run.child)).code).toBe(0)
    }
    // One driver at a time: on each wallet, a later transaction never carries an older token.
    for (const ledger of ledgers) {
      const rows = readLedger(
        ledger,
        (db) =>
          db.prepare('SELECT chain_id, from_address, fence_token FROM transactions ORDER BY id').all() as {
            chain_id: number
            from_address: string
            fence_token: number
          }[],
      )
      const newest = new Map<string, number>()
      for (const row of rows) {
        const wallet = `${row.chain_id}:${row.from_address}`
        expect(row.fence_token).toBeGreaterThanOrEqual(newest.get(wallet) ?? 0)
        newest.set(wallet, row.fence_token)
      }
    }
  })
})
