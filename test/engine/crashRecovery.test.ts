import type { ChildProcess } from 'node:child_process'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine, type SwapIntent } from '../../src/engine/index.js'
import { openLedger } from '../../src/store/index.js'
import type { EngineCrashArguments } from '../fixtures/engineCrash.js'
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

// Crash recovery for real: the engine runs in a child process that kills itself with SIGKILL at
// the worst moments (execute signed and stored but not sent; execute accepted by the node but not
// marked broadcast; receipt read but nothing of it committed; approval signed but not sent). A new
// engine over the same ledger file then recovers, and each case ends with exactly one settlement
// on chain, one fill row, one signed execute and no hole in the wallet's nonces.

const service = useSandboxService()
const ledgers = engineLedgers()
const chains = [
  ['router, 6-decimal asset', chainWithRouter],
  ['settlement, 18-decimal asset', chainWithoutRouter],
] as const

const children = new Set<ChildProcess>()
afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
})

type Crash = EngineCrashArguments['crash']

/** Runs the intent in a child engine that dies at `crash`; resolves with its exit and the CRASH line. */
async function runUntilCrash(parameters: {
  chain: LocalChain
  privateKey: Hex
  ledgerPath: string
  intent: SwapIntent
  crash: Crash
}) {
  const { credential, url } = service()
  const args: EngineCrashArguments = {
    service: { url, apiKey: credential.apiKey, apiSecret: credential.apiSecret },
    chains: engineChainsOf(),
    privateKey: parameters.privateKey,
    ledgerPath: parameters.ledgerPath,
    settings: testEngineSettings,
    intent: parameters.intent,
    crash: parameters.crash,
  }
  const child = spawnNode([builtFixture('test/fixtures/engineCrash.ts'), JSON.stringify(args)])
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exit = await exitOf(child)
  const line = stdout.split('\n').find((l) => l.startsWith('CRASH '))
  const [, step, kind, hash, nonce] = line?.split(' ') ?? []
  return {
    exit,
    stdout,
    stderr,
    crashed: line ? { step, kind, hash: hash as Hex, nonce: Number(nonce) } : undefined,
  }
}

/**
 * The restart: a new engine over the same ledger file, in this process, recovered. Built here rather
 * than with createTestEngine so that the test holds recovery's report.
 */
async function restart(ledgerPath: string, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey)
  const ledger = openLedger({ path: ledgerPath })
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    makerAddress: account.address,
  })
  try {
    const engine = await createEngine({
      ledger,
      service: client,
      account,
      chains: engineChainsOf(),
      settings: testEngineSettings,
    })
    const report = await engine.recover()
    return {
      engine,
      ledger,
      report,
      async close() {
        await engine.close()
        ledger.close()
      },
    }
  } catch (error) {
    ledger.close()
    throw error
  }
}

async function crashAndRecover(chain: LocalChain, crash: Crash) {
  const privateKey = generatePrivateKey()
  const address = privateKeyToAccount(privateKey).address
  await fundAddress(chain, address, { asset: '5000' })
  const ledgerPath = ledgers.path()
  const intent: SwapIntent = {
    intentId: `crash-${crash.step}-${crash.kind}-${chain.chainId}`,
    chainId: chain.chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
  }
  const started = Date.now()
  const child = await runUntilCrash({ chain, privateKey, ledgerPath, intent, crash })
  const crashedAfterMs = Date.now() - started
  const context = `child stdout:\n${child.stdout}\nchild stderr:\n${child.stderr}`
  expect(child.exit, context).toEqual({ code: null, signal: 'SIGKILL' })
  expect(child.crashed, context).toMatchObject({ step: crash.step, kind: crash.kind })
  expect(child.crashed?.hash).toMatch(/^0x[0-9a-f]{64}$/)

  const before = await leftBehind(chain, ledgerPath, address, intent.intentId)
  const restartedAt = Date.now()
  const restarted = await restart(ledgerPath, privateKey)
  const recoveredInMs = Date.now() - restartedAt
  return { ...restarted, address, intent, crashed: child.crashed, before, crashedAfterMs, recoveredInMs }
}

/** What the dead process left: its ledger as committed, and the wallet on chain (pending nonce, settlements). */
async function leftBehind(chain: LocalChain, ledgerPath: string, address: Address, intentId: string) {
  const ledger = openLedger({ path: ledgerPath })
  try {
    const execution = ledger.executions.getExecutionByIntent(intentId)
    const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    return {
      state: execution?.state,
      transactions: execution
        ? ledger.transactions.listTransactionsForExecution(execution.id).map((tx) => [tx.kind, tx.status])
        : [],
      fills: ledger.fills.listFills().length,
      pendingNonce: await publicClient.getTransactionCount({ address, blockTag: 'pending' }),
      settlements: (await settlementsOf(chain, address)).length,
    }
  } finally {
    ledger.close()
  }
}

/** What must hold after any crash: one settlement, one fill, positions equal balances, no nonce hole. */
async function expectOneExecution(chain: LocalChain, state: Awaited<ReturnType<typeof crashAndRecover>>) {
  const { ledger, address, intent } = state
  const execution = ledger.executions.getExecutionByIntent(intent.intentId)
  if (!execution) throw new Error(`no execution for ${intent.intentId}`)
  expect(execution.state, execution.reason).toBe('confirmed')

  const settlements = await settlementsOf(chain, address)
  expect(settlements).toHaveLength(1)
  const settlement = settlements[0]
  if (!settlement) throw new Error('no settlement')
  expect(settlement.quoteId).toBe(execution.quoteId)

  const fills = ledger.fills.listFills({ executionId: execution.id })
  expect(fills).toHaveLength(1)
  expect(fills[0]).toMatchObject({
    chainId: chain.chainId,
    txHash: settlement.txHash,
    logIndex: settlement.logIndex,
    quoteId: settlement.quoteId,
  })
  // No fill of this wallet anywhere else in the ledger either.
  expect(ledger.fills.listFills()).toHaveLength(1)

  // Every transaction of the execution is mined, and the wallet's nonces are exactly those.
  const transactions = ledger.transactions.listTransactionsForExecution(execution.id)
  expect(transactions.map((tx) => tx.status)).toEqual(transactions.map(() => 'mined'))
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const onChainNonce = await publicClient.getTransactionCount({ address, blockTag: 'latest' })
  expect(onChainNonce).toBe(transactions.length)
  expect(transactions.map((tx) => tx.nonce).sort((a, b) => a - b)).toEqual(transactions.map((_, i) => i))
  const executes = transactions.filter((tx) => tx.kind === 'execute')
  expect(executes).toHaveLength(1)
  expect(executes[0]?.hash).toBe(settlement.txHash)

  for (const position of await positionsAgainstChain(ledger, address))
    expect(position.ledger, `${position.ticker} on ${position.chainId}`).toBe(position.onChain)
  return { execution, transactions, settlement }
}

/** What each crash leaves before the restart. */
const diedWith = {
  // Approval and execute stored in one commit, neither sent.
  signed: {
    state: 'submitted',
    transactions: [
      ['approve', 'signed'],
      ['execute', 'signed'],
    ],
    fills: 0,
    pendingNonce: 0,
    settlements: 0,
  },
  // The node has the execute (mined or about to be: not asserted), the ledger still says signed;
  // broadcasts are marked with a later commit, so the approval may say signed too (or mined, if the
  // block watcher was quicker).
  broadcast: {
    state: 'submitted',
    transactions: [
      ['approve', expect.stringMatching(/^(signed|broadcast|mined)$/)],
      ['execute', 'signed'],
    ],
    fills: 0,
    pendingNonce: 2,
  },
  // Settled on chain, nothing of the execute's receipt in the ledger; the broadcasts are marked
  // with the receipts' commit (or within 200 ms), so the ledger may still say signed; the approval
  // may have been recorded mined already, when the watcher saw its block first.
  receipt: {
    state: 'submitted',
    transactions: [
      ['approve', expect.stringMatching(/^(signed|broadcast|mined)$/)],
      ['execute', expect.stringMatching(/^(signed|broadcast)$/)],
    ],
    fills: 0,
    pendingNonce: 2,
    settlements: 1,
  },
} as const

describe('engine crash recovery (child process killed with SIGKILL)', () => {
  const executeSteps = ['signed', 'broadcast', 'receipt'] as const
  const cases = executeSteps.flatMap((step) => chains.map(([label, pick]) => [step, label, pick] as const))

  it.each(cases)(
    'killed right after the execute step %s (%s): recovery ends with one execution and one fill',
    async (step, _label, pickChain) => {
      const chain = pickChain()
      const state = await crashAndRecover(chain, { step, kind: 'execute' })
      try {
        // The moment was the one named: the ledger had not caught up with the node.
        expect(state.before).toMatchObject(diedWith[step])
        const { execution, transactions } = await expectOneExecution(chain, state)
        // The execute the child signed is the one on chain: nothing was signed again.
        expect(transactions.map((tx) => tx.kind)).toEqual(['approve', 'execute'])
        expect(transactions[1]?.hash).toBe(state.crashed?.hash)
        expect(state.report.executions).toEqual([
          {
            executionId: execution.id,
            intentId: state.intent.intentId,
            chainId: chain.chainId,
            from: 'submitted',
            to: 'confirmed',
            reason: execution.reason,
          },
        ])
        // The wallet's recovery commits the execute's receipt with its fill, so the settlement-log scan
        // that follows finds nothing new.
        expect(state.report.fillsRecorded).toBe(0)
        expect(state.report.unattributedFills).toBe(0)
        const events = state.ledger.executions.listExecutionEvents(execution.id).map((event) => event.to)
        expect(events).toEqual(['intent', 'quoting', 'quoted', 'submitted', 'confirmed'])
        console.info(
          `crash after execute ${step} on ${chain.chainId}: child ran ${state.crashedAfterMs} ms, recovery ${state.recoveredInMs} ms`,
        )
      } finally {
        await state.close()
      }
    },
    60_000,
  )

  it.each(chains)(
    'killed right after the approval is signed (%s): recovery sends it and the execute signed with it, never re-quotes',
    async (_label, pickChain) => {
      const chain = pickChain()
      const state = await crashAndRecover(chain, { step: 'signed', kind: 'approve' })
      try {
        // The approval and the execute were stored in one commit: the kill finds both.
        expect(state.before).toEqual(diedWith.signed)
        const { execution, transactions } = await expectOneExecution(chain, state)
        // Both went out as signed (same hashes, consecutive nonces), never re-signed.
        expect(transactions.map((tx) => [tx.kind, tx.nonce])).toEqual([
          ['approve', 0],
          ['execute', 1],
        ])
        expect(transactions[0]?.hash).toBe(state.crashed?.hash)
        expect(state.report.executions).toEqual([
          {
            executionId: execution.id,
            intentId: state.intent.intentId,
            chainId: chain.chainId,
            from: 'submitted',
            to: 'confirmed',
            reason: execution.reason,
          },
        ])
        console.info(
          `crash after approve signed on ${chain.chainId}: child ran ${state.crashedAfterMs} ms, recovery ${state.recoveredInMs} ms`,
        )
      } finally {
        await state.close()
      }
    },
    60_000,
  )
})
