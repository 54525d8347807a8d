import type { TokenKind } from '@stockroute/client/domain/markets.js'
import { type AssetAmount, toAssetAmount } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  type Ledger,
  type NewFill,
  openLedger,
  PositionError,
  type PositionTokenInfo,
} from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()

type Market = { chainId: number; token: Address; info: PositionTokenInfo; unit: bigint }
const markets: Market[] = [
  {
    chainId: 31337,
    token: tokens.aapl,
    unit: 1n,
    info: { ticker: 'AAPL', exchange: 0, tokenKind: 'stock', assetToken: tokens.usdc, assetDecimals: 6 },
  },
  {
    chainId: 31337,
    token: tokens.aapls,
    unit: 10n ** 15n, // thousandths of a share
    info: { ticker: 'AAPLs', exchange: 0, tokenKind: 'share', assetToken: tokens.usdc, assetDecimals: 6 },
  },
  {
    chainId: 8453,
    token: tokens.tsla,
    unit: 1n,
    info: { ticker: 'TSLA', exchange: 0, tokenKind: 'stock', assetToken: tokens.usdc, assetDecimals: 18 },
  },
]

const market = fc.integer({ min: 0, max: markets.length - 1 })
const quantity = fc.bigInt({ min: 0n, max: 400n })
const cash = fc.bigInt({ min: 0n, max: 10n ** 24n })
const operation = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('buy' as const), market, quantity, cash }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sell' as const), market, quantity, cash }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('split' as const),
      market,
      numerator: fc.bigInt({ min: 1n, max: 7n }),
      denominator: fc.bigInt({ min: 1n, max: 7n }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delisting' as const), market, cash }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      market,
      quantity: fc.bigInt({ min: -400n, max: 400n }),
      cash,
    }),
  },
  {
    // Moves out the whole balance, give or take a little: the boundary of what may leave.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('transfer-out-all' as const),
      market,
      offset: fc.bigInt({ min: -2n, max: 2n }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replay' as const), index: fc.nat() }) },
  {
    // A ticker change: only the name moves; a later fill or transfer names it after its own ticker.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rename' as const),
      market,
      ticker: fc.constantFrom('NEW1', 'NEW2'),
    }),
  },
)

/**
 * An independent model of what the ledger promises about quantities: the balance is the sum of
 * fills plus adjustments, and an adjustment that does not fit the position is refused. It shares
 * no code with the store.
 */
type Model = { balance: bigint; exists: boolean; ticker: string }

describe('positions = fold(fills + corporate-action adjustments + renames)', () => {
  // 120 sequences over a real ledger file: CPU-bound, past 30 s on a loaded 2-core machine.
  it('after random sequences, the incrementally maintained table equals recomputePositions(), and balances equal the sum of fills and adjustments', {
    timeout: 120_000,
  }, () => {
    let run = 0
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 60 }), (operations) => {
        const path = folder.migratedPath(`property-${run++}.sqlite`)
        let ledger: Ledger = openLedger({ path })
        const model = new Map<number, Model>(
          markets.map((m, index) => [index, { balance: 0n, exists: false, ticker: m.info.ticker }]),
        )
        const recorded: NewFill[] = []
        // Cash identity: costBasis - realizedPnl moves by +paid on buys, -received on sells,
        // -compensation on delistings, +cost on transfers in, -(cost basis that leaves) on transfers out.
        const cashFlow = new Map<number, bigint>(markets.map((_, index) => [index, 0n]))
        let txCount = 0
        try {
          for (const op of operations) {
            if (op.kind === 'replay') {
              const fill = recorded[op.index % Math.max(recorded.length, 1)]
              if (fill) expect(ledger.fills.recordFill(fill).status).toBe('duplicate')
              continue
            }
            const index = op.market
            const m = markets[index] as Market
            const state = model.get(index) as Model
            const key = { chainId: m.chainId, tokenAddress: m.token }
            if (op.kind === 'rename') {
              let renamed: boolean
              try {
                const result = ledger.positions.renamePosition({ ...key, ticker: op.ticker })
                expect(result.status).toBe('recorded')
                renamed = true
              } catch (error) {
                if (!(error instanceof PositionError)) throw error
                renamed = false
              }
              expect(renamed).toBe(state.exists)
              if (renamed) state.ticker = op.ticker
              continue
            }
            if (op.kind === 'buy' || op.kind === 'sell') {
              const amount = op.quantity * m.unit
              const isBuy = op.kind === 'buy'
              const fill = fillOf({
                txLabel: `${run}/${txCount++}`,
                chainId: m.chainId,
                stockToken: m.token,
                ticker: m.info.ticker,
                tokenKind: m.info.tokenKind as TokenKind,
                assetDecimals: m.info.assetDecimals,
                isBuy,
                amountIn: isBuy ? op.cash : amount,
                amountOut: isBuy ? amount : op.cash,
                feeAmount: toAssetAmount(0n),
              })
              expect(ledger.fills.recordFill(fill).status).toBe('recorded')
              recorded.push(fill)
              state.balance += isBuy ? amount : -amount
              state.exists = true
              state.ticker = m.info.ticker
              cashFlow.set(index, (cashFlow.get(index) ?? 0n) + (isBuy ? op.cash : -op.cash))
              continue
            }
            const moved =
              op.kind === 'transfer'
                ? op.quantity * m.unit
                : op.kind === 'transfer-out-all'
                  ? -state.balance + op.offset
                  : 0n
            const before = ledger.positions.getPosition(m.chainId, m.token)
            const attempt = () => {
              switch (op.kind) {
                case 'split':
                  return ledger.positions.applyPositionAdjustment({
                    ...key,
                    kind: 'split',
                    numerator: op.numerator,
                    denominator: op.denominator,
                    reason: 'split',
                  })
                case 'delisting':
                  return ledger.positions.applyPositionAdjustment({
                    ...key,
                    kind: 'delisting',
                    compensation: op.cash as AssetAmount,
                    reason: 'delisting',
                  })
                case 'transfer':
                case 'transfer-out-all':
                  return ledger.positions.applyPositionAdjustment({
                    ...key,
                    kind: 'transfer',
                    quantity: moved,
                    ...(op.kind === 'transfer' && moved > 0n ? { cost: op.cash as AssetAmount } : {}),
                    token: m.info,
                    reason: 'transfer',
                  })
              }
            }
            // What the model says must happen.
            let expected: bigint | 'refused'
            if (op.kind === 'split') {
              const scaled =
                ((state.balance < 0n ? -state.balance : state.balance) * op.numerator) / op.denominator
              expected = state.exists ? (state.balance < 0n ? -scaled : scaled) : 'refused'
            } else if (op.kind === 'delisting') {
              expected = state.exists ? 0n : 'refused'
            } else {
              expected =
                moved === 0n || (moved > 0n && state.balance < 0n) || (moved < 0n && -moved > state.balance)
                  ? 'refused'
                  : state.balance + moved
            }
            let outcome: bigint | 'refused'
            try {
              const result = attempt()
              expect(result.status).toBe('recorded')
              outcome = result.status === 'recorded' ? result.position.balance : -1n
            } catch (error) {
              if (!(error instanceof PositionError)) throw error
              outcome = 'refused'
            }
            expect(outcome).toBe(expected)
            if (outcome === 'refused') continue
            state.balance = outcome
            state.exists = true
            if (op.kind === 'transfer' || op.kind === 'transfer-out-all') state.ticker = m.info.ticker
            const after = ledger.positions.getPosition(m.chainId, m.token)
            const flow =
              op.kind === 'delisting'
                ? -op.cash
                : op.kind === 'transfer' || op.kind === 'transfer-out-all'
                  ? moved > 0n && op.kind === 'transfer'
                    ? op.cash
                    : (after?.costBasis ?? 0n) - (before?.costBasis ?? 0n)
                  : 0n
            cashFlow.set(index, (cashFlow.get(index) ?? 0n) + flow)
          }

          // Re-open: what follows reads the file, not a connection's state.
          ledger.close()
          ledger = openLedger({ path })
          const stored = ledger.positions.listPositions()
          // What each step wrote beside itself: its realized PnL and the daily sums of the reports.
          const figures = () => ({
            days: ledger.database.prepare('SELECT * FROM ledger_days ORDER BY 1, 2, 3, 4, 5').all(),
            fills: ledger.database.prepare('SELECT id, realized_pnl FROM fills ORDER BY id').all(),
            adjustments: ledger.database
              .prepare('SELECT id, realized_pnl FROM position_adjustments ORDER BY id')
              .all(),
          })
          const incremental = figures()
          const { mismatches, positions } = ledger.positions.recomputePositions()
          expect(mismatches).toEqual([])
          expect(positions).toEqual(stored)
          expect(figures()).toEqual(incremental)
          // The days' realized PnL adds up to the positions' (per chain and token).
          const realizedOfDays = ledger.database
            .prepare<
              [],
              { chain_id: bigint; token_address: string; realized_high: bigint; realized_low: bigint }
            >('SELECT chain_id, token_address, realized_high, realized_low FROM ledger_days')
            .safeIntegers(true)
            .all()
          for (const position of stored) {
            const sum = realizedOfDays
              .filter(
                (day) =>
                  Number(day.chain_id) === position.chainId && day.token_address === position.tokenAddress,
              )
              .reduce((total, day) => total + day.realized_high * 10n ** 12n + day.realized_low, 0n)
            expect(sum).toBe(position.realizedPnl)
          }
          markets.forEach((m, index) => {
            const position = ledger.positions.getPosition(m.chainId, m.token)
            const state = model.get(index) as Model
            if (!state.exists) {
              expect(position).toBeUndefined()
              return
            }
            expect(position?.balance).toBe(state.balance)
            expect(position?.ticker).toBe(state.ticker)
            expect((position?.costBasis ?? 0n) - (position?.realizedPnl ?? 0n)).toBe(cashFlow.get(index))
            if (position?.balance === 0n) expect(position.costBasis).toBe(0n)
          })
        } finally {
          ledger.close()
        }
      }),
      { numRuns: 120 },
    )
  })

  it('the ledger order of fills and adjustments is kept across re-opens (seq is shared and increasing)', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.fills.recordFill(fillOf({ txLabel: 'o1', amountOut: 3n }))
    ledger.positions.applyPositionAdjustment({
      chainId: 31337,
      tokenAddress: tokens.aapl,
      kind: 'split',
      numerator: 3n,
      denominator: 1n,
      reason: 'split',
    })
    ledger.close()
    const reopened = openLedger({ path })
    const second = reopened.fills.recordFill(fillOf({ txLabel: 'o2', amountOut: 1n, quoteId: bytes32('o2') }))
    expect(second.fill.seq).toBe(3)
    expect(reopened.positions.getPosition(31337, tokens.aapl)?.balance).toBe(10n)
    expect(reopened.positions.getPosition(31337, tokens.aapl)?.lastSeq).toBe(3)
    reopened.close()
  })
})
