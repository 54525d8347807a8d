import type { ChildProcess } from 'node:child_process'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getTransactionCount } from 'viem/actions'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, type SwapIntent } from '../../src/engine/index.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { type FailpointName, failpointNames } from '../../src/transactions/index.js'
import type { TradePlanArguments } from '../fixtures/tradePlan.js'
import { builtFixture } from '../helpers/builtFixture.js'
import {
  engineChainsOf,
  engineLedgers,
  positionsAgainstChain,
  settlementsOf,
  testEngineSettings,
} from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter, clientsFor, fundAddress } from '../helpers/localChains.js'
import { exitOf, spawnNode } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The crash matrix: for every failpoint on the money path, a child process trading on both chains
// (a buy that needs an approval, then a sell, on each chain) is SIGKILLed there by
// STOCKROUTE_FAILPOINTS, restarted and killed again during its recovery, then restarted once more
// to the end. Afterwards, within 30 s: every execution and every transaction row is final, each
// wallet's on-chain nonce equals its manager's next nonce with no gap, at most one settlement per
// quote id and one live fill per settlement, and positions equal on-chain balances.

const service = useSandboxService()
const ledgers = engineLedgers()
const children = new Set<ChildProcess>()
// After all: the cases run concurrently, so one case's end must not kill another's children.
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
})

const finalTransactionStatuses = ['mined', 'replaced', 'dropped', 'failed']

const buy = (chain: LocalChain, tag: string): SwapIntent => ({
  intentId: `${tag}-buy-${chain.chainId}`,
  chainId: chain.chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '1000',
})
const sell = (chain: LocalChain, tag: string): SwapIntent => ({
  intentId: `${tag}-sell-${chain.chainId}`,
  chainId: chain.chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'sell',
  amountIn: '1',
  amountType: 'stocktoken',
})

/** Runs the plan in a child with `failpoint` armed; resolves with how it ended and what it printed. */
async function runChild(args: TradePlanArguments, failpoint: FailpointName | undefined) {
  const env = { ...process.env }
  if (failpoint) env.STOCKROUTE_FAILPOINTS = `${failpoint}=kill`
  else delete env.STOCKROUTE_FAILPOINTS
  const child = spawnNode([builtFixture('test/fixtures/tradePlan.ts'), JSON.stringify(args)], { env })
  children.add(child)
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exit = await exitOf(child)
  return { exit, output }
}

/** The last run, in this process, to the end of the plan; then waits for every row to be final. */
async function finish(args: TradePlanArguments) {
  const account = privateKeyToAccount(args.privateKey)
  const ledger = openLedger({ path: args.ledgerPath })
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service().url,
      credentials: service().credential,
      makerAddress: account.address,
    }),
    account,
    chains: engineChainsOf(),
    settings: testEngineSettings,
    now: args.clockAheadMs ? () => Date.now() + (args.clockAheadMs ?? 0) : undefined,
  })
  const started = Date.now()
  try {
    await engine.recover()
    for (const step of args.plan) await Promise.all(step.map((intent) => engine.execute(intent)))
    for (;;) {
      const open = unfinishedRows(ledger)
      if (open.length === 0) break
      if (Date.now() - started > 30_000)
        throw new Error(`not final 30 s after the restart: ${open.join('; ')}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return {
      ledger,
      status: engine.transactionStatus(),
      close: () => engine.close().finally(() => ledger.close()),
    }
  } catch (error) {
    await engine.close()
    ledger.close()
    throw error
  }
}

function unfinishedRows(ledger: Ledger): string[] {
  const rows = ledger.database
    .prepare<[], { what: string }>(
      `SELECT 'execution ' || id || ' ' || state AS what FROM executions
         WHERE state NOT IN ('confirmed', 'failed', 'expired', 'rejected')
       UNION ALL
       SELECT 'transaction ' || hash || ' ' || kind || ' ' || status FROM transactions
         WHERE status NOT IN (${finalTransactionStatuses.map((status) => `'${status}'`).join(', ')})`,
    )
    .all()
  return rows.map((row) => row.what)
}

/** The invariants the issue names, on both chains. */
async function expectSound(
  ledger: Ledger,
  address: Address,
  status: { chainId: number; nextNonce: number | undefined }[],
  /** Nonces sent by hand before the engine ran, per chain id. */
  byHand: ReadonlyMap<number, number>,
) {
  for (const chain of [chainWithRouter(), chainWithoutRouter()]) {
    const first = byHand.get(chain.chainId) ?? 0
    const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    const onChainNonce = await getTransactionCount(publicClient, { address, blockTag: 'latest' })
    expect(await getTransactionCount(publicClient, { address, blockTag: 'pending' })).toBe(onChainNonce)
    expect(status.find((s) => s.chainId === chain.chainId)?.nextNonce).toBe(onChainNonce)
    const minedRows = ledger.database
      .prepare<[number], { nonce: number; kind: string; receipt_status: string }>(
        "SELECT nonce, kind, receipt_status FROM transactions WHERE chain_id = ? AND status = 'mined' ORDER BY nonce",
      )
      .all(chain.chainId)
    const mined = minedRows.map((row) => row.nonce)
    // Whatever instant it died at, nothing it signed reverted on chain.
    expect(minedRows.filter((row) => row.receipt_status !== 'success')).toEqual([])
    // Every nonce up to the chain's is one mined transaction of this ledger: no gap, no stranger.
    expect(mined).toEqual(Array.from({ length: onChainNonce - first }, (_, index) => first + index))
    const settlements = await settlementsOf(chain, address)
    const quoteIds = settlements.map((settlement) => settlement.quoteId)
    expect(new Set(quoteIds).size).toBe(quoteIds.length)
    const fills = ledger.fills.listFills({ chainId: chain.chainId })
    expect(fills.map((fill) => fill.quoteId).sort()).toEqual([...quoteIds].sort())
  }
  for (const position of await positionsAgainstChain(ledger, address))
    expect(position.ledger, `${position.ticker} on ${position.chainId}`).toBe(position.onChain)
  // The event stream (SSE, notifications) tells every transition and fill exactly once, whatever
  // instant the process died at: its rows are written in the same transactions.
  const count = (sql: string) => ledger.database.prepare<[], { n: number }>(sql).get()?.n
  expect(count("SELECT count(*) AS n FROM events WHERE kind = 'execution'")).toBe(
    count('SELECT count(*) AS n FROM execution_events'),
  )
  expect(count("SELECT count(*) AS n FROM events WHERE kind = 'fill'")).toBe(
    count('SELECT count(*) AS n FROM fills'),
  )
  // The figures written beside each fill (its realized PnL, the daily sums the reports read) equal
  // a replay of the whole ledger: recomputing rewrites them, and changes nothing.
  const figures = () => ({
    days: ledger.database.prepare('SELECT * FROM ledger_days ORDER BY 1, 2, 3, 4, 5').all(),
    realized: ledger.database.prepare('SELECT id, realized_pnl FROM fills ORDER BY id').all(),
  })
  const written = figures()
  expect(ledger.positions.recomputePositions().mismatches).toEqual([])
  expect(figures()).toEqual(written)
}

type MatrixCase = {
  /** The failpoint of each killed run, in order; the run after the last is to the end. */
  kills: FailpointName[]
  /**
   * How far ahead of the real time the engine's clock runs in the run of the same index, ms, and
   * in the final run as far as in the last killed one (e.g. past a stored execute's quote expiry,
   * instead of waiting for it).
   */
  clockAheadMs?: number[]
  /** An allowance set by hand before the first run, so the first stored transaction is the execute. */
  preapproved?: boolean
  plan: (tag: string) => SwapIntent[][]
}

const bothChains = (tag: string): SwapIntent[][] => {
  const chains = [chainWithRouter(), chainWithoutRouter()]
  // Two buys at once on the chain whose asset refuses a non-zero allowance change (USDT-like): the
  // second is planned while the first is unresolved, so its bundle is reset, approve, execute.
  const overlapping = {
    ...buy(chainWithoutRouter(), tag),
    intentId: `${tag}-buy-again-${chainWithoutRouter().chainId}`,
  }
  return [[...chains.map((chain) => buy(chain, tag)), overlapping], chains.map((chain) => sell(chain, tag))]
}

const matrix: [string, MatrixCase][] = [
  // Every failpoint of the trading path, so a new one is in the matrix the day it is named; the
  // two that need a path of their own follow.
  ...failpointNames
    .filter((failpoint) => failpoint !== 'replacement-stored' && failpoint !== 'during-recovery')
    .map((failpoint): [string, MatrixCase] => [
      failpoint,
      { kills: [failpoint, 'during-recovery'], plan: bothChains },
    ]),
  [
    // The execute broadcast, then the restart's recovery finds its receipt and commits the
    // inclusion on its own (not in a shared commit with the fill): killed before the settlement
    // loop's commit, the outcome waits in the ledger for the third run.
    'outcome-recorded in its own commit',
    { kills: ['broadcast', 'outcome-recorded'], plan: bothChains },
  ],
  [
    // The execute stored and never sent; its quote has expired at the restart (the engine's clock
    // a minute ahead from then on, past the quote's 10 s), whose recovery stores a cancel at the
    // same nonce and dies before sending it.
    'replacement-stored',
    {
      kills: ['stored', 'replacement-stored', 'during-recovery'],
      clockAheadMs: [0, 60_000, 60_000],
      preapproved: true,
      plan: (tag) => [[buy(chainWithRouter(), tag)]],
    },
  ],
]

describe('crash matrix: killed at each failpoint, then again during recovery', () => {
  it.concurrent.each(matrix)('%s', { timeout: 120_000 }, async (name, matrixCase) => {
    const privateKey: Hex = generatePrivateKey()
    const address = privateKeyToAccount(privateKey).address
    for (const chain of [chainWithRouter(), chainWithoutRouter()])
      await fundAddress(chain, address, { asset: '5000' })
    if (matrixCase.preapproved) {
      const chain = chainWithRouter()
      const wallet = clientsFor(chain, privateKey)
      const hash = await wallet.walletClient.writeContract({
        address: chain.defaultAsset.address,
        abi: erc20Abi,
        functionName: 'approve',
        args: [chain.executorAddress, 10n ** 30n],
      })
      await wallet.publicClient.waitForTransactionReceipt({ hash })
    }
    const { credential, url } = service()
    const args: TradePlanArguments = {
      service: { url, apiKey: credential.apiKey, apiSecret: credential.apiSecret },
      chains: engineChainsOf(),
      privateKey,
      ledgerPath: ledgers.path(`matrix-${name}.sqlite`),
      settings: testEngineSettings,
      plan: matrixCase.plan(`matrix-${name}`),
    }
    for (const [index, failpoint] of matrixCase.kills.entries()) {
      const run = await runChild({ ...args, clockAheadMs: matrixCase.clockAheadMs?.[index] ?? 0 }, failpoint)
      expect(run.exit, `run ${index + 1} (${failpoint}):\n${run.output}`).toEqual({
        code: null,
        signal: 'SIGKILL',
      })
      expect(run.output).toContain(`FAILPOINT ${failpoint}`)
    }
    const done = await finish({ ...args, clockAheadMs: matrixCase.clockAheadMs?.at(-1) ?? 0 })
    try {
      const byHand = new Map(matrixCase.preapproved ? [[chainWithRouter().chainId, 1]] : [])
      await expectSound(done.ledger, address, done.status, byHand)
      if (name === 'replacement-stored') {
        const [execution] = done.ledger.executions.listUnfinishedExecutions()
        expect(execution).toBeUndefined()
        const kinds = done.ledger.database
          .prepare<[], { kind: string; status: string }>('SELECT kind, status FROM transactions ORDER BY id')
          .all()
          .map((row) => `${row.kind} ${row.status}`)
        expect(kinds).toEqual(['execute replaced', 'cancel mined'])
      }
    } finally {
      await done.close()
    }
  })
})
