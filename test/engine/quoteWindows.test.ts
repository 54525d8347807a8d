import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQuoteWindows } from '../../src/engine/quoteWindows.js'
import type { InclusionWait } from '../../src/engine/types.js'

/** Whether a promise has settled once the microtasks queued so far have run. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  void promise.then(() => {
    settled = true
  })
  await Promise.resolve()
  await Promise.resolve()
  return settled
}

describe('quote windows', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('let a waiter through at once while no quote is held, and report no wait', async () => {
    const waits: InclusionWait[] = []
    const windows = createQuoteWindows({ maxWaitMs: 150, onWaited: (wait) => waits.push(wait) })
    // Created, not opened: the quote has not arrived yet.
    windows.create()
    expect(await settledNow(windows.passed())).toBe(true)
    expect(waits).toEqual([])
  })

  it('hold a waiter until the last open window closes; closing twice is closing once', async () => {
    const waits: InclusionWait[] = []
    let clock = 1_000
    const windows = createQuoteWindows({
      maxWaitMs: 60_000,
      onWaited: (wait) => waits.push(wait),
      now: () => clock,
    })
    const first = windows.create()
    const second = windows.create()
    first.open()
    second.open()
    const passed = windows.passed()
    expect(windows.status()).toEqual({ open: 2, waiting: 1, maxWaitMs: 60_000 })
    first.close()
    first.close()
    expect(await settledNow(passed)).toBe(false)
    expect(windows.status().open).toBe(1)
    clock += 12
    second.close()
    expect(await settledNow(passed)).toBe(true)
    expect(waits).toEqual([{ waitedMs: 12, ranOut: false }])
    expect(windows.status()).toEqual({ open: 0, waiting: 0, maxWaitMs: 60_000 })
  })

  it('never reopen a closed window, and a window closed before it opened does not count', async () => {
    const windows = createQuoteWindows({ maxWaitMs: 60_000 })
    const dropped = windows.create()
    dropped.close()
    dropped.open()
    const closed = windows.create()
    closed.open()
    closed.close()
    closed.open()
    expect(windows.status().open).toBe(0)
    expect(await settledNow(windows.passed())).toBe(true)
  })

  it('let a waiter through after maxWaitMs even while a quote is still held', async () => {
    vi.useFakeTimers()
    const waits: InclusionWait[] = []
    const windows = createQuoteWindows({
      maxWaitMs: 150,
      onWaited: (wait) => waits.push(wait),
      now: Date.now,
    })
    windows.create().open()
    const passed = windows.passed()
    await vi.advanceTimersByTimeAsync(149)
    expect(await settledNow(passed)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await settledNow(passed)).toBe(true)
    // The waiter that ran out is no longer held.
    expect(windows.status()).toEqual({ open: 1, waiting: 0, maxWaitMs: 150 })
    expect(waits).toEqual([{ waitedMs: 150, ranOut: true }])
  })

  it('never hold anyone with maxWaitMs 0, and refuse a bound that is not a whole number of ms', async () => {
    const windows = createQuoteWindows({ maxWaitMs: 0 })
    windows.create().open()
    expect(await settledNow(windows.passed())).toBe(true)
    expect(() => createQuoteWindows({ maxWaitMs: -1 })).toThrow(
      /maxInclusionDelayMs -1 must be a whole number/,
    )
    expect(() => createQuoteWindows({ maxWaitMs: 1.5 })).toThrow(RangeError)
  })
})
