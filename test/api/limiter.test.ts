import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import { describe, expect, it } from 'vitest'

describe('createRequestLimiter', () => {
  it('starts a burst up to the limit at once, then no more than the limit in any one-second window', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 20, maxConcurrent: 100 })
    const started = performance.now()
    const starts: number[] = []
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const jobs = Array.from({ length: 30 }, () =>
      limiter.schedule(async () => {
        starts.push(performance.now() - started)
        await gate
      }),
    )
    // Each of the first 20 starts while all of them are still running: nothing spaces them out.
    while (starts.length < 20) await new Promise((resolve) => setImmediate(resolve))
    expect(starts).toHaveLength(20)
    open()
    await Promise.all(jobs)
    // A start is 21st in its window only once the window's first is a second old, as the
    // limiter's timers count it: they fire on the event loop's millisecond clock, which
    // performance.now() may see a few ms short of the second (seen: 997.6 ms on a loaded machine).
    // Without the window, the 21st would start with the first 20, 0 ms after.
    for (let i = 20; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 20] ?? 0)).toBeGreaterThanOrEqual(990)
  })

  it('holds every job until a pause (Retry-After) has passed', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 1000 })
    await limiter.schedule(async () => undefined)
    limiter.pauseFor(200)
    const paused = performance.now()
    const [first, second] = await Promise.all([
      limiter.schedule(async () => performance.now()),
      limiter.schedule(async () => performance.now()),
    ])
    expect(first - paused).toBeGreaterThanOrEqual(199)
    expect(second - paused).toBeGreaterThanOrEqual(199)
  })

  it('never runs more jobs at once than maxConcurrent', async () => {
    const limiter = createRequestLimiter({ requestsPerSecond: 100_000, maxConcurrent: 3 })
    let running = 0
    let peak = 0
    await Promise.all(
      Array.from({ length: 20 }, () =>
        limiter.schedule(async () => {
          running += 1
          peak = Math.max(peak, running)
          await new Promise((resolve) => setTimeout(resolve, 5))
          running -= 1
        }),
      ),
    )
    expect(peak).toBeLessThanOrEqual(3)
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
