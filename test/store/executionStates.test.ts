import { describe, expect, it } from 'vitest'
import { endedWithoutTrade, executionStates } from '../../src/store/executionStates.js'

// Which execution states traded nothing: what a protective exit asks for again, what a `failure`
// notification reports, what the strategies' view calls `unsold`.

describe('endedWithoutTrade', () => {
  it('is failed, expired and rejected: the terminal states but confirmed', () => {
    expect(executionStates.filter(endedWithoutTrade)).toEqual(['failed', 'expired', 'rejected'])
    expect(endedWithoutTrade('not a state')).toBe(false)
  })
})
