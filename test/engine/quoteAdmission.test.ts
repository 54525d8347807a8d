import { describe, expect, it } from 'vitest'
import { createQuoteAdmission } from '../../src/engine/quoteAdmission.js'

describe('createQuoteAdmission', () => {
  it('lets `limit` in at once, the others in order of arrival as places are left', async () => {
    const admission = createQuoteAdmission(2)
    const order: number[] = []
    const first = await admission.enter()
    const second = await admission.enter()
    const waiting = [3, 4, 5].map(async (n) => {
      const ticket = await admission.enter()
      order.push(n)
      return ticket
    })
    expect(admission.status()).toEqual({ inside: 2, waiting: 3, limit: 2 })
    first.leave()
    first.leave() // leaving twice frees one place, not two
    const third = await waiting[0]
    expect(order).toEqual([3])
    expect(admission.status()).toEqual({ inside: 2, waiting: 2, limit: 2 })
    second.leave()
    third?.leave()
    await Promise.all(waiting)
    expect(order).toEqual([3, 4, 5])
  })

  it('drops a waiter whose signal aborts; lets everyone in without a limit', async () => {
    const admission = createQuoteAdmission(1)
    const inside = await admission.enter()
    const controller = new AbortController()
    const aborted = admission.enter(controller.signal)
    const next = admission.enter()
    controller.abort(new Error('cancelled'))
    await expect(aborted).rejects.toThrow('cancelled')
    expect(admission.status().waiting).toBe(1)
    inside.leave()
    await expect(next).resolves.toBeDefined()
    await expect(admission.enter(AbortSignal.abort(new Error('already')))).rejects.toThrow('already')

    const open = createQuoteAdmission(undefined)
    await Promise.all(Array.from({ length: 50 }, () => open.enter()))
    expect(open.status()).toEqual({ inside: 50, waiting: 0, limit: undefined })
    expect(() => createQuoteAdmission(0)).toThrow('maxQuotesInFlight 0 must be a whole number >= 1')
  })
})
