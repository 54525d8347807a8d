import type { Command } from 'commander'

// Examples shown at the end of each command's --help, by command path (subcommands after their
// parent, space-separated). Kept here rather than in each command file so that they read as one
// tour of the CLI. `./sbx/stockroute.json` is what `stockroute sandbox --write-config ./sbx`
// writes; chains 31337 and 31338 and the tickers are the sandbox's.

const sbx = '--config ./sbx/stockroute.json'

/** Example command lines, by command path (e.g. `executions cancel`). */
export const commandExamples: Readonly<Record<string, readonly string[]>> = {
  start: [
    'stockroute start                                   # the embedded demo: sandbox, chains and daemon in one process',
    `stockroute start ${sbx} --duration 60`,
  ],
  sandbox: [
    'stockroute sandbox --write-config ./sbx            # then use --config ./sbx/stockroute.json elsewhere',
    'stockroute sandbox --port 43121 --json',
  ],
  'local-chains': ['stockroute local-chains', 'stockroute local-chains --json'],
  config: [`stockroute config check ${sbx}`],
  'config check': [
    `stockroute config check ${sbx}`,
    'stockroute config check --config config/default.json --json',
    `stockroute config check ${sbx} --no-service      # lots and ticks not checked`,
  ],
  doctor: [`stockroute doctor ${sbx}`, `stockroute doctor ${sbx} --json --timeout 2000`],
  chains: [`stockroute chains ${sbx}`, `stockroute chains ${sbx} --json`],
  tokens: [
    `stockroute tokens ${sbx} --chain 31337`,
    `stockroute tokens ${sbx} --chain 31338 --exchange 1 --type stock`,
  ],
  market: [
    `stockroute market ${sbx} --market usex --symbols AAPL,TSLA`,
    `stockroute market ${sbx} --market hkex --symbols 0700,9988 --info`,
  ],
  quote: [
    `stockroute quote ${sbx} --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000`,
    `stockroute quote ${sbx} --chain 31338 --ticker 0700 --exchange 1 --side buy --amount 100 --amount-type stocktoken`,
  ],
  swap: [
    `stockroute swap ${sbx} --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000`,
    `stockroute swap ${sbx} --chain 31337 --ticker AAPL --exchange 0 --side sell --amount 2 --limit-price 200 --dry-run`,
  ],
  halt: [`stockroute halt ${sbx} --reason "unexpected fills"`],
  resume: [`stockroute resume ${sbx} --reason "fills reconciled"`],
  executions: [
    `stockroute executions ${sbx}`,
    `stockroute executions ${sbx} --state failed,expired --since 6h --limit 20`,
  ],
  'executions show': [`stockroute executions show 1 ${sbx}`, `stockroute executions show 1 ${sbx} --json`],
  'executions cancel': [`stockroute executions cancel 1 ${sbx} --reason "price moved"`],
  positions: [`stockroute positions ${sbx}`, `stockroute positions ${sbx} --chain 31337 --json`],
  strategies: [
    'stockroute strategies --config config/default.json',
    'stockroute strategies disable dca-aapl-alpha --config config/default.json',
  ],
  'strategies enable': [
    'stockroute strategies enable dca-aapl-alpha --config config/default.json --reason "earnings are out"',
  ],
  'strategies disable': [
    'stockroute strategies disable dca-aapl-alpha --config config/default.json --reason "earnings today"',
  ],
  events: [
    `stockroute events ${sbx} --kinds fill,halt --limit 20`,
    `stockroute events ${sbx} --follow --json`,
  ],
  cluster: ['stockroute cluster status --config ./desk-a/stockroute.json'],
  'cluster status': [
    'stockroute cluster status --config ./desk-a/stockroute.json   # a daemon config with a cluster section',
    'stockroute cluster status --config ./desk-a/stockroute.json --json',
    'stockroute cluster status --config ./desk-a/stockroute.json --wide',
  ],
  report: [
    `stockroute report summary ${sbx}`,
    `stockroute report pnl ${sbx} --since 2d --csv pnl.csv`,
    `stockroute report executions ${sbx} --strategy dca-aapl-alpha --html executions.html`,
    'stockroute report pnl --ledger eu/data/stockroute.sqlite --ledger us/data/stockroute.sqlite   # one report over two daemons',
  ],
}

/** The path of `command` below the program, e.g. `executions cancel`. */
export function commandPathOf(command: Command): string {
  const names: string[] = []
  for (let current: Command | null = command; current?.parent; current = current.parent)
    names.unshift(current.name())
  return names.join(' ')
}

/** Every command below `program`, depth first (each before its subcommands). */
export function commandsBelow(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...commandsBelow(command)])
}

/**
 * Adds an `Examples:` section to the end of the help of every command below `program` that has
 * examples in {@link commandExamples}; returns the paths of those that have none (a test keeps it empty).
 *
 * @example
 * const missing = addCommandExamples(program) // []
 */
export function addCommandExamples(program: Command): string[] {
  const missing: string[] = []
  for (const command of commandsBelow(program)) {
    const path = commandPathOf(command)
    const examples = commandExamples[path]
    if (!examples || examples.length === 0) {
      missing.push(path)
      continue
    }
    command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}`)
  }
  return missing
}
