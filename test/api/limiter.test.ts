import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// The limiter's windows on a fake clock: p-queue reads Date.now() and its timers are setTimeout, so
// the test counts the jobs started in each window of the fake time instead of measuring real gaps.

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Jobs that note the fake time they start at, and end when the test says. */
function recordedJobs() {
  const starts: number[] = []
  let finish: () => void = () => {}
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  return {
    starts,
    finish,
    job: async () => {
      starts.push(Date.now())
      await finished
    },
  }
}

describe('createRequestLimiter', () => {
  it('starts a burst up to the limit at once, then no more than the limit in any one-second window', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 20, maxConcurrent: 100 })
    const origin = Date.now()
    const { starts, finish, job } = recordedJobs()
    const jobs = Array.from({ length: 50 }, () => limiter.schedule(job))
    // Each of the first 20 starts at once, while all of them are still running.
    await vi.advanceTimersByTimeAsync(0)
    expect(starts).toHaveLength(20)
    // Not one more until the first window's second is over; then the next 20, then the last 10.
    await vi.advanceTimersByTimeAsync(999)
    expect(starts).toHaveLength(20)
    await vi.advanceTimersByTimeAsync(1)
    expect(starts).toHaveLength(40)
    await vi.advanceTimersByTimeAsync(999)
    expect(starts).toHaveLength(40)
    await vi.advanceTimersByTimeAsync(1)
    expect(starts).toHaveLength(50)
    finish()
    await Promise.all(jobs)
    // Per window of the fake clock: 20, 20, 10; no start falls between windows.
    expect(starts.map((at) => at - origin)).toEqual([
      ...Array<number>(20).fill(0),
      ...Array<number>(20).fill(1000),
      ...Array<number>(10).fill(2000),
    ])
  })

  it('counts the window from each start: after a quiet spell, a second burst starts at once', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 5 })
    const { starts, finish, job } = recordedJobs()
    finish()
    await Promise.all(Array.from({ length: 5 }, () => limiter.schedule(job)))
    await vi.advanceTimersByTimeAsync(600)
    const later = Array.from({ length: 6 }, () => limiter.schedule(job))
    await vi.advanceTimersByTimeAsync(0)
    // The first five are under a second old: none of the new ones starts until they pass it.
    expect(starts).toHaveLength(5)
    await vi.advanceTimersByTimeAsync(400)
    expect(starts).toHaveLength(10)
    await vi.advanceTimersByTimeAsync(1000)
    await Promise.all(later)
    expect(starts).toHaveLength(11)
  })

  it('holds every job until a pause (Retry-After) has passed', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 1000 })
    await limiter.schedule(async () => undefined)
    limiter.pauseFor(200)
    const { starts, finish, job } = recordedJobs()
    finish()
    const paused = Date.now()
    const held = [limiter.schedule(job), limiter.schedule(job)]
    await vi.advanceTimersByTimeAsync(199)
    expect(starts).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    await Promise.all(held)
    expect(starts).toEqual([paused + 200, paused + 200])
  })

  it('never runs more jobs at once than maxConcurrent: the fourth starts when one of the three ends', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 100_000, maxConcurrent: 3 })
    const started: number[] = []
    const finishers: (() => void)[] = []
    const jobs = Array.from({ length: 5 }, (_, index) =>
      limiter.schedule(
        () =>
          new Promise<void>((resolve) => {
            started.push(index)
            finishers[index] = resolve
          }),
      ),
    )
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toEqual([0, 1, 2])
    finishers[1]?.()
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toEqual([0, 1, 2, 3])
    for (const finish of [finishers[0], finishers[2], finishers[3]]) finish?.()
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toEqual([0, 1, 2, 3, 4])
    finishers[4]?.()
    await Promise.all(jobs)
  })

  it('rejects a job whose signal is aborted while it waits', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 1 })
    await limiter.schedule(async () => undefined)
    const controller = new AbortController()
    const waiting = limiter.schedule(async () => 'ran', controller.signal)
    controller.abort(new Error('gave up'))
    await expect(waiting).rejects.toThrow('gave up')
  })
})
