import { decodeFunctionData, type Hex, parseTransaction } from 'viem'
import { getTransactionCount } from 'viem/actions'
import { describe, expect, it } from 'vitest'
import { executorAbi } from '../../src/chain/executorAbi.js'
import type { SwapIntent } from '../../src/engine/index.js'
import { openLedger, type TransactionRecord } from '../../src/store/index.js'
import { admissionProbe, createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The pipeline's promises: executions prepared concurrently still sign in one nonce order with
// each approval right before its execute; the kill switch is read again between stage one and the
// signatures; a quote that aged while stage one ran is never signed.

const service = useSandboxService()
const ledgers = engineLedgers()

const buy = (chainId: number, intentId: string): SwapIntent => ({
  intentId,
  chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '300',
})

/** The quote id an execute transaction carries. */
function quoteIdOf(tx: Pick<TransactionRecord, 'raw'>): Hex | undefined {
  const { data } = parseTransaction(tx.raw)
  if (!data) return undefined
  const call = decodeFunctionData({ abi: executorAbi, data })
  return (call.args?.[0] as { quoteId: Hex } | undefined)?.quoteId
}

describe('pipeline', () => {
  it('signs concurrent executions in one nonce order, each approval right before its execute, sent bundle after bundle', async () => {
    const chain = chainWithRouter()
    const broadcastNonces: number[] = []
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '20000' },
      // No engine-wide admission limit: six executions per wallet prepared at once.
      settings: { pipelineDepth: 6, maxQuotesInFlight: undefined },
      hooks: { onStep: (step) => step.step === 'broadcast' && broadcastNonces.push(step.nonce) },
    })
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 24 }, (_, i) => test.engine.execute(buy(chain.chainId, `order-${i}`))),
      )
      for (const outcome of outcomes)
        expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      const all = outcomes.flatMap((outcome) => outcome.transactions)
      // One nonce sequence, no hole, no duplicate, all on chain.
      expect(all.map((tx) => tx.nonce).sort((a, b) => a - b)).toEqual(all.map((_, i) => i))
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      expect(await getTransactionCount(publicClient, { address: test.account.address })).toBe(all.length)
      for (const outcome of outcomes) {
        const kinds = outcome.transactions.map((tx) => [
          tx.kind,
          tx.nonce - (outcome.transactions[0]?.nonce ?? 0),
        ])
        // Exact approvals: every buy approves; approval and execute are consecutive nonces.
        expect(kinds).toEqual([
          ['approve', 0],
          ['execute', 1],
        ])
      }
      // Handed to the node bundle after bundle in nonce order (an approval and its execute are sent
      // at once, so within a bundle the node may answer the execute first).
      const bundles = broadcastNonces.map((nonce) => Math.floor(nonce / 2))
      expect(bundles).toEqual([...bundles].sort((a, b) => a - b))
      expect(broadcastNonces).toHaveLength(all.length)
    } finally {
      await test.close()
    }
  })

  it("spreads executions submitted together over the chain's wallets, each with its own nonce sequence", async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '20000' },
      extraWallets: 1,
      settings: { pipelineDepth: 2 },
    })
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => test.engine.execute(buy(chain.chainId, `spread-${i}`))),
      )
      for (const outcome of outcomes)
        expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      const wallets = [test.account.address, ...test.extraAccounts.map((account) => account.address)]
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      for (const address of wallets) {
        const sent = outcomes.flatMap((outcome) => outcome.transactions).filter((tx) => tx.from === address)
        // Both wallets traded; each one's nonces run 0..n-1, as its chain count says.
        expect(sent.length).toBeGreaterThan(0)
        expect(sent.map((tx) => tx.nonce).sort((a, b) => a - b)).toEqual(sent.map((_, i) => i))
        expect(await getTransactionCount(publicClient, { address })).toBe(sent.length)
        // Every execution signs from one wallet only.
      }
      for (const outcome of outcomes) expect(new Set(outcome.transactions.map((tx) => tx.from)).size).toBe(1)
      // The fills are the bot's: one per execution, attributed whichever wallet sent it.
      expect(outcomes.map((outcome) => outcome.fills.length)).toEqual(outcomes.map(() => 1))
    } finally {
      await test.close()
    }
  })

  it('honours the kill switch set between stage one and the signatures: nothing signed, nonce untouched', async () => {
    const chain = chainWithRouter()
    const path = ledgers.path()
    let halt = () => {}
    const prepared: number[] = []
    const test = await createTestEngine(service(), {
      ledgerPath: path,
      funding: { asset: '5000' },
      hooks: {
        onStage: (event) => {
          if (event.stage !== 'prepared') return
          prepared.push(event.executionId)
          halt()
        },
      },
    })
    const operator = openLedger({ path, owner: false })
    halt = () => operator.risk.halt('operator: halt between the stages')
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 3 }, (_, i) => test.engine.execute(buy(chain.chainId, `halt-${i}`))),
      )
      // Each execution reached the end of stage one; none signed anything.
      expect(prepared.length).toBeGreaterThanOrEqual(1)
      for (const outcome of outcomes) {
        expect(outcome.execution.state).toBe('rejected')
        expect(outcome.execution.reason).toMatch(
          /^kill switch: trading is halted \(operator: halt between the stages\); nothing was signed/,
        )
        expect(outcome.transactions).toEqual([])
      }
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      expect(await getTransactionCount(publicClient, { address: test.account.address })).toBe(0)
      expect(test.ledger.nonces.peekNextNonce(chain.chainId, test.account.address)).toBeUndefined()
    } finally {
      halt = () => {}
      operator.close()
      test.ledger.risk.resume('test over')
      await test.close()
    }
  })

  it('lets at most maxQuotesInFlight executions between asking for a quote and handing the execute over', async () => {
    const chain = chainWithRouter()
    const probe = admissionProbe()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { pipelineDepth: 4, maxQuotesInFlight: 2 },
      hooks: probe.hooks,
    })
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => test.engine.execute(buy(chain.chainId, `admitted-${i}`))),
      )
      for (const outcome of outcomes)
        expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      // The wallet's pipeline would take four at once; the engine lets two ask for quotes.
      expect(probe.most()).toBe(2)
      expect(probe.inside()).toBe(0)
    } finally {
      await test.close()
    }
  })

  it('never signs a quote that aged out during stage one: it re-quotes, and signs only the fresh quote', async () => {
    const chain = chainWithRouter()
    let offsetMs = 0
    const aged: string[] = []
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      now: () => Date.now() + offsetMs,
      hooks: {
        onStage: (event) => {
          // Each quote is asked for at the real time.
          if (event.stage === 'quoteRequested') offsetMs = 0
          if (event.stage !== 'prepared') return
          // The first quote's stage one "took" 9.5 s: less validity is left than the minimum.
          if (aged.length > 0) return
          aged.push(event.quoteId)
          offsetMs = 9_500
        },
      },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'aged'))
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      const events = test.ledger.executions.listExecutionEvents(outcome.execution.id)
      expect(events.map((event) => event.to)).toEqual([
        'intent',
        'quoting',
        'quoted',
        'quoting',
        'quoted',
        'submitted',
        'confirmed',
      ])
      expect(events[3]?.reason).toMatch(
        new RegExp(
          `^quote ${aged[0]} dropped: \\d+ ms of validity left before signing the execute, \\d+ ms required; re-quoting, attempt 2 of \\d+$`,
        ),
      )
      const executes = outcome.transactions.filter((tx) => tx.kind === 'execute')
      expect(executes).toHaveLength(1)
      expect(executes.map(quoteIdOf)).not.toContain(aged[0])
      expect(quoteIdOf(executes[0] as TransactionRecord)).toBe(outcome.execution.quoteId)
      // Nothing was signed for the aged quote: the fresh one's approval and execute are nonces 0 and 1.
      expect(outcome.transactions.map((tx) => [tx.kind, tx.nonce])).toEqual([
        ['approve', 0],
        ['execute', 1],
      ])
    } finally {
      await test.close()
    }
  })

  it('expires, with nothing signed, when every quote ages out during stage one', async () => {
    const chain = chainWithRouter()
    let offsetMs = 0
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { maxQuoteAttempts: 2 },
      now: () => Date.now() + offsetMs,
      hooks: {
        onStage: (event) => {
          if (event.stage === 'quoteRequested') offsetMs = 0
          if (event.stage === 'prepared') offsetMs = 9_500
        },
      },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'all-aged'))
      expect(outcome.execution.state).toBe('expired')
      expect(outcome.execution.reason).toMatch(
        /^no quote with enough validity after 2 attempts: \d+ ms of validity left before signing the execute/,
      )
      expect(outcome.transactions).toEqual([])
      expect(test.ledger.nonces.peekNextNonce(chain.chainId, test.account.address)).toBeUndefined()
    } finally {
      await test.close()
    }
  })
})
