import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, erc20Abi, type Hex, isAddressEqual } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getTransactionCount } from 'viem/actions'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDaemonConfig } from '../../src/config/config.js'
import { type Daemon, startDaemon } from '../../src/daemon/startDaemon.js'
import { openLedger } from '../../src/store/index.js'
import {
  chainWithoutRouter,
  chainWithRouter,
  clientsFor,
  fundAddress,
  localChains,
} from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// A daemon with two wallets on one chain, as an operator configures it: the main wallet
// (wallet.privateKeyEnv) trades on every chain, `chains[].extraWallets` adds a second one to the
// chain with a router. Swaps posted at once to its swap API are spread over both wallets, each
// with nonces of its own; /health lists both; reconciliation compares the ledger with the sum of
// both wallets' balances and the service with the main wallet's, and finds nothing wrong.

const service = useSandboxService()
const folder = mkdtempSync(join(tmpdir(), 'stockroute-extra-wallets-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

// biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
type Json = any

async function getJson(url: string, token?: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {})
  return { status: response.status, body: await response.json() }
}

/** Polls `read` until `done` holds for its value (the test's own timeout bounds the wait). */
async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read()
    if (done(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A service configuration of its own, the extra wallet on the router chain only; keys in the .env beside it. */
async function writeConfig(mainKey: Hex, extraKey: Hex) {
  const dir = join(folder, 'daemon')
  mkdirSync(dir, { recursive: true })
  const router = chainWithRouter().chainId
  const config = {
    service: { baseUrl: service().url },
    chains: localChains().map((chain) => ({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      executorAddress: chain.executorAddress,
      operatorAddress: chain.operatorAddress,
      expectedInclusionMs: 1000,
      ...(chain.chainId === router ? { extraWallets: [{ privateKeyEnv: 'STOCKROUTE_WALLET_2_KEY' }] } : {}),
    })),
    dataDir: 'data',
    execution: { pipelineDepth: 2 },
    marketData: { intervalMs: 500, staleAfterMs: 10_000 },
    jobs: { reconciliation: '* * * * * *' },
    summaryIntervalSeconds: 3600,
  }
  writeFileSync(join(dir, 'stockroute.json'), JSON.stringify(config, null, 2))
  writeFileSync(
    join(dir, '.env'),
    [
      `STOCKROUTE_API_KEY=${service().credential.apiKey}`,
      `STOCKROUTE_API_SECRET=${service().credential.apiSecret}`,
      `STOCKROUTE_PRIVATE_KEY=${mainKey}`,
      `STOCKROUTE_WALLET_2_KEY=${extraKey}`,
      '',
    ].join('\n'),
  )
  return join(dir, 'stockroute.json')
}

const count = 6

describe('a daemon with extra wallets', () => {
  it('spreads swaps posted at once over both wallets of a chain, nonces contiguous per wallet; /health lists both; reconciliation finds nothing', {
    timeout: 120_000,
  }, async () => {
    const router = chainWithRouter()
    const mainKey = generatePrivateKey()
    const extraKey = generatePrivateKey()
    const main = privateKeyToAccount(mainKey).address
    const extra = privateKeyToAccount(extraKey).address
    await Promise.all([
      ...localChains().map((chain) => fundAddress(chain, main, { asset: '100000' })),
      fundAddress(router, extra, { asset: '100000' }),
    ])
    const configPath = await writeConfig(mainKey, extraKey)
    const lines: string[] = []
    const record = (line: string) => lines.push(line)
    let daemon: Daemon | undefined
    try {
      daemon = await startDaemon({
        config: loadDaemonConfig(configPath, {}),
        write: record,
        progress: record,
      })
      const apiUrl = daemon.apiUrl
      if (!apiUrl) throw new Error('the control API is not enabled')
      // The start banner lists each chain's wallets, the main one first; addresses only.
      expect(lines).toContain(
        `wallets chain ${router.chainId}: ${main} (main), ${extra}; chain ${chainWithoutRouter().chainId}: ${main} (main); ledger ${daemon.ledgerPath}`,
      )

      // Several swaps posted at once.
      const posted = await Promise.all(
        Array.from({ length: count }, async () => {
          const response = await fetch(`${apiUrl}/v1/swaps`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'idempotency-key': `burst-${randomUUID()}`,
              authorization: `Bearer ${daemon?.apiToken}`,
            },
            body: JSON.stringify({
              chainId: router.chainId,
              ticker: 'AAPL',
              exchange: 0,
              side: 'buy',
              amountIn: '300',
            }),
          })
          const body = (await response.json()) as Json
          expect(response.status, JSON.stringify(body)).toBe(202)
          return body.executionId as number
        }),
      )
      const terminal = ['confirmed', 'failed', 'expired', 'rejected']
      const ended = await Promise.all(
        posted.map((id) =>
          waitUntil(
            () => getJson(`${apiUrl}/v1/swaps/${id}`, daemon?.apiToken),
            (reply) => terminal.includes(reply.body.state),
          ),
        ),
      )
      for (const { body } of ended) expect(body.state, body.reason).toBe('confirmed')
      const swapsEndedAt = Date.now()

      // /health (its details behind the token): the router chain has both wallets, ready; the
      // other chain the main one.
      const health = await getJson(`${apiUrl}/health`, daemon.apiToken)
      expect(health.status).toBe(200)
      const walletsOn = (chainId: number) =>
        (health.body.chains as Json[])
          .find((chain) => chain.chainId === chainId)
          ?.wallets.map((wallet: Json) => [wallet.address, wallet.state])
      expect(walletsOn(router.chainId)).toEqual([
        [main, 'ready'],
        [extra, 'ready'],
      ])
      expect(walletsOn(chainWithoutRouter().chainId)).toEqual([[main, 'ready']])

      // A reconciliation run that began after the swaps ended (the job runs every second): the
      // ledger equals both wallets' balances together, the service the main wallet's.
      const reconciled = await waitUntil(
        () => getJson(`${apiUrl}/health`, daemon?.apiToken),
        (reply) =>
          reply.body.lastReconciliation !== null &&
          Date.now() - reply.body.lastReconciliation.ageMs > swapsEndedAt + 2_000,
      )
      expect(reconciled.body.lastReconciliation.discrepancies).toBe(0)
      const metrics = await (await fetch(`${apiUrl}/metrics`)).text()
      // The latest run (after the swaps) found nothing. A run during the burst may see a trade in
      // flight (its fill committed or not against the block it read), so the total is not asserted.
      expect(metrics).toMatch(/^stockroute_reconciliation_discrepancies 0$/m)

      const report = await daemon.stop('test over')
      daemon = undefined
      expect(report.executions.confirmed).toBe(count)
      expect(report.unfinished).toBe(0)
    } finally {
      await daemon?.stop('test failed')
    }

    // The ledger: transactions from both wallets, each wallet's nonces 0..n-1 with no gap, as many
    // as the chain counts for it; the AAPL position equals both wallets' balances together.
    const ledger = openLedger({ path: join(configPath, '..', 'data', 'stockroute.sqlite') })
    try {
      const rows = ledger.database
        .prepare<[number], { from_address: string; nonce: number; kind: string; status: string }>(
          'SELECT from_address, nonce, kind, status FROM transactions WHERE chain_id = ? ORDER BY from_address, nonce',
        )
        .all(router.chainId)
      const executesFrom = (address: Address) =>
        rows.filter((row) => row.kind === 'execute' && isAddressEqual(row.from_address as Address, address))
      expect(executesFrom(main).length).toBeGreaterThan(0)
      expect(executesFrom(extra).length).toBeGreaterThan(0)
      expect(executesFrom(main).length + executesFrom(extra).length).toBe(count)
      expect(
        rows.every(
          (row) =>
            isAddressEqual(row.from_address as Address, main) ||
            isAddressEqual(row.from_address as Address, extra),
        ),
      ).toBe(true)
      const { publicClient } = clientsFor(router, router.roles.deployer.privateKey)
      for (const wallet of [main, extra]) {
        const nonces = rows
          .filter((row) => isAddressEqual(row.from_address as Address, wallet))
          .map((row) => row.nonce)
        const onChain = await getTransactionCount(publicClient, { address: wallet })
        expect(nonces).toEqual(Array.from({ length: onChain }, (_, nonce) => nonce))
        expect(
          rows.filter((row) => isAddressEqual(row.from_address as Address, wallet)).map((row) => row.status),
        ).toEqual(nonces.map(() => 'mined'))
      }
      const [position] = ledger.positions.listPositions({ chainId: router.chainId })
      if (!position) throw new Error('no position on the router chain')
      const balances = await Promise.all(
        [main, extra].map((owner) =>
          publicClient.readContract({
            address: position.tokenAddress,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [owner],
          }),
        ),
      )
      expect(balances.every((balance) => balance > 0n)).toBe(true)
      expect(position.balance).toBe(balances.reduce((sum, balance) => sum + balance, 0n))
    } finally {
      ledger.close()
    }

    // Secrets: no key in anything printed or logged.
    const log = readFileSync(join(configPath, '..', 'data', 'stockroute.log'), 'utf8')
    for (const key of [mainKey, extraKey])
      for (const text of [lines.join('\n'), log]) expect(text).not.toContain(key.slice(2))
  })
})
