// bench:cli — how long the CLI takes to answer: `node -e ''` (plain node, the floor), `stockroute
// --version`, `stockroute config check --config config/default.json` and `stockroute report summary`
// on a ledger of the demo, each as a new process (`node bin/stockroute.js …`: whatever that runs,
// tsx over src/ or the built dist/), one warm-up each, then --runs rounds taking turns so that a
// drift of the machine's speed hits every command alike. Prints the median and p90 of each, and
// their ratios to plain node, beside the targets ("A package people install": --version
// ≤ 2 × plain node; config check and report summary ≤ 0.5 s median, on the built CLI).
// The ledger of the demo is made as a user gets one: config/default.json copied to a temp folder
// (its data there), `stockroute start --config <it> --duration 15`; the folder is removed at the end.
// Run: npm run bench:cli [-- --runs 10] [-- --json]  (npm run -s for the JSON alone on stdout)
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch, cpus, platform, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { percentile, printTable } from './engine/report.js'

const usage = 'usage: npm run bench:cli -- [--runs N] [--json]'
const repoRoot = join(import.meta.dirname, '..')
const stockrouteBin = join(repoRoot, 'bin', 'stockroute.js')
/** How long the demo daemon trades to fill the ledger, seconds. */
const demoSeconds = 15
/** The targets, on the built CLI. */
const targets = { versionRatio: 2, medianMs: 500 } as const

type Measured = {
  name: string
  argv: string[]
  samplesMs: number[]
  medianMs: number
  p90Ms: number
  /** Median over plain node's median; p90 over plain node's p90. */
  medianRatio: number
  p90Ratio: number
  target: string
  met: boolean | null
}

const options = (() => {
  try {
    return parseOptions(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`bench:cli: ${error instanceof Error ? error.message : String(error)}\n${usage}\n`)
    process.exit(2)
  }
})()
const progress = (message: string) => process.stderr.write(`[bench:cli] ${message}\n`)

/** Children still running, by pid: stopped (by pid) if the bench is interrupted or fails. */
const running = new Map<number, ChildProcess>()
const dir = mkdtempSync(join(tmpdir(), 'stockroute-bench-cli-'))
/** Stops the children still running (the demo daemon stops its chains on SIGTERM), then removes the folder. */
const cleanUp = async () => {
  const exits = [...running].map(([pid, child]) => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    killPid(pid)
    return Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000).unref())])
  })
  await Promise.all(exits)
  rmSync(dir, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`bench:cli: ${signal}, stopping\n`)
    void cleanUp().finally(() => process.exit(130))
  })

try {
  const configPath = writeDemoConfig(dir)
  progress(`making a demo ledger: stockroute start --config ${configPath} --duration ${demoSeconds}`)
  const started = await run(['start', '--config', configPath, '--duration', String(demoSeconds)])
  if (started.code !== 0)
    throw new Error(`stockroute start exited with ${started.code}:\n${started.stderr.slice(-2000)}`)
  const ledger = ledgerCounts(
    (await run(['report', 'summary', '--json', '--config', configPath], { stdout: true })).stdout,
  )
  if (ledger.fills === 0)
    throw new Error(`the demo ledger has no fill after ${demoSeconds} s of trading: nothing to report on`)
  progress(`ledger: ${ledger.executions} executions, ${ledger.fills} fills`)

  const commands: { name: string; argv: string[]; stockroute: boolean }[] = [
    { name: "node -e ''", argv: ['-e', ''], stockroute: false },
    { name: 'stockroute --version', argv: ['--version'], stockroute: true },
    {
      name: 'stockroute config check --config config/default.json',
      argv: ['config', 'check', '--config', join(repoRoot, 'config', 'default.json')],
      stockroute: true,
    },
    {
      name: 'stockroute report summary (demo ledger)',
      argv: ['report', 'summary', '--config', configPath],
      stockroute: true,
    },
  ]
  const argvOf = (command: (typeof commands)[number]) =>
    command.stockroute ? [stockrouteBin, ...command.argv] : command.argv
  progress(`one warm-up each, then ${options.runs} rounds of the ${commands.length} commands in turn`)
  for (const command of commands) await timed(argvOf(command))
  const samples = commands.map((): number[] => [])
  for (let round = 0; round < options.runs; round++)
    for (const [index, command] of commands.entries()) samples[index]?.push(await timed(argvOf(command)))

  const [nodeSamples = []] = samples
  const nodeMedian = median(nodeSamples)
  const nodeP90 = percentile(nodeSamples, 90)
  const measured: Measured[] = commands.map((command, index) => {
    const values = samples[index] ?? []
    const medianMs = median(values)
    const medianRatio = medianMs / nodeMedian
    const [target, met] =
      index === 0
        ? ['', null]
        : command.argv[0] === '--version'
          ? [`≤ ${targets.versionRatio} × node`, medianRatio <= targets.versionRatio]
          : [`≤ ${targets.medianMs} ms median`, medianMs <= targets.medianMs]
    return {
      name: command.name,
      argv: argvOf(command),
      samplesMs: values.map(tenths),
      medianMs: tenths(medianMs),
      p90Ms: tenths(percentile(values, 90)),
      medianRatio: hundredths(medianRatio),
      p90Ratio: hundredths(percentile(values, 90) / nodeP90),
      target,
      met,
    }
  })
  const report = {
    host: hostLine(),
    stockroute: `node ${stockrouteBin} (${binRunner()})`,
    runs: options.runs,
    warmup: 1,
    ledger: { ...ledger, demoSeconds },
    targets: { versionRatioToNode: targets.versionRatio, configCheckAndReportMedianMs: targets.medianMs },
    commands: measured,
  }
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`)
  else printReport(report)
} finally {
  await cleanUp()
}

function printReport(report: {
  host: string
  stockroute: string
  ledger: { executions: number; fills: number }
  commands: Measured[]
}) {
  console.log(`host: ${report.host}`)
  console.log(`stockroute: ${report.stockroute}`)
  console.log(
    `each a new process, ${options.runs} runs after 1 warm-up, in turns; report summary on a demo ledger of ${report.ledger.executions} executions and ${report.ledger.fills} fills`,
  )
  console.log('')
  const ms = (value: number) => value.toFixed(0)
  const ratio = (value: number) => `${value.toFixed(2)} ×`
  printTable(
    ['command', 'median ms', 'p90 ms', 'median / node', 'p90 / node', 'target (built CLI)', 'met'],
    report.commands.map((command) => [
      command.name,
      ms(command.medianMs),
      ms(command.p90Ms),
      ratio(command.medianRatio),
      ratio(command.p90Ratio),
      command.target,
      command.met === null ? '' : command.met ? 'yes' : 'no',
    ]),
  )
}

/** config/default.json (the embedded demo) with its data in `folder`, as a user copies it. */
function writeDemoConfig(folder: string): string {
  const config = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8')) as object
  const path = join(folder, 'stockroute.json')
  writeFileSync(path, `${JSON.stringify({ ...config, dataDir: 'data' }, null, 2)}\n`)
  return path
}

/** Executions and fills of the ledger, from `report summary --json` (its `run` table). */
function ledgerCounts(json: string): { executions: number; fills: number } {
  const report = JSON.parse(json) as { tables: { key: string; rows: Record<string, unknown>[] }[] }
  const row = report.tables.find((table) => table.key === 'run')?.rows[0]
  return { executions: Number(row?.executions ?? 0), fills: Number(row?.fills ?? 0) }
}

/** Runs `stockroute …` to its end, its stderr (and stdout if asked) kept. */
function run(
  args: readonly string[],
  keep: { stdout?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnTracked([stockrouteBin, ...args], ['ignore', keep.stdout ? 'pipe' : 'ignore', 'pipe'])
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Wall time of one process from spawn to exit, ms; a failure (exit code not 0) stops the bench. */
function timed(args: readonly string[]): Promise<number> {
  const started = performance.now()
  const child = spawnTracked(args, ['ignore', 'ignore', 'pipe'])
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      const elapsed = performance.now() - started
      if (code === 0) resolve(elapsed)
      else reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${stderr.slice(-2000)}`))
    })
  })
}

function spawnTracked(args: readonly string[], stdio: ('ignore' | 'pipe')[]): ChildProcess {
  const child = spawn(process.execPath, [...args], { cwd: dir, stdio })
  const { pid } = child
  if (pid !== undefined) {
    running.set(pid, child)
    child.once('exit', () => running.delete(pid))
  }
  return child
}

function killPid(pid: number) {
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    // Gone already.
  }
}

function tenths(value: number): number {
  return Math.round(value * 10) / 10
}

function hundredths(value: number): number {
  return Math.round(value * 100) / 100
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2
}

/** What bin/stockroute.js runs: the TypeScript sources through tsx, or the built JavaScript. */
function binRunner(): string {
  const text = readFileSync(stockrouteBin, 'utf8')
  if (text.includes('dist/')) return 'built JavaScript, dist/'
  return text.includes('tsx') ? 'tsx over src/' : 'see bin/stockroute.js'
}

function hostLine() {
  return `${platform()} ${arch()}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}`
}

function parseOptions(argv: readonly string[]): { runs: number; json: boolean } {
  let runs = 10
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] as string
    const [name, inline] = argument.startsWith('--runs=')
      ? ['--runs', argument.slice(7)]
      : [argument, undefined]
    if (name === '--json') json = true
    else if (name === '--runs') {
      const text = inline ?? argv[++i]
      if (text === undefined || !/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 1000)
        throw new Error(
          `--runs needs a whole number from 1 to 1000 (the runs per command), not "${text ?? ''}"`,
        )
      runs = Number(text)
    } else if (name === '--help' || name === '-h') {
      process.stdout.write(`${usage}\n`)
      process.exit(0)
    } else throw new Error(`unknown option "${argument}"`)
  }
  return { runs, json }
}
