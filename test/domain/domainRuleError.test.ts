import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { describe, expect, it } from 'vitest'

describe('DomainRuleError', () => {
  it('carries a stable code, a short message, details and a cause', () => {
    const cause = new Error('inner')
    const error = new DomainRuleError({
      code: 'OFF_TICK',
      shortMessage: 'bad tick',
      details: { price: '1' },
      cause,
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('DomainRuleError')
    expect(error.code).toBe('OFF_TICK')
    expect(error.message).toBe('bad tick')
    expect(error.shortMessage).toBe('bad tick')
    expect(error.details).toEqual({ price: '1' })
    expect(error.cause).toBe(cause)
  })
})
