import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Notional } from '../../src/store/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Risk limits on the asset side, in 18-decimal notional so that the 6- and 18-decimal chains add up:
// per trade, per UTC day on all chains, per UTC day on one chain. A refused trade signs nothing.

const service = useSandboxService()
const ledgers = engineLedgers()
const notional = (text: string) => parseUnits(text, 18) as Notional
const buy = (chainId: number, intentId: string, amountIn = '1000') =>
  ({ intentId, chainId, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn }) as const

describe('risk limits', () => {
  it('refuses a trade above maxTradeNotional', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { risk: { maxTradeNotional: notional('500') } },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'too-big'))
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(
        /^risk limit: the trade's notional \d{3}(\.\d{1,6})? USDC exceeds maxTradeNotional 500 USDC$/,
      )
      expect(outcome.transactions).toEqual([])
      const small = await test.engine.execute(buy(chain.chainId, 'small', '400'))
      expect(small.execution.state, small.execution.reason).toBe('confirmed')
    } finally {
      await test.close()
    }
  })

  it('counts both chains (6 and 18 decimals) against maxDailyNotional, and one chain against maxChainDailyNotional', async () => {
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { risk: { maxDailyNotional: notional('2500'), maxChainDailyNotional: notional('1500') } },
    })
    try {
      const alpha = chainWithRouter().chainId
      const beta = chainWithoutRouter().chainId
      expect((await test.engine.execute(buy(alpha, 'a1'))).execution.state).toBe('confirmed')
      const secondOnAlpha = await test.engine.execute(buy(alpha, 'a2'))
      expect(secondOnAlpha.execution.state).toBe('rejected')
      expect(secondOnAlpha.execution.reason).toMatch(
        new RegExp(
          `^risk limit: today's notional on chain ${alpha} would reach \\d+(\\.\\d{1,6})? USDC \\(\\d+(\\.\\d{1,6})? USDC traded or in flight\\), above maxChainDailyNotional 1500 USDC$`,
        ),
      )
      expect((await test.engine.execute(buy(beta, 'b1'))).execution.state).toBe('confirmed')
      const third = await test.engine.execute(buy(beta, 'b2'))
      expect(third.execution.state).toBe('rejected')
      expect(third.execution.reason).toMatch(
        /^risk limit: today's notional on all chains would reach \d+(\.\d{1,6})? USD \(\d+(\.\d{1,6})? USD traded or in flight\), above maxDailyNotional 2500 USD$/,
      )
    } finally {
      await test.close()
    }
  })

  it('counts executions in flight, so concurrent trades cannot overshoot together', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '10000' },
      settings: { risk: { maxDailyNotional: notional('2500') } },
    })
    try {
      const outcomes = await Promise.all(
        ['c1', 'c2', 'c3', 'c4'].map((id, index) =>
          test.engine.execute(buy(index % 2 ? chain.chainId : chainWithoutRouter().chainId, id)),
        ),
      )
      const states = outcomes.map((outcome) => outcome.execution.state).sort()
      expect(states).toEqual(['confirmed', 'confirmed', 'rejected', 'rejected'])
    } finally {
      await test.close()
    }
  })
})
