// The disk under the ledgers, watched while bench:engine runs: a worker thread writes 4 KiB into a
// file of the ledgers' folder and fsyncs it every 50 ms. A shared VM's disk stalls now and then
// (one fsync of 100 to 300 ms among thousands of 0.3 ms), and every ledger COMMIT waits for an
// fsync (synchronous=FULL): with the probe beside the commits, a run says whether a slow commit
// was the disk's or the engine's. 20 small fsyncs a second against the ledgers' hundreds.
import { Worker } from 'node:worker_threads'

/** One probe fsync: when it started (ms since the epoch, comparable across threads) and how long it took. */
export type TimedSample = { atMs: number; ms: number }

export type DiskProbe = {
  /** The probe's fsyncs since the last call (or the start). */
  take(): Promise<TimedSample[]>
  /** Stops the worker and removes its file. */
  stop(): Promise<void>
}

// CommonJS, evaluated by the worker: no build step, nothing imported but Node's own modules.
const probeSource = `
const { parentPort, workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { performance } = require('node:perf_hooks')
const page = Buffer.alloc(4096, 0x5a)
const slots = 256
const fd = fs.openSync(workerData.path, 'w+')
fs.writeSync(fd, Buffer.alloc(page.length * slots), 0, page.length * slots, 0)
fs.fsyncSync(fd)
let samples = []
let slot = 0
const timer = setInterval(() => {
  fs.writeSync(fd, page, 0, page.length, (slot++ % slots) * page.length)
  const atMs = performance.timeOrigin + performance.now()
  fs.fsyncSync(fd)
  samples.push({ atMs, ms: performance.timeOrigin + performance.now() - atMs })
}, workerData.everyMs)
parentPort.on('message', (message) => {
  if (message === 'take') {
    parentPort.postMessage(samples)
    samples = []
  } else if (message === 'stop') {
    clearInterval(timer)
    fs.closeSync(fd)
    fs.rmSync(workerData.path, { force: true })
    parentPort.postMessage('stopped')
  }
})
parentPort.postMessage('ready')
`

/**
 * Starts the probe on the file `path` (created, then removed by `stop`).
 *
 * @example
 * const probe = await startDiskProbe(join(ledgerDir, 'disk-probe.bin'))
 * const fsyncs = await probe.take()
 */
export async function startDiskProbe(path: string, everyMs = 50): Promise<DiskProbe> {
  const worker = new Worker(probeSource, { eval: true, workerData: { path, everyMs } })
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const onError = (error: Error) => reject(error)
      worker.once('error', onError)
      worker.once('message', (message) => {
        worker.off('error', onError)
        resolve(message)
      })
    })
  const ready = await next()
  if (ready !== 'ready') throw new Error(`disk probe: unexpected first message ${String(ready)}`)
  // Never keeps the bench alive on its own.
  worker.unref()
  let stopped = false
  return {
    async take() {
      if (stopped) return []
      const answer = next()
      worker.postMessage('take')
      return (await answer) as TimedSample[]
    },
    async stop() {
      if (stopped) return
      stopped = true
      const answer = next()
      worker.postMessage('stop')
      await answer
      await worker.terminate()
    },
  }
}

/** Slow commits that overlapped a slow probe fsync: the disk stalled for both. */
export function overlapping(
  commits: readonly TimedSample[],
  probes: readonly TimedSample[],
  slowMs: number,
): number {
  const stalls = probes.filter((probe) => probe.ms > slowMs)
  return commits.filter(
    (commit) =>
      commit.ms > slowMs &&
      stalls.some((stall) => stall.atMs < commit.atMs + commit.ms && commit.atMs < stall.atMs + stall.ms),
  ).length
}
