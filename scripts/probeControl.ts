// probe:control — replays the control-surface probe's categories against a running daemon, bounded
// (at most 3000 requests, a time limit), on loopback only, and prints per category the requests
// sent, the statuses got and whether the daemon held (expected statuses, no 5xx, still alive).
// Categories (scripts/probeControl/categories.ts): every route without a token, with a wrong one and
// with near misses; path traversal in several encodings; malformed, deep, huge and hostile JSON
// bodies; bodies cut short; cookie and CSRF games (logout without CSRF, then the cookie again);
// foreign Origin and Host headers; query names such as __proto__; 200 event streams at once; 500
// concurrent reads with /health's latency measured meanwhile. Nothing sent can change the daemon's
// state, even where a check it probes were broken.
// Run: npm run probe:control -- (--url http://127.0.0.1:PORT --token TOKEN | --config FILE | --start)
//      [--json] [--time-limit SECONDS] [--warmup SECONDS]
// Exit code 0 when every category held, 1 otherwise, 2 for a bad option. --start needs `npm run build`.
import { categories, daemonAlive, type ProbeContext, routesOf } from './probeControl/categories.js'
import { findRunningDaemon, type ProbedDaemon, startDemoDaemon } from './probeControl/daemon.js'
import { maxProbeRequests, parseProbeOptions } from './probeControl/options.js'
import { type CategoryResult, probeReport, renderProbeTable } from './probeControl/report.js'
import { createProbeBudget, type ProbeBudget, send } from './probeControl/send.js'

const options = (() => {
  try {
    return parseProbeOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`probe:control: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
})()
const progress = (line: string) => process.stderr.write(`[probe:control] ${line}\n`)

let daemon: ProbedDaemon
try {
  const { target } = options
  daemon =
    target.kind === 'url'
      ? { url: target.url, token: target.token, pid: undefined, stop: async () => {} }
      : target.kind === 'config'
        ? findRunningDaemon(target.configPath)
        : await startDemoDaemon(progress)
} catch (error) {
  process.stderr.write(`probe:control: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
}
process.once('SIGINT', () => {
  void daemon.stop().finally(() => process.exit(130))
})

let started = performance.now()
const results: CategoryResult[] = []
let budget: ProbeBudget | undefined
try {
  if (options.target.kind === 'start' && options.warmupSeconds > 0) {
    progress(`letting the demo trade for ${options.warmupSeconds} s first`)
    await new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000))
  }
  // From here on: the time limit runs (the warm-up is not counted).
  started = performance.now()
  budget = createProbeBudget({
    maxRequests: maxProbeRequests,
    timeLimitMs: options.timeLimitSeconds * 1000,
  })
  const context: ProbeContext = { base: daemon.url, token: daemon.token, budget }
  const document = await send(daemon.url, budget, {
    method: 'GET',
    path: '/v1/openapi.json',
    headers: { authorization: `Bearer ${daemon.token}` },
  })
  if (document.status !== 200)
    throw new Error(`GET /v1/openapi.json answered ${document.status}: is the token the daemon's?`)
  const routes = routesOf(JSON.parse(document.body))
  for (const category of categories) {
    progress(`${category.name}…`)
    let result: Omit<CategoryResult, 'name' | 'expectation' | 'alive'>
    try {
      result = await category.run(context, routes)
    } catch (error) {
      result = { outcomes: [], problems: [error instanceof Error ? error.message : String(error)], notes: [] }
    }
    results.push({
      name: category.name,
      expectation: category.expectation,
      ...result,
      alive: await daemonAlive(context),
    })
  }
} catch (error) {
  process.stderr.write(`probe:control: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
} finally {
  await daemon.stop()
}

if (results.length > 0) {
  const report = probeReport({
    url: daemon.url,
    startedDaemon: options.target.kind === 'start',
    durationMs: performance.now() - started,
    categories: results,
    requests: budget?.sent,
  })
  process.stdout.write(`${options.json ? JSON.stringify(report) : renderProbeTable(report)}\n`)
  process.exitCode = report.held ? 0 : 1
}
