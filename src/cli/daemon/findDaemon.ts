import { type RuntimeFile, readRuntimeFile } from '../../daemon/runtimeFile.js'
import { createDaemonClient, type DaemonClient } from './createDaemonClient.js'
import { DaemonClientError } from './daemonClientError.js'
import { readControlToken } from './readControlToken.js'
import type { LedgerTarget } from './readLedgerTarget.js'

/** What {@link findDaemon} found for a ledger. */
export type DaemonLookup =
  | { kind: 'daemon'; client: DaemonClient; runtime: RuntimeFile }
  | {
      kind: 'none'
      ledgerPath: string
      /** Set when a runtime file was there but names no running daemon: why it was ignored. */
      staleNote: string | undefined
    }

/**
 * Finds the daemon that owns the target's ledger, from the runtime file beside it
 * (`<ledger>.runtime.json`, see src/daemon/runtimeFile.ts), and makes a client of its control API
 * with its token (the variable `api.tokenEnv` names, or the token file it generated). A missing or
 * stale runtime file (killed daemon, reused pid) means no daemon: the command may use the ledger
 * directly. Throws {@link DaemonClientError} when a daemon runs but its token cannot be read.
 *
 * @example
 * const found = findDaemon(readLedgerTarget(options.config))
 * if (found.kind === 'daemon') process.stderr.write(`${found.client.via}\n`)
 */
export function findDaemon(
  target: LedgerTarget,
  options: { env?: Readonly<Record<string, string | undefined>> | undefined } = {},
): DaemonLookup {
  const reading = readRuntimeFile(target.ledgerPath)
  if (reading.status === 'absent')
    return { kind: 'none', ledgerPath: target.ledgerPath, staleNote: undefined }
  if (reading.status === 'stale')
    return {
      kind: 'none',
      ledgerPath: target.ledgerPath,
      staleNote: `stale runtime file ${reading.path} ignored: ${reading.why}`,
    }
  const { runtime } = reading
  const token = readControlToken(runtime.token, {
    env: options.env ?? process.env,
    dotenv: target.dotenv,
    pid: runtime.pid,
  })
  const tokenFrom = runtime.token.source === 'env' ? runtime.token.name : runtime.token.path
  return {
    kind: 'daemon',
    client: createDaemonClient({ pid: runtime.pid, url: runtime.url, token, tokenFrom }),
    runtime,
  }
}

/**
 * The daemon's client for a command that needs one (cancel, strategy switches, following events);
 * throws {@link DaemonClientError} `DAEMON_NOT_RUNNING` with `why` and how to start it otherwise.
 *
 * @example
 * const client = requireDaemon(target, 'cancelling an execution')
 */
export function requireDaemon(target: LedgerTarget, what: string, hint?: string): DaemonClient {
  const found = findDaemon(target)
  if (found.kind === 'daemon') return found.client
  throw new DaemonClientError({
    code: 'DAEMON_NOT_RUNNING',
    shortMessage: `${what} needs the running daemon, and none runs on ${target.ledgerPath}${found.staleNote ? ` (${found.staleNote})` : ''}: start it with \`stockroute start --config ${target.configPath}\`${hint ? `, or ${hint}` : ''}.`,
    details: { ledgerPath: target.ledgerPath },
  })
}

/**
 * Prints on stderr which path a command took: through the daemon, or the ledger directly (with a
 * stale runtime file's note).
 *
 * @example
 * announcePath(found) // "via daemon pid 123 at http://127.0.0.1:41234"
 */
export function announcePath(found: DaemonLookup, write: (line: string) => void = stderrLine): void {
  if (found.kind === 'daemon') write(found.client.via)
  else {
    if (found.staleNote) write(found.staleNote)
    write(`no daemon runs: using the ledger ${found.ledgerPath} directly`)
  }
}

function stderrLine(line: string) {
  process.stderr.write(`${line}\n`)
}
