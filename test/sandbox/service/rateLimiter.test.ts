import { createRateLimiter } from '@stockroute/sandbox/service/rateLimiter.js'
import { describe, expect, it } from 'vitest'

describe('createRateLimiter', () => {
  it('lets a burst of twice the rate through, then asks to wait until a token is back', () => {
    const limiter = createRateLimiter()
    const waits = Array.from({ length: 5 }, () => limiter.take('key', 2, 1_000))
    expect(waits).toEqual([0, 0, 0, 0, 500])
    expect(limiter.take('key', 2, 1_500)).toBe(0)
  })

  it('keeps identities apart', () => {
    const limiter = createRateLimiter()
    for (let i = 0; i < 2; i++) limiter.take('a', 1, 0)
    expect(limiter.take('a', 1, 0)).toBeGreaterThan(0)
    expect(limiter.take('b', 1, 0)).toBe(0)
  })

  it('a clock that steps back neither drains nor refills the bucket', () => {
    const limiter = createRateLimiter()
    limiter.take('key', 1, 10_000)
    expect(limiter.take('key', 1, 5_000)).toBe(0)
    expect(limiter.take('key', 1, 5_000)).toBeGreaterThan(0)
    expect(limiter.take('key', 1, 11_000)).toBe(0)
  })
})
