import { join } from 'node:path'
import { printable } from '@stockroute/client/domain/printable.js'
import pino, { type Logger } from 'pino'
import pretty from 'pino-pretty'
import { makeOwnerOnlyFolder, ownerOnlyFileMode, tightenToOwnerOnly } from '../store/ownerOnlyFiles.js'

/** Where secrets could sit in a log line's fields: they are replaced by `[redacted]`. */
export const redactedPaths = [
  'privateKey',
  '*.privateKey',
  'extraWalletKeys',
  '*.extraWalletKeys',
  'apiSecret',
  '*.apiSecret',
  'apiKey',
  '*.apiKey',
  'jwt',
  '*.jwt',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'secrets',
  '*.secrets',
  'bearerToken',
  '*.bearerToken',
]

export type CreateDaemonLoggerParameters = {
  /** The log file is `dataDir/stockroute.log` (JSON lines, appended; mode 0600, the folder made 0700 when missing). */
  dataDir: string
  /** Default `info`. */
  level?: pino.Level | undefined
  /** Also print logs of `prettyLevel` and above to stderr, formatted for people. Default: when stderr is a TTY. */
  pretty?: boolean | undefined
  /** Default `warn`: the terminal shows problems; the file has everything. */
  prettyLevel?: pino.Level | undefined
}

/**
 * The daemon's logger: JSON lines to `data/stockroute.log`, and pretty lines on stderr when it is
 * a terminal (each message shown as data: control characters escaped). Secrets are redacted by
 * field name wherever they appear. Bind `chainId`, `executionId`, `quoteId`, `txHash` with
 * `logger.child({...})`.
 *
 * @example
 * const logger = createDaemonLogger({ dataDir: config.dataDir })
 * logger.child({ chainId: 31337 }).info({ txHash }, 'execute broadcast')
 */
export function createDaemonLogger(parameters: CreateDaemonLoggerParameters): {
  logger: Logger
  path: string
  flush(): void
} {
  const {
    dataDir,
    level = 'info',
    pretty: usePretty = process.stderr.isTTY === true,
    prettyLevel = 'warn',
  } = parameters
  // Owner-only, like the ledger: the log holds the trading history (src/store/ownerOnlyFiles.ts).
  makeOwnerOnlyFolder(dataDir)
  const path = join(dataDir, 'stockroute.log')
  tightenToOwnerOnly(path)
  const file = pino.destination({ dest: path, append: true, sync: false, mode: ownerOnlyFileMode })
  const streams: pino.StreamEntry[] = [{ level, stream: file }]
  if (usePretty)
    streams.push({
      level: prettyLevel,
      // The message shown as data (its fields are printed as JSON, escaped already): a value a
      // request or the service put in it never starts a line of its own on the terminal.
      stream: pretty({
        destination: 2,
        colorize: true,
        sync: true,
        messageFormat: (log, messageKey) => printable(log[messageKey] ?? ''),
      }),
    })
  const logger = pino(
    { level, redact: { paths: redactedPaths, censor: '[redacted]' }, base: { pid: process.pid } },
    pino.multistream(streams),
  )
  return {
    logger,
    path,
    flush: () => {
      // Throws while the file is still opening (nothing written yet): nothing to flush then.
      try {
        file.flushSync()
      } catch {}
    },
  }
}
