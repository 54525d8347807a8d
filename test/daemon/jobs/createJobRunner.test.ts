import { expect, it, vi } from 'vitest'
import { createJobRunner } from '../../../src/daemon/jobs/createJobRunner.js'

it('stop() aborts the run in progress and resolves once it has ended; meanwhile it says what the run is doing', {
  timeout: 20_000,
}, async () => {
  const errors: string[] = []
  const jobs = createJobRunner({ warn: () => {}, error: (_fields, message) => errors.push(message) })
  let runStarted: () => void = () => {}
  const started = new Promise<void>((resolve) => {
    runStarted = resolve
  })
  const ends: string[] = []
  // A run that would wait forever but for the runner's signal (an RPC read that never answers).
  jobs.schedule('reconciliation', '* * * * * *', async ({ signal, doing }) => {
    doing('reconciliation of chain 31337')
    runStarted()
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
    ends.push(String((signal.reason as Error).message))
  })
  await started
  expect(jobs.activities()).toEqual(['reconciliation of chain 31337'])
  await jobs.stop(new Error('the daemon is stopping'))
  expect(ends).toEqual(['the daemon is stopping'])
  expect(jobs.activities()).toEqual([])
  // Ended by the stop: not a failure to log.
  expect(errors).toEqual([])
})

it('a run skipped because the last one still runs is a warning in the log, never a line on the console', {
  timeout: 20_000,
}, async () => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = []
  let warned: () => void = () => {}
  const skipped = new Promise<void>((resolve) => {
    warned = resolve
  })
  const jobs = createJobRunner({
    warn: (fields, message) => {
      warnings.push({ fields, message })
      warned()
    },
    error: () => {},
  })
  const console = vi.spyOn(globalThis.console, 'warn')
  try {
    // Every second, and the first run lasts until the stop: the next second's run is skipped.
    jobs.schedule('reconciliation', '* * * * * *', ({ signal }) => {
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    })
    await skipped
    await jobs.stop()
    expect(warnings[0]).toEqual({
      fields: { job: 'reconciliation' },
      message: 'task still running, new execution blocked by overlap prevention!',
    })
    expect(console).not.toHaveBeenCalled()
  } finally {
    console.mockRestore()
  }
})
