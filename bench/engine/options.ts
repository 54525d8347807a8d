// bench:engine's command line: the options of its scenarios, checked before anything starts.
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'

export type EngineBenchOptions = ReturnType<typeof parseEngineBenchOptions>

/** The command line, as a bad option's error shows it. */
export const engineBenchUsage = `npm run bench:engine [-- --json] [--scenarios sequential,latency,memory] [--trades 200]
     [--warmup 2] [--concurrent 40] [--rounds 1] [--wallets 4] [--max-quotes-in-flight 4]
     [--max-inclusion-delay-ms 150] [--keep-ledgers] [--latency-intents 500]
     [--memory-executions 10000] [--wal-checkpoints background|inline] [--ledger-dir DIR] [--no-disk-probe]`

/**
 * The options of `npm run bench:engine -- …` (each in docs/performance.md), with their
 * defaults; a bad value throws naming the option.
 *
 * @example
 * const options = parseEngineBenchOptions(['--scenarios', 'sequential', '--rounds', '3'])
 */
export function parseEngineBenchOptions(args: readonly string[]) {
  try {
    return parseOptions(args)
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nusage: ${engineBenchUsage}`)
  }
}

/** {@link parseEngineBenchOptions} for the command line: a bad option prints its message and the usage, and exits 2. */
export function engineBenchOptionsOrExit(args: readonly string[]): EngineBenchOptions {
  try {
    return parseEngineBenchOptions(args)
  } catch (error) {
    process.stderr.write(`bench:engine: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  }
}

/** The value of `--name` in `args`, a whole number from 1 to `max`; `fallback` when absent. Throws naming the option. */
export function wholeNumberOption(
  args: readonly string[],
  name: string,
  fallback: number,
  max: number,
): number {
  const at = args.indexOf(`--${name}`)
  if (at < 0) return fallback
  const value = Number(args[at + 1])
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`--${name} must be a whole number from 1 to ${max}`)
  return value
}

function parseOptions(args: readonly string[]) {
  const json = args.includes('--json')
  const number = (name: string, fallback: number, max: number) => wholeNumberOption(args, name, fallback, max)
  // 200 a chain: one disk stall of a few hundred ms among 40 moved a chain's mean by a third.
  const trades = number('trades', 200, 1_000)
  const warmup = number('warmup', 2, 50)
  const concurrent = number('concurrent', 40, 1_000)
  /** Bursts of `concurrent` per ratio, the bare path's and the engine's taking turns: one burst is a noisy measure. */
  const rounds = number('rounds', 1, 20)
  const wallets = number('wallets', 4, 32)
  /** The engine's execution.maxQuotesInFlight; unset: the engine's default. */
  const maxQuotesInFlight = args.includes('--max-quotes-in-flight')
    ? number('max-quotes-in-flight', 4, 1_000)
    : undefined
  /** The engine's execution.maxInclusionDelayMs (0: inclusions never wait for held quotes); unset: the engine's default. */
  const inclusionDelayAt = args.indexOf('--max-inclusion-delay-ms')
  const maxInclusionDelayMs = inclusionDelayAt < 0 ? undefined : Number(args[inclusionDelayAt + 1])
  if (
    maxInclusionDelayMs !== undefined &&
    !(Number.isInteger(maxInclusionDelayMs) && maxInclusionDelayMs >= 0)
  )
    throw new Error('--max-inclusion-delay-ms must be a whole number of ms, 0 or more')
  const latencyIntents = number('latency-intents', 500, 5_000)
  /** The ledgers' WAL checkpoints: in a worker thread (the default) or inside commits (SQLite's own). */
  const walCheckpointsAt = args.indexOf('--wal-checkpoints')
  const walCheckpoints = walCheckpointsAt < 0 ? 'background' : args[walCheckpointsAt + 1]
  if (walCheckpoints !== 'background' && walCheckpoints !== 'inline')
    throw new Error('--wal-checkpoints must be background or inline')
  const memoryExecutions = number('memory-executions', 10_000, 100_000)
  const scenarioAt = args.indexOf('--scenarios')
  const scenarios = new Set(
    (scenarioAt >= 0 ? (args[scenarioAt + 1] ?? '') : 'sequential,latency,memory').split(','),
  )
  for (const scenario of scenarios)
    if (!['sequential', 'latency', 'memory'].includes(scenario))
      throw new Error(`--scenarios: unknown scenario ${scenario}; use sequential, latency, memory`)
  /** Where the engines' ledger files go (default the OS temp folder): the disk's fsync is in every commit. */
  const ledgerDirAt = args.indexOf('--ledger-dir')
  const ledgerParent = ledgerDirAt < 0 ? tmpdir() : args[ledgerDirAt + 1]
  if (!ledgerParent || !existsSync(ledgerParent))
    throw new Error(`--ledger-dir: ${ledgerParent ?? '(missing)'} is not an existing folder`)

  return {
    json,
    trades,
    warmup,
    concurrent,
    rounds,
    wallets,
    /** The engine's settings these options set (the rest are the engine's defaults). */
    engineSettings: {
      ...(maxQuotesInFlight === undefined ? {} : { maxQuotesInFlight }),
      ...(maxInclusionDelayMs === undefined ? {} : { maxInclusionDelayMs }),
    },
    latencyIntents,
    // Checked above: one of the two.
    walCheckpoints: walCheckpoints as 'background' | 'inline',
    memoryExecutions,
    scenarios,
    ledgerParent,
    keepLedgers: args.includes('--keep-ledgers'),
    diskProbe: !args.includes('--no-disk-probe'),
  }
}
