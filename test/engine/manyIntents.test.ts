import { getTransactionCount } from 'viem/actions'
import { expect, it } from 'vitest'
import type { SwapIntent } from '../../src/engine/index.js'
import {
  createTestEngine,
  engineLedgers,
  positionsAgainstChain,
  readStoredQuoteForTest,
  testEngineSettings,
} from '../helpers/engine.js'
import { clientsFor, localChains } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// 50 intents on both chains at once: every one ends terminal, each chain's nonces run 0..n-1 with
// no hole and no duplicate, and no execute was submitted for a quote with less validity left than
// the margin (let alone an expired one).

const service = useSandboxService()
const ledgers = engineLedgers()

it('executes 50 intents on two chains at once', { timeout: 120_000 }, async () => {
  const chains = localChains()
  const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '20000' } })
  try {
    const kinds: Omit<SwapIntent, 'intentId' | 'chainId'>[] = [
      { ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '300' },
      { ticker: 'AAPLs', exchange: 0, side: 'buy', amountIn: '25' },
      { ticker: '005930', exchange: 3, side: 'buy', amountIn: '1', amountType: 'stocktoken' },
    ]
    const intents = Array.from({ length: 50 }, (_, index): SwapIntent => {
      const chain = chains[index % chains.length]
      const kind = kinds[index % kinds.length]
      if (!chain || !kind) throw new Error('unreachable')
      return { ...kind, intentId: `many-${index}`, chainId: chain.chainId }
    })
    const startedAt = Date.now()
    const outcomes = await Promise.all(intents.map((intent) => test.engine.execute(intent)))
    const elapsedMs = Date.now() - startedAt
    console.info(`50 intents on ${chains.length} chains: ${elapsedMs} ms`)

    for (const outcome of outcomes)
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
    expect(test.ledger.executions.listUnfinishedExecutions()).toEqual([])

    for (const chain of chains) {
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const onChain = await getTransactionCount(publicClient, { address: test.account.address })
      const mined = outcomes
        .flatMap((outcome) => outcome.transactions)
        .filter((tx) => tx.chainId === chain.chainId)
      expect(mined.every((tx) => tx.status === 'mined')).toBe(true)
      expect(mined.map((tx) => tx.nonce).sort((a, b) => a - b)).toEqual(
        Array.from({ length: onChain }, (_, i) => i),
      )
    }

    for (const outcome of outcomes) {
      const quote = readStoredQuoteForTest(outcome.execution)
      const submitted = test.ledger.executions
        .listExecutionEvents(outcome.execution.id)
        .find((event) => event.to === 'submitted')
      if (!submitted) throw new Error(`execution ${outcome.execution.id} was never submitted`)
      expect(submitted.quoteId).toBe(quote.quoteId)
      const margin = testEngineSettings.validityMarginMs ?? 0
      expect(quote.expiresAt * 1000 - submitted.atMs).toBeGreaterThanOrEqual(margin)
    }
    for (const position of await positionsAgainstChain(test.ledger, test.account.address))
      expect(position.ledger).toBe(position.onChain)
  } finally {
    await test.close()
  }
})

it('runs an intent submitted twice at once (one turn, one group commit) as one execution', async () => {
  const [chain] = localChains()
  if (!chain) throw new Error('no local chain')
  const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '2000' } })
  try {
    const intent: SwapIntent = {
      intentId: 'twice-at-once',
      chainId: chain.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '300',
    }
    const [first, second] = await Promise.all([test.engine.submit(intent), test.engine.submit(intent)])
    expect(first?.created).toBe(true)
    expect(second).toMatchObject({ created: false, executionId: first?.executionId })
    const [done, followed] = await Promise.all([first?.done, second?.done])
    expect(done?.execution.state, done?.execution.reason).toBe('confirmed')
    expect(followed?.execution).toEqual(done?.execution)
    expect(test.ledger.database.prepare('SELECT count(*) AS n FROM executions').get()).toEqual({ n: 1 })
  } finally {
    await test.close()
  }
})
