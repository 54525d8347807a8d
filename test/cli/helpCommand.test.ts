import { type Command, CommanderError } from 'commander'
import { describe, expect, it } from 'vitest'
import { commandPathOf, commandsBelow } from '../../src/cli/commandExamples.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { buildProgram } from '../../src/cli/main.js'
import { runStockroute } from '../helpers/processes.js'

// Every command's --help, and what a mistyped flag gets. The help of each command is rendered in
// process (the program as main.ts builds it, commander's exit turned into an exception), so that
// the whole tree is walked without spawning a process per command; one spawn checks the real CLI.

/** Runs `stockroute <args>` in process: what it wrote and the exit code commander chose. */
function runInProcess(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const program = buildProgram()
  let stdout = ''
  let stderr = ''
  for (const command of [program, ...commandsBelow(program)]) {
    command.exitOverride()
    command.configureOutput({
      writeOut: (text) => {
        stdout += text
      },
      writeErr: (text) => {
        stderr += text
      },
    })
  }
  try {
    program.parse(['node', 'stockroute', ...args])
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error
    return { code: error.exitCode, stdout, stderr }
  }
  throw new Error(`stockroute ${args.join(' ')} did not exit`)
}

const paths = commandsBelow(buildProgram()).map((command: Command) => commandPathOf(command))

describe('stockroute <command> --help', () => {
  it('walks the whole tree: every command and subcommand', () => {
    expect(paths).toEqual(
      expect.arrayContaining([
        'swap',
        'config check',
        'executions show',
        'executions cancel',
        'strategies enable',
      ]),
    )
    expect(paths.length).toBeGreaterThanOrEqual(20)
  })

  it.each(paths)('%s: exits 0 and shows examples that run stockroute', (path) => {
    const run = runInProcess([...path.split(' '), '--help'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(`Usage: stockroute ${path} `)
    const examples = run.stdout.split('\nExamples:\n')[1]
    expect(examples, run.stdout).toBeDefined()
    const lines = (examples ?? '').split('\n').filter((line) => line.trim() !== '')
    expect(lines.length).toBeGreaterThan(0)
    // Each example runs this very command (a parent's may run its subcommands).
    for (const line of lines) expect(line).toMatch(new RegExp(`^  \\$ stockroute ${path}( |$)`))
  })

  it('the real CLI prints them too', async () => {
    const run = await runStockroute(['executions', 'cancel', '--help'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(
      /\nExamples:\n {2}\$ stockroute executions cancel 1 --config \S+ --reason "price moved"\n/,
    )
  })
})

describe('a mistyped flag', () => {
  it('suggests the right one, even when a required option is missing because of it', async () => {
    // --ticker is required by quote: commander used to report only "required option '--ticker <ticker>'".
    const run = await runStockroute(['quote', '--chain', '31337', '--tiker', 'AAPL'])
    expect(run.code).toBe(exitCodes.usage)
    expect(run.stderr).toBe("error: unknown option '--tiker'\n(Did you mean --ticker?)\n")
  })

  it('on subcommands, and in the --flag=value form', () => {
    expect(runInProcess(['executions', 'show', '1', '--confg', 'x'])).toMatchObject({
      code: 1,
      stderr: "error: unknown option '--confg'\n(Did you mean --config?)\n",
    })
    expect(runInProcess(['swap', '--chain', '1', '--amount-typ=stocktoken']).stderr).toBe(
      "error: unknown option '--amount-typ'\n(Did you mean --amount-type?)\n",
    )
    expect(runInProcess(['strategies', 'disable', 'x', '--reasn', 'y']).stderr).toContain(
      '(Did you mean --reason?)',
    )
  })

  it('a missing required option alone is still reported as such', () => {
    const run = runInProcess(['quote', '--chain', '1', '--ticker', 'A', '--exchange', '0', '--side', 'buy'])
    expect(run).toMatchObject({
      code: 1,
      stderr: "error: required option '--amount <amount>' not specified\n",
    })
  })
})
