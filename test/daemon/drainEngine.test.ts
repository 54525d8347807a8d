import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { drainEngine } from '../../src/daemon/drainEngine.js'

// The last part of a daemon's stop, on a fake clock: the executions in flight get the grace and no
// more, whatever the engine does; then what has not been broadcast is cancelled. This bound is what
// "stops within seconds" rests on (startDaemon.test.ts shows the stop end to end).

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A ledger whose unfinished executions the test sets. */
function ledgerWith(ids: number[]) {
  const unfinished = { ids }
  const ledger = {
    executions: {
      listUnfinishedExecutions: () => unfinished.ids.map((id) => ({ id })),
    },
  } as unknown as Parameters<typeof drainEngine>[0]['ledger']
  return { ledger, unfinished }
}

describe('drainEngine', () => {
  it('waits for the engine when it closes within the grace: nothing cancelled', async () => {
    const { ledger, unfinished } = ledgerWith([4, 7])
    const lines: string[] = []
    let closeEngine: () => void = () => {}
    const closed = new Promise<void>((resolve) => {
      closeEngine = resolve
    })
    const abort = vi.fn()
    let drained = false
    const draining = drainEngine({
      closed,
      ledger,
      write: (line) => lines.push(line),
      graceMs: 3000,
      abort,
    }).then(() => {
      drained = true
    })
    expect(lines).toEqual(['waiting for 2 executions in flight (4, 7)'])
    unfinished.ids = [7]
    await vi.advanceTimersByTimeAsync(500)
    expect(lines.at(-1)).toBe('waiting for 1 execution in flight (7)')
    unfinished.ids = []
    closeEngine()
    await draining
    expect(drained).toBe(true)
    expect(abort).not.toHaveBeenCalled()
    expect(lines.some((line) => line.includes('grace'))).toBe(false)
  })

  it('cancels what is left once the grace is over, at that instant of the clock and not before', async () => {
    const { ledger } = ledgerWith([9])
    const lines: string[] = []
    let closeEngine: () => void = () => {}
    const closed = new Promise<void>((resolve) => {
      closeEngine = resolve
    })
    // The engine closes once its executions are cancelled.
    const abort = vi.fn(() => closeEngine())
    let drained = false
    const draining = drainEngine({
      closed,
      ledger,
      write: (line) => lines.push(line),
      graceMs: 3000,
      abort,
    }).then(() => {
      drained = true
    })
    await vi.advanceTimersByTimeAsync(2999)
    expect(abort).not.toHaveBeenCalled()
    expect(drained).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(abort).toHaveBeenCalledTimes(1)
    await draining
    expect(lines).toEqual([
      'waiting for 1 execution in flight (9)',
      'the grace of 3000 ms is over: cancelling what has not been broadcast',
    ])
    expect(vi.getTimerCount()).toBe(0)
  })
})
