import { describe, expect, it } from 'vitest'
import { createQuoteAdmission } from '../../src/engine/quoteAdmission.js'

/** A clock and a busy share the test sets, for an admission that adjusts on them. */
function controlled(ceiling: number) {
  let at = 0
  let busy = 1
  const admission = createQuoteAdmission({
    ceiling,
    floor: 2,
    busyShare: () => busy,
    now: () => at,
    adjustEveryMs: 100,
  })
  return {
    admission,
    later: (ms: number, share: number) => {
      at += ms
      busy = share
    },
  }
}

describe('createQuoteAdmission', () => {
  it('starts at its floor, lets waiters in in order of arrival as places are left', async () => {
    const { admission } = controlled(8)
    const order: number[] = []
    const first = await admission.enter()
    const second = await admission.enter()
    const waiting = [3, 4, 5].map(async (n) => {
      const ticket = await admission.enter()
      order.push(n)
      return ticket
    })
    expect(admission.status()).toMatchObject({ inside: 2, waiting: 3, limit: 2, floor: 2, ceiling: 8 })
    first.leave()
    first.leave() // leaving twice frees one place, not two
    const third = await waiting[0]
    expect(order).toEqual([3])
    expect(admission.status()).toMatchObject({ inside: 2, waiting: 2 })
    second.leave()
    third?.leave()
    await Promise.all(waiting)
    expect(order).toEqual([3, 4, 5])
  })

  it('lets in first a waiter whose wallet has nobody inside, then the others in order of arrival', async () => {
    const { admission } = controlled(8)
    const order: string[] = []
    const enter = (name: string, wallet: string | undefined) =>
      admission.enter(undefined, wallet).then((ticket) => {
        order.push(name)
        return ticket
      })
    const a0 = await enter('a0', 'A')
    const b0 = await enter('b0', 'B')
    const waiting = {
      a1: enter('a1', 'A'),
      a2: enter('a2', 'A'),
      c1: enter('c1', 'C'),
      any: enter('any', undefined),
    }
    expect(admission.status()).toMatchObject({ inside: 2, waiting: 4 })
    // B leaves: A still has a0 inside, so C's waiter goes before A's two.
    b0.leave()
    await waiting.c1
    expect(order).toEqual(['a0', 'b0', 'c1'])
    // A leaves: its first waiter is next, before the waiter of no wallet that came after it.
    a0.leave()
    const a1 = await waiting.a1
    expect(order.at(-1)).toBe('a1')
    // A has a1 inside again: the waiter of no wallet goes before A's second one.
    ;(await waiting.c1).leave()
    const any = await waiting.any
    expect(order.at(-1)).toBe('any')
    // Only A's second waiter is left: it gets in though A has someone inside (no place stays empty).
    any.leave()
    ;(await waiting.a2).leave()
    a1.leave()
    expect(order).toEqual(['a0', 'b0', 'c1', 'a1', 'any', 'a2'])
    expect(admission.status()).toMatchObject({ inside: 0, waiting: 0 })
  })

  it('adds a place while the thread is idle with executions waiting, up to the ceiling; gives them back while it is busy', async () => {
    const { admission, later } = controlled(4)
    const entries = Array.from({ length: 6 }, () => admission.enter())
    expect(admission.status()).toMatchObject({ inside: 2, waiting: 4, limit: 2 })
    const limits: number[] = []
    // Idle with executions waiting (a slow link): one more place per adjustment, up to the ceiling.
    for (let round = 0; round < 3; round++) {
      later(100, 0.2)
      entries.push(admission.enter())
      limits.push(admission.status().limit)
    }
    expect(limits).toEqual([3, 4, 4])
    expect(admission.status().inside).toBe(4)
    // Too soon after the last adjustment: nothing changes, however busy.
    later(50, 1)
    entries.push(admission.enter())
    expect(admission.status().limit).toBe(4)
    // Busy (a burst on a fast link): one place back per adjustment, never below the floor.
    limits.length = 0
    for (let round = 0; round < 3; round++) {
      later(100, 0.95)
      entries.push(admission.enter())
      limits.push(admission.status().limit)
    }
    expect(limits).toEqual([3, 2, 2])
    // Those inside finish; the others get in two at a time now.
    const tickets = await Promise.all(entries.slice(0, 4))
    for (const ticket of tickets) ticket.leave()
    expect(admission.status()).toMatchObject({ inside: 2, limit: 2 })
  })

  it('drops a waiter whose signal aborts; without a ceiling lets everyone in; a ceiling of 1 is its own floor', async () => {
    const { admission } = controlled(2)
    const inside = [await admission.enter(), await admission.enter()]
    const controller = new AbortController()
    const aborted = admission.enter(controller.signal)
    const next = admission.enter()
    controller.abort(new Error('cancelled'))
    await expect(aborted).rejects.toThrow('cancelled')
    expect(admission.status().waiting).toBe(1)
    inside[0]?.leave()
    await expect(next).resolves.toBeDefined()
    await expect(admission.enter(AbortSignal.abort(new Error('already')))).rejects.toThrow('already')

    const open = createQuoteAdmission({ ceiling: undefined })
    await Promise.all(Array.from({ length: 50 }, () => open.enter()))
    expect(open.status()).toMatchObject({ inside: 50, waiting: 0 })
    expect(createQuoteAdmission({ ceiling: 1 }).status()).toMatchObject({ limit: 1, floor: 1 })
    expect(createQuoteAdmission({ ceiling: 16 }).status()).toMatchObject({ limit: 4, floor: 4 })
    expect(() => createQuoteAdmission({ ceiling: 0 })).toThrow(
      'maxQuotesInFlight 0 must be a whole number >= 1',
    )
  })
})
