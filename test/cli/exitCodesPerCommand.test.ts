import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandsBelow } from '../../src/cli/commandExamples.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { buildProgram } from '../../src/cli/main.js'
import { openLedger } from '../../src/store/index.js'
import { repoRoot, runStockroute } from '../helpers/processes.js'

// Every command of the built CLI ends with the code of docs/cli.md's table for the same fault: an
// unknown option, a config that is not there, an embedded config whose sandbox is not running, and
// what the command names not being there. No daemon runs here (see embeddedConfigCommands.test.ts
// for the commands against a running one, and swapCommand / daemonCommands / doctorCommandFailures
// for refusals and failed checks).

const folder = mkdtempSync(join(tmpdir(), 'stockroute-exit-codes-cli-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The demo's config, its data in this test's folder: an embedded config no daemon runs. */
const embeddedConfig = join(folder, 'demo.json')
const missingConfig = join(folder, 'nowhere.json')

/** The operands and required options each command needs to get as far as its config. */
const minimalArgs: Readonly<Record<string, readonly string[]>> = {
  tokens: ['--chain', '31337'],
  market: ['--market', 'usex', '--symbols', 'AAPL'],
  quote: ['--chain', '31337', '--ticker', 'AAPL', '--exchange', '0', '--side', 'buy', '--amount', '10'],
  swap: ['--chain', '31337', '--ticker', 'AAPL', '--exchange', '0', '--side', 'buy', '--amount', '10'],
  'executions show': ['9999'],
  'executions cancel': ['9999'],
  'strategies enable': ['dca-aapl-alpha'],
  'strategies disable': ['dca-aapl-alpha'],
  report: ['summary'],
}

/** Every command of the program, as the words that run it, with whether it takes --config. */
const commands = commandsBelow(buildProgram())
  .filter(
    (command) =>
      command.commands.length === 0 || command.name() === 'executions' || command.name() === 'strategies',
  )
  .map((command) => {
    const words: string[] = []
    for (let at: typeof command | null = command; at?.parent; at = at.parent) words.unshift(at.name())
    return { path: words.join(' '), words, takesConfig: command.options.some((o) => o.long === '--config') }
  })

const run = (path: string, words: readonly string[], extra: readonly string[]) =>
  runStockroute([...words, ...(minimalArgs[path] ?? []), ...extra], { cwd: folder })

beforeAll(() => {
  const demo = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8'))
  writeFileSync(embeddedConfig, JSON.stringify({ ...demo, dataDir: 'data' }))
})

// Each case is a process of its own, mostly waiting: they run side by side (5 at a time).
describe.concurrent('the exit codes of every command', () => {
  it('lists the commands it checks', () => {
    expect(commands.map((command) => command.path)).toEqual(
      expect.arrayContaining([
        'start',
        'quote',
        'swap',
        'executions show',
        'report',
        'config check',
        'cluster status',
      ]),
    )
  })

  it.each(commands.map((command) => [command.path, command] as const))(
    '%s: an unknown option exits 2 (usage), before anything runs',
    async (path, command) => {
      const result = await run(path, command.words, ['--no-such-option'])
      expect(result.stderr).toContain("unknown option '--no-such-option'")
      expect(result.code).toBe(exitCodes.usage)
    },
  )

  it.each(commands.filter((c) => c.takesConfig).map((command) => [command.path, command] as const))(
    '%s: a config that is not there exits 3 (config)',
    async (path, command) => {
      const result = await run(path, command.words, ['--config', missingConfig])
      // doctor prints it as its failed `config` check, on stdout; the others as an error, on stderr.
      expect(`${result.stdout}${result.stderr}`).toContain(`config file not found: ${missingConfig}`)
      expect(result.code).toBe(exitCodes.config)
    },
  )

  it.each(['chains', 'tokens', 'market', 'quote', 'swap', 'doctor'])(
    '%s: an embedded config whose sandbox is not running exits 6 (unreachable), saying how to start it',
    async (path) => {
      const result = await run(path, [path], ['--config', embeddedConfig])
      expect(`${result.stdout}${result.stderr}`).toContain('runs an embedded sandbox, and none is running')
      expect(`${result.stdout}${result.stderr}`).toContain('stockroute start --config')
      expect(result.code).toBe(exitCodes.unreachable)
    },
  )

  describe('what a command names is not there: exit 4 (not found)', () => {
    it.each(['positions', 'executions', 'executions show', 'events', 'report'])(
      '%s: no ledger yet',
      async (path) => {
        const result = await run(path, path.split(' '), ['--config', embeddedConfig])
        expect(result.stderr).toContain('LEDGER_NOT_FOUND')
        expect(result.code).toBe(exitCodes.notFound)
      },
    )

    it('executions show: no such execution in the ledger', async () => {
      const withLedger = join(folder, 'with-ledger.json')
      const demo = JSON.parse(readFileSync(embeddedConfig, 'utf8'))
      writeFileSync(withLedger, JSON.stringify({ ...demo, dataDir: 'ledger' }))
      openLedger({ path: join(folder, 'ledger', 'stockroute.sqlite') }).close()
      const result = await run('executions show', ['executions', 'show'], ['--config', withLedger])
      expect(result.stderr).toContain('EXECUTION_NOT_FOUND')
      expect(result.code).toBe(exitCodes.notFound)
    })
  })

  it('steering a daemon that is not running exits 6 (unreachable)', async () => {
    for (const path of ['executions cancel', 'strategies enable']) {
      const result = await run(path, path.split(' '), ['--config', embeddedConfig])
      expect(result.stderr, path).toContain('DAEMON_NOT_RUNNING')
      expect(result.code, path).toBe(exitCodes.unreachable)
    }
  })
})
