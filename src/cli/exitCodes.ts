// The one table of the CLI's exit codes (docs/cli.md prints it; test/docs checks they agree). Every
// command ends through `main`, which turns what ended it into one of these: a script can tell "fix
// the command line" from "fix the config", "not there", "refused", "try again later" and "a bug".

import { wrapText } from '../report/render/wrapText.js'

/** Every exit code of `stockroute`, by what it means ({@link exitCodeMeanings} says it in words). */
export const exitCodes = {
  ok: 0,
  internal: 1,
  usage: 2,
  config: 3,
  notFound: 4,
  refused: 5,
  unreachable: 6,
  ledger: 7,
  interrupted: 130,
} as const

/** What each exit code means, as `stockroute --help` and docs/cli.md say it. */
export const exitCodeMeanings: Readonly<Record<keyof typeof exitCodes, string>> = {
  ok: 'done: the command did what it was asked',
  internal: 'an unexpected error, a bug: the message says what; please report it',
  usage: 'the command line cannot be run as written: unknown command or option, bad or missing value',
  config: 'the config is missing, not JSON or invalid, a secret is missing, or a key or token is refused',
  notFound: 'what the command names does not exist: an execution, a chain, a ticker, a strategy, a ledger',
  refused:
    'a rule said no or the order did not complete: a lot, tick or price rule, a risk limit, the kill switch, the daemon or service refusing it, a swap rejected, expired or failed',
  unreachable:
    "the service, a chain or the daemon did not answer, an embedded config's sandbox is not running, or a doctor check failed: try again once it runs",
  ledger:
    'the ledger cannot be used: the file is not a stockroute ledger, another daemon holds it, a newer stockroute wrote it, or the disk failed',
  interrupted: 'stopped by Ctrl-C (128 + SIGINT)',
}

/**
 * The exit codes as lines of help text, each meaning wrapped to 80 columns under its code.
 *
 * @example
 * exitCodesHelp()[0] // '  0    done: the command did what it was asked'
 */
export function exitCodesHelp(): string[] {
  const indent = ' '.repeat(7)
  return Object.entries(exitCodes).flatMap(([name, code]) =>
    wrapText(exitCodeMeanings[name as ExitCategory], 80 - indent.length).map((line, index) =>
      index === 0 ? `  ${String(code).padEnd(4)} ${line}` : `${indent}${line}`,
    ),
  )
}

/** A kind of ending, named by {@link exitCodes}. */
export type ExitCategory = keyof typeof exitCodes

// Errors are told apart by their class name and code, not `instanceof`: importing every error class
// here would load the engine, the store and the chain code for `--version`.

/** Categories by the error's class (`error.name`). */
export const exitCategoryOfClass: Readonly<Record<string, ExitCategory>> = {
  CommanderError: 'usage',
  InvalidArgumentError: 'usage',
  ReportUsageError: 'usage',
  RouterQuoteParameterError: 'usage',
  ChainInputError: 'usage',
  ConfigError: 'config',
  StrategyConfigError: 'config',
  NotificationConfigError: 'config',
  ControlServerError: 'config',
  ServiceAuthError: 'config',
  LoginError: 'config',
  ServiceNotFoundError: 'notFound',
  DomainRuleError: 'refused',
  IntentIdReusedError: 'refused',
  ServiceBadRequestError: 'refused',
  ServiceHttpError: 'refused',
  ServiceTransportError: 'unreachable',
  ServiceUnreachableError: 'unreachable',
  ServiceTimeoutError: 'unreachable',
  ServiceUnavailableError: 'unreachable',
  ServiceRateLimitError: 'unreachable',
  ServiceResponseError: 'unreachable',
  RouterQuoteEncodingError: 'unreachable',
  ChainRpcError: 'unreachable',
}

/** Categories by the error's `code`, for classes that hold codes of several categories (and plain errors). */
export const exitCategoryOfCode: Readonly<Record<string, ExitCategory>> = {
  // EngineError
  INVALID_INTENT: 'refused',
  UNKNOWN_CHAIN: 'notFound',
  UNKNOWN_WALLET: 'notFound',
  EXECUTION_NOT_FOUND: 'notFound',
  ENGINE_SETUP_FAILED: 'config',
  // LedgerError
  LEDGER_NOT_FOUND: 'notFound',
  LEDGER_OPEN_FAILED: 'ledger',
  LEDGER_NOT_STOCKROUTE: 'ledger',
  LEDGER_TOO_NEW: 'ledger',
  LEDGER_SCHEMA_MISMATCH: 'ledger',
  LEDGER_NEEDS_MIGRATION: 'ledger',
  LEDGER_MIGRATION_FAILED: 'ledger',
  LEDGER_IN_USE: 'ledger',
  // PositionError
  NO_POSITION: 'notFound',
  // DaemonClientError
  DAEMON_NOT_RUNNING: 'unreachable',
  DAEMON_NOT_ANSWERING: 'unreachable',
  DAEMON_TIMEOUT: 'unreachable',
  CONTROL_TOKEN_UNAVAILABLE: 'config',
  DAEMON_UNAUTHORIZED: 'config',
  DAEMON_REFUSED: 'refused',
  // RuntimeFileError
  CONTROL_TOKEN_MISSING: 'config',
  RUNTIME_FILE_WRITE_FAILED: 'ledger',
  // TransactionManagerError: the ledger's disk failed under it.
  STORAGE_FAULT: 'ledger',
  // A command line the CLI refuses after parsing it (`market --info` for usex, report filters).
  INVALID_OPTIONS: 'usage',
  // An embedded config whose sandbox is not running (src/daemon/embeddedConnection.ts).
  SANDBOX_NOT_RUNNING: 'unreachable',
  // ClusterError: the cluster's Redis does not answer (`stockroute cluster status`, a daemon joining).
  REDIS_UNREACHABLE: 'unreachable',
}

/** Commander's codes of a help or version it printed on request: not a failure. */
const commanderDoneCodes: ReadonlySet<string> = new Set(['commander.helpDisplayed', 'commander.version'])

/**
 * What an error that ends a command means, as an exit category (its number: {@link exitCodes}).
 * The class decides when all its errors are of one kind (a `ConfigError` is `config`); else the
 * code (an `EngineError` may be `refused` or `notFound`), with the status the daemon answered
 * (404 is "not found"); anything else is `internal`.
 *
 * @example
 * exitCategoryOf(new ConfigError('config file not found: x.json')) // 'config'
 * exitCategoryOf(new Error('boom')) // 'internal'
 */
export function exitCategoryOf(error: unknown): ExitCategory {
  if (!(error instanceof Error)) return 'internal'
  const { code, status } = error as { code?: unknown; status?: unknown }
  if (error.name === 'CommanderError' && typeof code === 'string' && commanderDoneCodes.has(code)) return 'ok'
  if (isInterruption(error)) return 'interrupted'
  if (code === 'DAEMON_REFUSED' && status === 404) return 'notFound'
  if (code === 'DAEMON_REFUSED' && status === 401) return 'config'
  const byCode = typeof code === 'string' ? exitCategoryOfCode[code] : undefined
  return exitCategoryOfClass[error.name] ?? byCode ?? 'internal'
}

/**
 * The exit code of an error that ends a command.
 *
 * @example
 * exitCodeOf(new ConfigError('config file not found: x.json')) // 3
 */
export function exitCodeOf(error: unknown): number {
  return exitCodes[exitCategoryOf(error)]
}

/** Whether `error` is the abort of a Ctrl-C (src/cli/interrupt.ts aborts with "interrupted"). */
function isInterruption(error: Error): boolean {
  if (error.message === 'interrupted') return true
  return error.name === 'AbortError' && (error.cause as Error | undefined)?.message === 'interrupted'
}
