// Throughput of the sandbox's public endpoints on loopback. The sandbox runs in its own process
// (`stockroute sandbox --json`); autocannon loads it from this one, for a bounded time per endpoint.
// Run: npm run bench:sandbox [-- --seconds 5 --connections 32]
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { SandboxDescription } from '@stockroute/sandbox/describe.js'
import autocannon from 'autocannon'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`)
  const value = at >= 0 ? Number(args[at + 1]) : fallback
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`)
  return value
}
const seconds = Math.min(option('seconds', 5), 60)
const connections = Math.min(option('connections', 32), 256)

const sandbox = spawn(process.execPath, ['bin/stockroute.js', 'sandbox', '--json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
try {
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: sandbox.stdout }).once('line', resolve)
    sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  const description = JSON.parse(line) as SandboxDescription
  const [first] = description.chains
  const endpoints = [
    '/api/v1/chains',
    `/api/v1/chains/${first?.chainId}/tokens`,
    `/api/v1/chains/${first?.chainId}/tokens?exchange_id=1&page=1&page_size=2`,
    '/api/v1/tickers/AAPL/stats?exchange=0',
    '/api/v1/stats',
    '/api/v1/tickers/heatmaps?exchange=0',
  ]
  console.log(`sandbox at ${description.baseUrl}; ${connections} connections, ${seconds} s per endpoint`)
  console.log(
    `${'endpoint'.padEnd(70)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  non-2xx`,
  )
  for (const path of endpoints) {
    const result = await autocannon({
      url: `${description.baseUrl}${path}`,
      connections,
      duration: seconds,
      pipelining: 1,
    })
    console.log(
      `${`GET ${path}`.padEnd(70)} ${result.requests.average.toFixed(0).padStart(9)} ${String(result.latency.p50).padStart(7)} ${String(result.latency.p99).padStart(7)}  ${result.non2xx}`,
    )
  }
} finally {
  sandbox.kill('SIGTERM')
  await new Promise((resolve) => sandbox.once('exit', resolve))
}
