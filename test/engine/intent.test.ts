import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { checkIntent, EngineError, type Instrument, swapIntentSchema } from '../../src/engine/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// An intent is checked before anything is recorded or asked of the service for a quote: bad input
// is an EngineError saying what to change, and an intent id is executed at most once.

const hk: Instrument = {
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  market: 'hkex',
  tokenAddress: '0x1000000000000000000000000000000000000001',
  tokenKind: 'stock',
  lotSize: 100n,
  spreadTableCode: '1',
  marketSymbol: '0700',
}
const intent = {
  intentId: 'i',
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  side: 'sell',
  amountIn: '200',
} as const

function invalid(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof EngineError && error.code === 'INVALID_INTENT') return error.shortMessage
    throw error
  }
  throw new Error('expected INVALID_INTENT')
}

describe('checkIntent', () => {
  it('settles the amount type and parses the amount in its unit', () => {
    expect(checkIntent(intent, hk, 6)).toMatchObject({ amountType: 'stocktoken', amountInBaseUnits: 200n })
    expect(checkIntent({ ...intent, side: 'buy', amountIn: '15000.5' }, hk, 6)).toMatchObject({
      amountType: 'stablecoin',
      amountInBaseUnits: 15_000_500_000n,
    })
  })

  it('refuses HK quantities off the lot, limits off the tick, KR ShareTokens, stablecoin sells', () => {
    expect(invalid(() => checkIntent({ ...intent, amountIn: '150' }, hk, 6))).toBe(
      'Intent "i": Quantity 150 is not a multiple of the lot size 100: use 100 or 200 shares.',
    )
    expect(invalid(() => checkIntent({ ...intent, limitPrice: parsePrice('418.7') }, hk, 6))).toMatch(
      /^Intent "i": Price 418.7 HKD is not on the tick grid: .* Use 418.6 or 418.8.$/,
    )
    expect(invalid(() => checkIntent({ ...intent, amountType: 'stablecoin' }, hk, 6))).toMatch(
      /applies to buys only/,
    )
    const krShare = {
      ...hk,
      exchange: 3 as const,
      market: 'krex' as const,
      tokenKind: 'share' as const,
      ticker: '005930s',
    }
    expect(
      invalid(() => checkIntent({ ...intent, ticker: '005930s', exchange: 3, amountIn: '0.5' }, krShare, 6)),
    ).toMatch(/South Korea stocks trade in whole shares only/)
    expect(invalid(() => checkIntent({ ...intent, side: 'buy', amountIn: '1.1234567' }, hk, 6))).toMatch(
      /decimal/,
    )
  })

  it('validates JSON intents with a schema that names the field', () => {
    const parsed = swapIntentSchema.safeParse({ ...intent, amountIn: '1e3', limitPrice: '418.6' })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.path).toEqual(['amountIn'])
    expect(swapIntentSchema.parse({ ...intent, limitPrice: '418.6' }).limitPrice).toBe(parsePrice('418.6'))
  })
})

describe('engine.submit', () => {
  const service = useSandboxService()
  const ledgers = engineLedgers()

  it('refuses a bad intent before recording anything, and an unknown chain', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path() })
    try {
      await expect(
        test.engine.execute({
          intentId: 'odd-lot',
          chainId: chain.chainId,
          ticker: '0700',
          exchange: 1,
          side: 'sell',
          amountIn: '150',
        }),
      ).rejects.toThrow(/not a multiple of the lot size 100/)
      expect(test.ledger.executions.getExecutionByIntent('odd-lot')).toBeUndefined()
      await expect(
        test.engine.execute({
          intentId: 'nowhere',
          chainId: 999,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '1',
        }),
      ).rejects.toMatchObject({
        code: 'UNKNOWN_CHAIN',
        shortMessage: expect.stringMatching(
          /^Chain 999 is not configured: configured chains are \d+, \d+\.$/,
        ),
        remedy: expect.stringMatching(/^trade on one of the configured chains/),
      })
      await expect(
        test.engine.execute({
          intentId: 'unknown',
          chainId: chain.chainId,
          ticker: 'NOPE',
          exchange: 0,
          side: 'buy',
          amountIn: '1',
        }),
      ).rejects.toThrow(/Not found/)
    } finally {
      await test.close()
    }
  })

  it('executes an intent id at most once', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '2000' } })
    try {
      const buy = {
        intentId: 'once',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '500',
      } as const
      const [first, second] = await Promise.all([test.engine.execute(buy), test.engine.execute(buy)])
      expect(first.execution.id).toBe(second?.execution.id)
      const again = await test.engine.execute(buy)
      expect(again.execution.id).toBe(first.execution.id)
      expect(again.fills).toHaveLength(1)
      expect(again.transactions.filter((tx) => tx.kind === 'execute')).toHaveLength(1)
    } finally {
      await test.close()
    }
  })
})
