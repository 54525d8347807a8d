import { describe, expect, it } from 'vitest'
import { replacementFees } from '../../src/transactions/fees.js'

describe('replacementFees', () => {
  const market = { maxFeePerGas: 50n, maxPriorityFeePerGas: 1n }

  it('raises both fees by at least the bump over the replaced transaction', () => {
    const fees = replacementFees({ maxFeePerGas: 1_000n, maxPriorityFeePerGas: 100n }, market, 1_250, 10_000n)
    expect(fees).toEqual({ maxFeePerGas: 1_126n, maxPriorityFeePerGas: 114n })
  })

  it('follows the market when it rose above the bump', () => {
    const fees = replacementFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 1n },
      { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 300n },
      1_250,
      10_000n,
    )
    expect(fees).toEqual({ maxFeePerGas: 5_000n, maxPriorityFeePerGas: 300n })
  })

  it('never offers more than the cap: no replacement then', () => {
    expect(
      replacementFees({ maxFeePerGas: 9_000n, maxPriorityFeePerGas: 1n }, market, 1_250, 10_000n),
    ).toBeUndefined()
  })

  it('a zero fee still gets a strictly higher replacement', () => {
    const fees = replacementFees(
      { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      1_250,
      10n,
    )
    expect(fees).toEqual({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
  })
})
