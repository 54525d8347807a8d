import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { describe, expect, it } from 'vitest'
import {
  createProtectStrategy,
  createStrategy,
  type PositionView,
  type ProtectStrategy,
  StrategyConfigError,
  type StrategyDecision,
  type StrategyMemory,
} from '../../src/strategy/index.js'
import { marketPrice, snapshot } from './snapshot.js'

// The trigger rules of `protect`, on fixed snapshots: a pure function of prices, positions (with
// their average cost and epoch) and what it remembered, returning plain sell intents and the memory
// the daemon keeps in the ledger.

const nowMs = Date.parse('2026-01-05T15:00:00Z')
const epoch = 7

/** A long AAPL position of `balance` shares bought at `cost` USDC (6 decimals) a share. */
function aapl(balance: bigint, cost = '200', extra: Partial<PositionView> = {}): PositionView {
  return {
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    tokenKind: 'stock',
    balance,
    lotSize: 1n,
    averageCost: toAssetAmount(BigInt(Math.round(Number(cost) * 1e6))),
    assetDecimals: 6,
    openedSeq: epoch,
    ...extra,
  }
}

const guard = { id: 'guard', chainId: 31337, ticker: 'AAPL', exchange: 0 } as const

function decide(
  strategy: ProtectStrategy,
  price: string | undefined,
  position: PositionView | undefined,
  memory?: StrategyMemory,
  options: { stale?: boolean; atMs?: number } = {},
): StrategyDecision {
  const prices = price === undefined ? [] : [marketPrice('usex', 'AAPL', price, { atMs: nowMs, ...options })]
  return strategy.decide({
    ...snapshot({ nowMs: options.atMs ?? nowMs, prices, positions: position ? [position] : [] }),
    ...(memory === undefined ? {} : { memory }),
  })
}

const sell = (trigger: string, amountIn: string, at = epoch) => ({
  intentId: `protect:guard:${trigger}:${at}`,
  chainId: 31337,
  ticker: 'AAPL',
  exchange: 0,
  side: 'sell',
  amountIn,
  amountType: 'stocktoken',
})

function configError(run: () => unknown): StrategyConfigError {
  try {
    run()
  } catch (error) {
    if (error instanceof StrategyConfigError) return error
    throw error
  }
  throw new Error('expected a StrategyConfigError, nothing was thrown')
}

describe('createProtectStrategy', () => {
  it('stop-loss percent: sells the whole position at or under the average cost minus the percentage', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8' })
    // 200 - 8% = 184: at 184.01 nothing, at 184 (and under) the whole position.
    expect(decide(strategy, '184.01', aapl(10n)).intents).toEqual([])
    expect(decide(strategy, '184', aapl(10n)).intents).toEqual([sell('stop-loss', '10')])
    const { intents, memory } = decide(strategy, '150', aapl(10n))
    expect(intents).toEqual([sell('stop-loss', '10')])
    expect(memory.protective).toEqual([
      {
        chainId: 31337,
        ticker: 'AAPL',
        epoch,
        highWater: { price: parsePrice('150'), atMs: nowMs },
        exits: [
          {
            trigger: 'stop-loss',
            intentId: 'protect:guard:stop-loss:7',
            price: parsePrice('150'),
            quantity: 10n,
            balance: 10n,
            atMs: nowMs,
          },
        ],
      },
    ])
  })

  it('take-profit price with a fraction: sells that part of the position, whole shares, at or over the price', () => {
    const strategy = createProtectStrategy({ ...guard, takeProfitPrice: '250', fraction: '0.5' })
    expect(decide(strategy, '249.99', aapl(7n)).intents).toEqual([])
    // Half of 7 shares is 3.5: 3 whole shares.
    expect(decide(strategy, '250', aapl(7n)).intents).toEqual([sell('take-profit', '3')])
  })

  it('take-profit percent of an HK StockToken: compares in the asset at the FX rate, sells whole lots', () => {
    const strategy = createProtectStrategy({
      id: 'guard-0700',
      chainId: 31337,
      ticker: '0700',
      exchange: 1,
      takeProfitPct: '10',
      fraction: '0.5',
    })
    // Bought at 400 HKD = 51.4 USDT a share (0.1285): +10% is 440 HKD.
    const position: PositionView = {
      chainId: 31337,
      ticker: '0700',
      exchange: 1,
      tokenKind: 'stock',
      balance: 350n,
      lotSize: 100n,
      averageCost: toAssetAmount(51_400_000n),
      assetDecimals: 6,
      openedSeq: 3,
    }
    const at = (price: string) =>
      strategy.decide(
        snapshot({ nowMs, prices: [marketPrice('hkex', '0700', price)], positions: [position] }),
      ).intents
    expect(at('439.8')).toEqual([])
    // Half of 350 is 175: one lot of 100.
    expect(at('440')).toEqual([
      {
        intentId: 'protect:guard-0700:take-profit:3',
        chainId: 31337,
        ticker: '0700',
        exchange: 1,
        side: 'sell',
        amountIn: '100',
        amountType: 'stocktoken',
      },
    ])
  })

  it('sells fractions of a ShareToken, following its stock price', () => {
    const strategy = createProtectStrategy({
      ...guard,
      ticker: 'AAPLs',
      stopLossPrice: '190',
      fraction: '0.5',
    })
    expect(strategy.symbols()).toEqual([{ market: 'usex', symbol: 'AAPL' }])
    const position = aapl(2_500_000_000_000_000_000n, '200', { ticker: 'AAPLs', tokenKind: 'share' })
    expect(decide(strategy, '189.5', position).intents).toEqual([
      { ...sell('stop-loss', '1.25'), ticker: 'AAPLs' },
    ])
  })

  it('trailing stop: under the highest fresh price seen in the epoch by the percentage, remembered', () => {
    const strategy = createProtectStrategy({ ...guard, trailingStopPct: '5' })
    // First sight of the position: the mark starts at the price.
    const first = decide(strategy, '240', aapl(4n))
    expect(first.intents).toEqual([])
    expect(first.memory.protective[0]?.highWater).toEqual({ price: parsePrice('240'), atMs: nowMs })
    // A new high raises it; a lower price keeps it.
    const higher = decide(strategy, '250', aapl(4n), first.memory, { atMs: nowMs + 1000 })
    expect(higher.memory.protective[0]?.highWater).toEqual({ price: parsePrice('250'), atMs: nowMs + 1000 })
    const lower = decide(strategy, '245', aapl(4n), higher.memory, { atMs: nowMs + 2000 })
    expect(lower.intents).toEqual([])
    expect(lower.memory.protective[0]?.highWater?.price).toBe(parsePrice('250'))
    // 250 - 5% = 237.5.
    expect(decide(strategy, '237.51', aapl(4n), lower.memory).intents).toEqual([])
    expect(decide(strategy, '237.5', aapl(4n), lower.memory).intents).toEqual([sell('trailing-stop', '4')])
  })

  it('never acts on a stale or missing price, nor raises the mark with one', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8', trailingStopPct: '5' })
    const memory: StrategyMemory = {
      protective: [
        {
          chainId: 31337,
          ticker: 'AAPL',
          epoch,
          highWater: { price: parsePrice('250'), atMs: 1 },
          exits: [],
        },
      ],
    }
    const stale = decide(strategy, '100', aapl(10n), memory, { stale: true })
    expect(stale).toEqual({ intents: [], memory })
    expect(decide(strategy, '300', aapl(10n), memory, { stale: true }).memory).toEqual(memory)
    expect(decide(strategy, undefined, aapl(10n), memory)).toEqual({ intents: [], memory })
    expect(decide(strategy, '0', aapl(10n), memory)).toEqual({ intents: [], memory })
  })

  it('asks for a fired exit again, same id and amount, whatever the price does until the position closes', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8' })
    const fired = decide(strategy, '150', aapl(10n))
    // The price recovered (and a daemon restarted in between, reading the memory back): still the sale.
    const later = decide(strategy, '210', aapl(10n), fired.memory)
    expect(later.intents).toEqual([sell('stop-loss', '10')])
    expect(later.memory).toEqual({
      protective: [{ ...fired.memory.protective[0], highWater: { price: parsePrice('210'), atMs: nowMs } }],
    })
    // Sold: the position is flat, the memory of it forgotten.
    expect(decide(strategy, '150', aapl(0n), later.memory)).toEqual({
      intents: [],
      memory: { protective: [] },
    })
    expect(decide(strategy, '150', undefined, later.memory)).toEqual({
      intents: [],
      memory: { protective: [] },
    })
  })

  it('asks again, under the next attempt id, for a sale that ended without a trade: after 15 s, 30 s, doubling to 5 minutes', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8' })
    const fired = decide(strategy, '150', aapl(10n))
    const first = 'protect:guard:stop-loss:7'
    expect(fired.intents).toEqual([sell('stop-loss', '10')])
    /** Evaluated `afterMs` past the trip, the intents in `unfilled` having ended without a trade. */
    const at = (afterMs: number, memory: StrategyMemory, unfilled: string[], position = aapl(10n)) =>
      strategy.decide({
        ...snapshot({
          nowMs: nowMs + afterMs,
          prices: [marketPrice('usex', 'AAPL', '210', { atMs: nowMs + afterMs })],
          positions: [position],
        }),
        memory,
        unfilledIntents: new Set(unfilled),
      })
    const ids = (decision: StrategyDecision) => decision.intents.map((intent) => intent.intentId)
    // Its execution failed: 15 s after it was asked for, not before, the same sale under attempt 2.
    expect(ids(at(14_999, fired.memory, [first]))).toEqual([first])
    const second = at(15_000, fired.memory, [first])
    expect(second.intents).toEqual([{ ...sell('stop-loss', '10'), intentId: `${first}:2` }])
    const [retried] = second.memory.protective[0]?.exits ?? []
    expect(retried).toEqual({
      ...fired.memory.protective[0]?.exits[0],
      intentId: `${first}:2`,
      atMs: nowMs + 15_000,
    })
    // Attempt 2 expired too: 30 s after it (45 s after the trip) comes attempt 3.
    expect(ids(at(44_999, second.memory, [first, `${first}:2`]))).toEqual([`${first}:2`])
    expect(ids(at(45_000, second.memory, [first, `${first}:2`]))).toEqual([`${first}:3`])
    // Attempt 6 waits 15 s × 2^5 = 480 s, held to 5 minutes: attempt 7 at 300 s.
    const sixth = {
      protective: [
        {
          ...second.memory.protective[0],
          exits: [{ ...retried, intentId: `${first}:6`, atMs: nowMs + 1_000_000 }],
        },
      ],
    } as StrategyMemory
    expect(ids(at(1_299_999, sixth, [`${first}:6`]))).toEqual([`${first}:6`])
    expect(ids(at(1_300_000, sixth, [`${first}:6`]))).toEqual([`${first}:7`])
    // Not while its sale is still running (not in `unfilled`).
    expect(ids(at(60_000, fired.memory, []))).toEqual([first])
  })

  it('asks again for what the position holds then when something else bought or sold after the trip', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8', fraction: '0.5' })
    const fired = decide(strategy, '150', aapl(10n))
    const first = 'protect:guard:stop-loss:7'
    expect(fired.intents).toEqual([sell('stop-loss', '5')])
    const retry = (position: PositionView) =>
      strategy.decide({
        ...snapshot({
          nowMs: nowMs + 15_000,
          prices: [marketPrice('usex', 'AAPL', '140', { atMs: nowMs + 15_000 })],
          positions: [position],
        }),
        memory: fired.memory,
        unfilledIntents: new Set([first]),
      })
    // Its sale was rejected; meanwhile a schedule bought 4 more: half of the 14 held now, at attempt 2,
    // remembered at that balance (so no other exit trips until it lands).
    const grown = retry(aapl(14n))
    expect(grown.intents).toEqual([{ ...sell('stop-loss', '7'), intentId: `${first}:2` }])
    expect(grown.memory.protective[0]?.exits).toEqual([
      {
        ...fired.memory.protective[0]?.exits[0],
        intentId: `${first}:2`,
        quantity: 7n,
        balance: 14n,
        atMs: nowMs + 15_000,
      },
    ])
    // An operator sold 7 of the 10 instead: half of the 3 left, rounded down to whole shares.
    expect(retry(aapl(3n)).intents).toEqual([{ ...sell('stop-loss', '1'), intentId: `${first}:2` }])
    // 1 share left: half of it is less than a share, no attempt 2. Only the first attempt's id is
    // returned, which the runner skips (the ledger has it): nothing new is sold.
    const tiny = retry(aapl(1n))
    expect(tiny.intents.map((intent) => intent.intentId)).toEqual([first])
    expect(tiny.memory.protective[0]?.exits.map((exit) => exit.intentId)).toEqual([first])
  })

  it('fires each exit once per epoch; a reopened position (new epoch) is protected afresh', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8', fraction: '0.5' })
    const fired = decide(strategy, '150', aapl(10n))
    expect(fired.intents).toEqual([sell('stop-loss', '5')])
    // Half sold: the stop-loss does not fire again in this epoch, however low the price.
    const after = decide(strategy, '140', aapl(5n), fired.memory)
    expect(after.intents).toEqual([sell('stop-loss', '5')])
    expect(after.memory.protective[0]?.exits).toHaveLength(1)
    // Closed and opened again: epoch 12, its own stop-loss; the old mark and exits do not carry over.
    const reopened = decide(strategy, '150', aapl(6n, '200', { openedSeq: 12 }), after.memory)
    expect(reopened.intents).toEqual([sell('stop-loss', '3', 12)])
    expect(reopened.memory.protective).toEqual([
      expect.objectContaining({ epoch: 12, highWater: { price: parsePrice('150'), atMs: nowMs } }),
    ])
    expect(reopened.memory.protective[0]?.exits.map((exit) => exit.intentId)).toEqual([
      'protect:guard:stop-loss:12',
    ])
  })

  it('one exit at a time: the stop-loss first; another fires only once the first one moved the balance', () => {
    const strategy = createProtectStrategy({
      ...guard,
      stopLossPct: '10',
      trailingStopPct: '5',
      fraction: '0.5',
    })
    const marked = decide(strategy, '260', aapl(10n))
    // 170 is under both 180 (stop-loss) and 247 (trailing): the stop-loss sells first.
    const first = decide(strategy, '170', aapl(10n), marked.memory)
    expect(first.intents).toEqual([sell('stop-loss', '5')])
    // Its sale has not landed (balance still 10): the trailing stop waits.
    const waiting = decide(strategy, '170', aapl(10n), first.memory)
    expect(waiting.intents).toEqual([sell('stop-loss', '5')])
    // Landed: the trailing stop fires on the rest, half of it (whole shares).
    const second = decide(strategy, '170', aapl(5n), waiting.memory)
    expect(second.intents).toEqual([sell('stop-loss', '5'), sell('trailing-stop', '2')])
  })

  it('never asks for more than the position holds now', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8' })
    const fired = decide(strategy, '150', aapl(10n))
    // Something else sold 4 before the exit was submitted: it asks for the 6 left.
    expect(decide(strategy, '150', aapl(6n), fired.memory).intents).toEqual([sell('stop-loss', '6')])
  })

  it('percentages need an average cost; prices do not; nothing without a long position and its epoch', () => {
    const strategy = createProtectStrategy({ ...guard, stopLossPct: '8', takeProfitPrice: '300' })
    const unknownCost = aapl(10n, '0')
    expect(decide(strategy, '1', unknownCost).intents).toEqual([])
    expect(decide(strategy, '300', unknownCost).intents).toEqual([sell('take-profit', '10')])
    expect(decide(strategy, '1', aapl(10n, '200', { openedSeq: undefined })).intents).toEqual([])
    expect(decide(strategy, '1', aapl(-3n)).intents).toEqual([])
    // A whole share below one lot: nothing to sell, nothing fired.
    const lots = createProtectStrategy({ ...guard, stopLossPct: '8', lotSize: 5 })
    expect(decide(lots, '1', aapl(4n))).toEqual({
      intents: [],
      memory: {
        protective: [{ chainId: 31337, ticker: 'AAPL', epoch, highWater: expect.anything(), exits: [] }],
      },
    })
  })

  it('is built by createStrategy; evaluate gives the intents of decide; it watches its position', () => {
    const strategy = createStrategy({ kind: 'protect', ...guard, takeProfitPct: '20' })
    expect(strategy.kind).toBe('protect')
    if (strategy.kind !== 'protect') throw new Error('not a protect strategy')
    expect(strategy.watches).toEqual([{ chainId: 31337, ticker: 'AAPL', exchange: 0 }])
    const input = snapshot({ nowMs, prices: [marketPrice('usex', 'AAPL', '240')], positions: [aapl(3n)] })
    expect(strategy.evaluate(input)).toEqual([sell('take-profit', '3')])
    expect(strategy.evaluate(input)).toEqual(strategy.decide(input).intents)
  })

  it('refuses configurations without an exit, with both forms of one, or that cannot trade', () => {
    expect(configError(() => createProtectStrategy({ ...guard })).issues).toEqual([
      { path: 'stopLossPct', message: expect.stringContaining('give at least one exit') },
    ])
    expect(
      configError(() => createProtectStrategy({ ...guard, stopLossPct: '5', stopLossPrice: '190' })).issues,
    ).toEqual([{ path: 'stopLossPrice', message: expect.stringContaining('not both') }])
    expect(
      configError(() => createProtectStrategy({ ...guard, stopLossPrice: '250', takeProfitPrice: '250' }))
        .issues,
    ).toEqual([{ path: 'takeProfitPrice', message: expect.stringContaining('not above the stopLossPrice') }])
    expect(configError(() => createProtectStrategy({ ...guard, stopLossPct: '100' })).issues).toEqual([
      { path: 'stopLossPct', message: expect.stringContaining('below 100') },
    ])
    expect(
      configError(() => createProtectStrategy({ ...guard, trailingStopPct: '5', fraction: '1.5' })).issues,
    ).toEqual([{ path: 'fraction', message: expect.stringContaining('at most 1') }])
    expect(
      configError(() =>
        createProtectStrategy({ ...guard, ticker: '005930s', exchange: 3, trailingStopPct: '5' }),
      ).issues,
    ).toEqual([{ path: 'ticker', message: expect.stringContaining('whole shares only') }])
    expect(
      configError(() => createStrategy({ kind: 'protect', ...guard, stopLossPct: '5', stopLos: '1' })).issues,
    ).toEqual([{ path: '', message: expect.stringContaining('unknown field "stopLos"') }])
  })
})
