import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { composeErrorMessage, StockrouteError } from '@stockroute/client/domain/errors.js'
import { RouterQuoteEncodingError } from '@stockroute/client/domain/hashRouterQuote.js'
import { describe, expect, it } from 'vitest'

describe('StockrouteError', () => {
  it('carries a stable code, a short message, the remedy, details, meta messages and a cause', () => {
    const cause = new Error('inner')
    const error = new StockrouteError({
      code: 'CONFIG_INVALID',
      shortMessage: 'chains: the list is empty',
      remedy: 'list at least one chain under "chains"',
      details: { field: 'chains' },
      metaMessages: ['  chains: at least 1 item'],
      cause,
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('StockrouteError')
    expect(error.code).toBe('CONFIG_INVALID')
    expect(error.shortMessage).toBe('chains: the list is empty')
    expect(error.remedy).toBe('list at least one chain under "chains"')
    expect(error.details).toEqual({ field: 'chains' })
    expect(error.metaMessages).toEqual(['  chains: at least 1 item'])
    expect(error.cause).toBe(cause)
  })

  it('composes its message: the short message, the meta messages, then "fix: <remedy>"', () => {
    const error = new StockrouteError({
      code: 'CONFIG_INVALID',
      shortMessage: 'config file not found: x.json',
      metaMessages: ['  pass --config FILE'],
      remedy: 'pass --config with an existing file',
    })
    expect(error.message).toBe(
      'config file not found: x.json\n  pass --config FILE\nfix: pass --config with an existing file',
    )
    expect(composeErrorMessage({ shortMessage: 'a', remedy: 'b' })).toBe('a\nfix: b')
  })

  it('without a remedy (the short message says what to do), the message is the short message', () => {
    const error = new StockrouteError({ code: 'X_FAILED', shortMessage: 'x failed: retry' })
    expect(error.remedy).toBeUndefined()
    expect(error.message).toBe('x failed: retry')
    expect(error.details).toEqual({})
    expect(error.metaMessages).toEqual([])
    expect('cause' in error).toBe(false)
  })

  it("is the base of the domain's errors, which keep their names and codes", () => {
    const rule = new DomainRuleError({ code: 'OFF_TICK', shortMessage: 'bad tick: use 1.01' })
    const encoding = new RouterQuoteEncodingError('isBuy must be a boolean')
    for (const error of [rule, encoding]) {
      expect(error).toBeInstanceOf(StockrouteError)
      expect(error.code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/)
    }
    expect(rule.name).toBe('DomainRuleError')
    expect(encoding.name).toBe('RouterQuoteEncodingError')
    expect(encoding.code).toBe('QUOTE_ENCODING_INVALID')
    expect(encoding.remedy).toMatch(/router quote reply/)
    expect(encoding.message).toBe(`isBuy must be a boolean\nfix: ${encoding.remedy}`)
  })
})
