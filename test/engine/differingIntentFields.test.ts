import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { assertSameTrade, IntentIdReusedError } from '../../src/cli/intentReuse.js'
import { differingFields } from '../../src/daemon/controlApi/routes/differingFields.js'
import { differingIntentFields } from '../../src/engine/differingIntentFields.js'
import type { ExecutionRecord } from '../../src/store/index.js'

// One comparison decides whether an intent id (CLI) or an Idempotency-Key (control API) is reused
// for another trade.

const recorded = {
  id: 7,
  chainId: 31337,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '1000',
  amountType: 'stablecoin',
  limitPrice: null,
  state: 'confirmed',
} as unknown as ExecutionRecord
const trade = { chainId: 31337, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' } as const

describe('differingIntentFields', () => {
  it('the same trade (a buy defaults to stablecoin) differs in nothing: a replay', () => {
    expect(differingIntentFields(trade, recorded)).toEqual([])
    expect(() => assertSameTrade('x', trade, recorded)).not.toThrow()
  })

  it('names every field that differs, the same for the CLI and the control API', () => {
    const other = { ...trade, amountIn: '2000', limitPrice: parsePrice('230') }
    const expected = [
      { field: 'amountIn', problem: 'was "1000", now "2000"' },
      { field: 'limitPrice', problem: 'was none, now "230"' },
    ]
    expect(differingIntentFields(other, recorded)).toEqual(expected)
    expect(differingFields(other, recorded)).toEqual(expected)
    let thrown: unknown
    try {
      assertSameTrade('buy-1', other, recorded)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(IntentIdReusedError)
    expect(thrown).toMatchObject({ code: 'INTENT_ID_REUSED' })
    expect((thrown as IntentIdReusedError).shortMessage).toMatch(
      /^intent id "buy-1" was already used for execution 7 \(confirmed\) with other values of amountIn \(was "1000", now "2000"\), limitPrice \(was none, now "230"\); nothing was executed/,
    )
    expect((thrown as IntentIdReusedError).remedy).toMatch(/^use a new --intent-id for a new trade/)
  })
})
