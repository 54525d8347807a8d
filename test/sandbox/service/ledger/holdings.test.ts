import { averageBuyPrice, type CostEvent } from '@stockroute/sandbox/service/ledger/holdings.js'
import { describe, expect, it } from 'vitest'

let block = 0n
const buy = (quantity: bigint, price: bigint): CostEvent => ({
  kind: 'fill',
  blockNumber: ++block,
  logIndex: 0,
  isBuy: true,
  quantity,
  price,
})
const sell = (quantity: bigint, price: bigint): CostEvent => ({
  kind: 'fill',
  blockNumber: ++block,
  logIndex: 0,
  isBuy: false,
  quantity,
  price,
})
const split = (numerator: bigint, denominator: bigint): CostEvent => ({
  kind: 'split',
  blockNumber: ++block,
  logIndex: 0,
  numerator,
  denominator,
})
const delisting = (): CostEvent => ({ kind: 'delisting', blockNumber: ++block, logIndex: 0 })

describe('averageBuyPrice', () => {
  it('is 0 without buys', () => {
    expect(averageBuyPrice([])).toBe(0n)
    expect(averageBuyPrice([sell(5n, 100n)])).toBe(0n)
  })

  it('weights buys by quantity', () => {
    expect(averageBuyPrice([buy(10n, 100n), buy(30n, 200n)])).toBe(175n)
  })

  it('rounds down', () => {
    expect(averageBuyPrice([buy(1n, 100n), buy(2n, 101n)])).toBe(100n)
  })

  it('a sell keeps the average of what remains', () => {
    expect(averageBuyPrice([buy(10n, 100n), buy(10n, 200n), sell(15n, 999n)])).toBe(150n)
  })

  it('selling everything resets it; a later buy starts afresh', () => {
    expect(averageBuyPrice([buy(10n, 100n), sell(10n, 120n)])).toBe(0n)
    expect(averageBuyPrice([buy(10n, 100n), sell(12n, 120n), buy(1n, 300n)])).toBe(300n)
  })

  it('a split keeps the cost and divides the average by the ratio; a reverse split multiplies it', () => {
    expect(averageBuyPrice([buy(4n, 10_000_000n), split(3n, 2n)])).toBe(6_666_666n)
    expect(averageBuyPrice([buy(10n, 100n), split(1n, 10n)])).toBe(1000n)
  })

  it('a delisting clears the position', () => {
    expect(averageBuyPrice([buy(10n, 100n), delisting()])).toBe(0n)
  })

  it('applies events in chain order (block, then log index), whatever order they are given in', () => {
    const first = buy(10n, 100n)
    const splitAfter = split(2n, 1n)
    const last = buy(10n, 100n)
    // 10 at 100 split into 20 (cost 1000), then 10 more at 100: 2000 over 30 shares.
    expect(averageBuyPrice([last, splitAfter, first])).toBe(66n)
    const sameBlock: CostEvent[] = [
      { kind: 'fill', blockNumber: 1000n, logIndex: 3, isBuy: false, quantity: 10n, price: 1n },
      { kind: 'fill', blockNumber: 1000n, logIndex: 1, isBuy: true, quantity: 10n, price: 50n },
    ]
    expect(averageBuyPrice(sameBlock)).toBe(0n)
  })
})
