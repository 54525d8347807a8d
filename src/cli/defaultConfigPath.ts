import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'

/** The demo's configuration (config/default.json): what `stockroute start` runs without --config. */
export const demoConfigPath = join(import.meta.dirname, '..', '..', 'config', 'default.json')

/** The configuration a command uses without --config, in the current folder, when there is one. */
export const localConfigName = 'stockroute.json'

/**
 * The help of a command's `--config`: what it is for, then the default every command shares.
 *
 * @example
 * command.option('--config <file>', configHelp('the config whose ledger to read'))
 */
export function configHelp(what: string): string {
  return `${what} (default: ./${localConfigName}, else the demo's config/default.json)`
}

/**
 * The configuration a command uses when none is given: ./stockroute.json when the current folder
 * has one, else the demo's, so that `stockroute positions` after `npm start` reads the demo's
 * ledger instead of failing on a file the demo never wrote.
 *
 * @example
 * defaultConfigPath() // '/srv/desk/stockroute.json', or '/…/stockroute/config/default.json'
 */
export function defaultConfigPath(): string {
  const local = resolve(localConfigName)
  return existsSync(local) ? local : demoConfigPath
}

/**
 * Fills in `--config` of the command about to run when it was not given ({@link defaultConfigPath}),
 * and says so on stderr when it falls back to the demo's. One hook on the program, so that every
 * command's default is the same.
 *
 * @example
 * program.hook('preAction', fillDefaultConfig)
 */
export function fillDefaultConfig(_program: Command, command: Command): void {
  const hasConfig = command.options.some((option) => option.long === '--config')
  if (!hasConfig || command.getOptionValue('config') !== undefined) return
  const path = defaultConfigPath()
  if (path === demoConfigPath && command.name() !== 'start')
    process.stderr.write(`(no ./${localConfigName} here: using the demo's config ${path})\n`)
  command.setOptionValue('config', path)
}
