// The sandbox of bench:engine in a process of its own (local anvil chains + the sandbox HTTP
// service), as `stockroute sandbox --json` runs it, so that the service's CPU work (HTTP, quote
// signing) does not share the bench's JS thread. It differs from the CLI in three ways: the API key
// gets the rate given by --rate (the CLI parses --rate but does not pass it to the service yet), its
// JSON line also carries that rate and the anvil pids (so the bench can make sure they are gone),
// and it stops when its stdin closes (the bench died without stopping it).
// Prints ONE JSON line on stdout once ready, progress on stderr; stops on SIGINT, SIGTERM or stdin EOF.
// Run (sandboxProcess.ts does): node --import tsx bench/engine/sandboxChild.ts [--rate 5000] [--wallets 1]
import { runningAnvilPids } from '@stockroute/sandbox/anvil.js'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import { type Sandbox, startSandbox } from '@stockroute/sandbox/startSandbox.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`)
  if (at < 0) return fallback
  const value = Number(args[at + 1])
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number from 1`)
  return value
}
const requestsPerSecond = option('rate', 5_000)
const walletCount = option('wallets', 1)
const progress = (line: string) => process.stderr.write(`${line}\n`)

let sandbox: Sandbox | undefined
let stopping = false
/** Idempotent. Before the sandbox is up, exiting is enough: anvil's exit hook kills the chains started. */
const shutdown = (why: string) => {
  if (stopping) return
  stopping = true
  progress(`${why}: stopping the sandbox`)
  if (!sandbox) process.exit(1)
  sandbox
    .stop()
    .then(
      () => progress('sandbox stopped'),
      (error: unknown) => progress(`stopping the sandbox failed: ${String(error)}`),
    )
    .finally(() => process.exit(0))
}
// Taken before any anvil starts, so anvil's own signal hook stays out of the way (its exit hook stays).
process.on('SIGINT', () => shutdown('SIGINT'))
process.on('SIGTERM', () => shutdown('SIGTERM'))
process.stdin.on('end', () => shutdown('stdin closed (the bench is gone)'))
process.stdin.resume()

progress(`starting local chains and the sandbox service (API key: ${requestsPerSecond} requests/s)`)
try {
  sandbox = await startSandbox({
    chains: {
      walletCount,
      onChainReady: (chain) => progress(`chain ${chain.chainId} (${chain.name}) ready at ${chain.rpcUrl}`),
    },
    service: {
      requestsPerSecond,
      logger: { error: (message, error) => progress(`${message}: ${String(error)}`) },
    },
  })
} catch (error) {
  progress(`could not start the sandbox: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
const description = {
  ...describeSandbox(sandbox.local, sandbox.service),
  requestsPerSecond: sandbox.service.credential.requestsPerSecond,
  anvilPids: runningAnvilPids(),
}
process.stdout.write(`${JSON.stringify(description)}\n`)
