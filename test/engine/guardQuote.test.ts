import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { getTransactionCount } from 'viem/actions'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { apiCall, useSandboxService } from '../helpers/sandboxService.js'

// One test per guard rule, with the sandbox made to misbehave on purpose through its test-only
// fault switch. In every case the execution ends with the rule in its reason, and nothing was
// signed: no transaction in the ledger, no nonce reserved, the wallet's nonce on chain still 0.

const service = useSandboxService({ faults: true })
const ledgers = engineLedgers()

async function armFault(fault: string | null) {
  const reply = await apiCall(service(), '/sandbox/v1/faults', { body: { fault } })
  expect(reply.status).toBe(200)
}
afterEach(() => armFault(null))

async function executeUnderFault(chain: LocalChain, fault: string, settings = {}) {
  const test = await createTestEngine(service(), {
    ledgerPath: ledgers.path(),
    funding: { asset: '5000' },
    settings,
  })
  try {
    await armFault(fault)
    const outcome = await test.engine.execute({
      intentId: `guard-${fault}`,
      chainId: chain.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
    })
    const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    const nonceOnChain = await getTransactionCount(publicClient, { address: test.account.address })
    return {
      outcome,
      nonceOnChain,
      reservedNonce: test.ledger.nonces.peekNextNonce(chain.chainId, test.account.address),
      events: test.ledger.executions.listExecutionEvents(outcome.execution.id),
    }
  } finally {
    await test.close()
  }
}

function expectNothingSigned(result: Awaited<ReturnType<typeof executeUnderFault>>) {
  expect(result.outcome.transactions).toEqual([])
  expect(result.reservedNonce).toBeUndefined()
  expect(result.nonceOnChain).toBe(0)
  expect(result.outcome.fills).toEqual([])
}

describe.each([
  ['router', chainWithRouter],
  ['settlement', chainWithoutRouter],
] as const)('guard on the %s chain', (_label, pickChain) => {
  it('rejects a quote signed by another key (rule signer)', async () => {
    const result = await executeUnderFault(pickChain(), 'wrong-signer')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(
      /^guard signer: the signature recovers to 0x[0-9a-fA-F]{40}, not the pinned operator/,
    )
    expectNothingSigned(result)
  })

  it('rejects a quote whose amount was changed after signing (rule signer)', async () => {
    const result = await executeUnderFault(pickChain(), 'tampered-amount')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(/^guard signer: .*altered after signing/)
    expectNothingSigned(result)
  })

  it("rejects a validly signed quote expiring hours ahead, beyond the reference's 10 s (rule horizon)", async () => {
    const result = await executeUnderFault(pickChain(), 'far-expiry')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(
      /^guard horizon: the quote expires at .*a router quote is valid for 10 s/,
    )
    expectNothingSigned(result)
  })

  it('rejects a validly signed quote for another amount than asked (rule request)', async () => {
    const result = await executeUnderFault(pickChain(), 'wrong-amount')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(
      /^guard request: the quote's amount_in is \d+, but the request asked for \d+ \(1000 in natural units\)/,
    )
    expectNothingSigned(result)
  })

  it('rejects a validly signed quote for another token (rule request)', async () => {
    const result = await executeUnderFault(pickChain(), 'wrong-token')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(
      /^guard request: the quote's stock_token is 0x[0-9a-fA-F]{40}, but the request asked for 0x[0-9a-fA-F]{40} \(AAPL on chain/,
    )
    expectNothingSigned(result)
  })

  it('rejects a quote whose approval names another spender (rule spender)', async () => {
    const chain = pickChain()
    const result = await executeUnderFault(chain, 'wrong-spender')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toContain(
      `guard spender: approval 0 names spender ${chain.payerAddress}, which is not allow-listed`,
    )
    expectNothingSigned(result)
  })

  it('rejects a quote signed in another domain (rule signer: it recovers to a stranger)', async () => {
    const result = await executeUnderFault(pickChain(), 'wrong-domain')
    expect(result.outcome.execution.state).toBe('rejected')
    expect(result.outcome.execution.reason).toMatch(/^guard (signer|domain): /)
    expectNothingSigned(result)
  })

  it('drops expired quotes, re-quotes a bounded number of times, then ends expired (rule expired)', async () => {
    const result = await executeUnderFault(pickChain(), 'expired', { maxQuoteAttempts: 3 })
    expect(result.outcome.execution.state).toBe('expired')
    expect(result.outcome.execution.reason).toMatch(
      /^no quote with enough validity after 3 attempts: the quote expired at /,
    )
    // Three quotes, each attached, dropped and logged.
    expect(result.events.map((event) => event.to)).toEqual([
      'intent',
      'quoting',
      'quoted',
      'quoting',
      'quoted',
      'quoting',
      'quoted',
      'expired',
    ])
    expect(result.events.filter((event) => event.reason.includes('dropped'))).toHaveLength(2)
    expectNothingSigned(result)
  })

  it('drops quotes with too little validity left, then ends expired (rule validity)', async () => {
    const result = await executeUnderFault(pickChain(), 'short-validity', { maxQuoteAttempts: 2 })
    expect(result.outcome.execution.state).toBe('expired')
    expect(result.outcome.execution.reason).toMatch(
      /less than the \d+ ms required \(the chain's inclusion time plus the margin\)/,
    )
    expectNothingSigned(result)
  })

  it('re-quotes after one short-lived quote and then executes', async () => {
    const chain = pickChain()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '5000' } })
    try {
      const reply = await apiCall(service(), '/sandbox/v1/faults', {
        body: { fault: 'short-validity', count: 1 },
      })
      expect(reply.status).toBe(200)
      const outcome = await test.engine.execute({
        intentId: 'requote',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
      })
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      const quotes = test.ledger.executions
        .listExecutionEvents(outcome.execution.id)
        .filter((event) => event.to === 'quoted')
      expect(quotes).toHaveLength(2)
      expect(quotes[0]?.quoteId).not.toBe(quotes[1]?.quoteId)
      expect(outcome.fills[0]?.quoteId).toBe(quotes[1]?.quoteId)
    } finally {
      await test.close()
    }
  })
})

describe('guard prices', () => {
  it('rejects a quote above the intent limit (rule limit-price)', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '5000' } })
    try {
      const outcome = await test.engine.execute({
        intentId: 'limit',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
        limitPrice: parsePrice('1'), // 1.00 USD a share: far below the market
      })
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(
        /^guard limit-price: the quote pays \d+(\.\d{1,6})? USDC per share \(fee included\), above the limit of 1 USDC \(1 USD\)$/,
      )
      expect(outcome.transactions).toEqual([])
    } finally {
      await test.close()
    }
  })

  it('rejects a quote too far from the market price (rule price-deviation)', async () => {
    const chain = chainWithoutRouter()
    // A configured HKD rate 20% above the service's: the quote now looks 20% off the market.
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '20000' },
      settings: {
        fxRates: { usex: 100_000_000n, hkex: 15_420_000n, krex: 72_000n } as never,
        maxPriceDeviationBps: 300,
      },
    })
    try {
      const outcome = await test.engine.execute({
        intentId: 'deviation',
        chainId: chain.chainId,
        ticker: '0700',
        exchange: 1,
        side: 'buy',
        amountIn: '15000',
      })
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(
        new RegExp(
          `^guard price-deviation: the quote's effective price \\d+(\\.\\d{1,6})? ${chain.defaultAsset.symbol} per share is \\d+ bps from the market price \\d+(\\.\\d{1,6})? ${chain.defaultAsset.symbol} \\(\\d+(\\.\\d+)? HKD\\), more than the 300 bps allowed$`,
        ),
      )
      expect(outcome.transactions).toEqual([])
    } finally {
      await test.close()
    }
  })
})
