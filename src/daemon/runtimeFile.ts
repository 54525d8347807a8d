// The daemon's runtime file: how the CLI finds the daemon that owns a ledger, and how it proves it
// may steer it. It lives beside the ledger, named after it (`<ledger>.runtime.json`), so the live
// ledger and the dry-run ledger of one data folder each have their own, and a CLI that knows the
// ledger path (from the config) knows where to look without any other setting. A generated
// control token lives beside it (`<ledger>.control-token`). Both are mode 0600: whoever can read
// them can trade the wallet through the control API, exactly like whoever can write the ledger.
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { z } from 'zod'
import { isLedgerOwnerAlive, type LedgerOwnerRecord, openLedger, readLedgerOwner } from '../store/index.js'

/** The runtime file of a ledger: `<ledger path>.runtime.json`. */
export const runtimeFilePathOf = (ledgerPath: string) => `${ledgerPath}.runtime.json`

/** The generated control token of a ledger's daemon: `<ledger path>.control-token`. */
export const controlTokenFilePathOf = (ledgerPath: string) => `${ledgerPath}.control-token`

/** Where the daemon's bearer token comes from: never the token itself. */
export type ControlTokenSource = { source: 'env'; name: string } | { source: 'file'; path: string }

const controlTokenSourceSchema = z.discriminatedUnion('source', [
  z.strictObject({ source: z.literal('env'), name: z.string().regex(/^[A-Z_][A-Z0-9_]*$/) }),
  z.strictObject({ source: z.literal('file'), path: z.string().min(1) }),
])

/** The runtime file's contents. */
export const runtimeFileSchema = z.strictObject({
  pid: z.number().int().positive(),
  /** The control API's base URL, e.g. `http://127.0.0.1:41234`. */
  url: z.url({ protocol: /^https?$/ }),
  /** ISO 8601. */
  startedAt: z.iso.datetime(),
  ledgerPath: z.string().min(1),
  token: controlTokenSourceSchema,
})

/** A running daemon as its runtime file describes it. */
export type RuntimeFile = z.output<typeof runtimeFileSchema>

/** Stable codes of {@link RuntimeFileError}. */
export type RuntimeFileErrorCode = 'CONTROL_TOKEN_MISSING' | 'RUNTIME_FILE_WRITE_FAILED'

/**
 * The runtime file or the control token could not be prepared: the variable `api.tokenEnv` names
 * is not set, or the file cannot be written beside the ledger.
 *
 * @example
 * try { prepareControlToken({ ledgerPath, tokenEnv: 'STOCKROUTE_API_TOKEN', env: {} }) }
 * catch (error) { if (error instanceof RuntimeFileError) console.error(error.shortMessage) }
 */
export class RuntimeFileError extends StockrouteError {
  override name = 'RuntimeFileError'
  override readonly code: RuntimeFileErrorCode
  constructor(parameters: {
    code: RuntimeFileErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details?: Readonly<Record<string, unknown>>
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
  }
}

/**
 * Writes `text` to `path` with mode 0600, atomically: a temporary file beside it, then a rename,
 * so a reader sees the old file or the new one, never half of one.
 */
export function writeFileAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    writeFileSync(temporary, text, { mode: 0o600 })
    chmodSync(temporary, 0o600) // the umask may have taken bits away; never more than 0600
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw new RuntimeFileError({
      code: 'RUNTIME_FILE_WRITE_FAILED',
      shortMessage: `Cannot write ${path}: ${(error as Error).message}. Check that the ledger's folder (config dataDir) is writable.`,
      details: { path },
      cause: error,
    })
  }
}

/**
 * The control API's bearer token for a daemon starting on `ledgerPath`. With `tokenEnv` (the
 * config's `api.tokenEnv`): the value of that variable in `env` (the operator's token; a CLI
 * reads it from its own environment or the `.env` beside the config). Without: a new random token
 * (32 bytes, hex) written to `<ledger>.control-token` with mode 0600, replacing the previous run's,
 * so that a token never outlives the daemon run it was made for by more than one start. Call it only
 * once this process owns the ledger (after `openLedger`), or a second daemon that is about to be
 * refused would replace the running one's token.
 *
 * @example
 * const { token, source } = prepareControlToken({ ledgerPath, tokenEnv: settings.api.tokenEnv, env: process.env })
 * // source: { source: 'file', path: '/…/data/stockroute.sqlite.control-token' }
 */
export function prepareControlToken(parameters: {
  ledgerPath: string
  tokenEnv?: string | undefined
  env: Readonly<Record<string, string | undefined>>
}): { token: string; source: ControlTokenSource } {
  const { ledgerPath, tokenEnv, env } = parameters
  if (tokenEnv !== undefined) {
    const token = env[tokenEnv]
    if (!token)
      throw new RuntimeFileError({
        code: 'CONTROL_TOKEN_MISSING',
        shortMessage: `api.tokenEnv names ${tokenEnv}, which is not set: set it in the environment or the .env beside the config, or remove api.tokenEnv to have the daemon generate a token file beside the ledger.`,
        details: { tokenEnv },
      })
    return { token, source: { source: 'env', name: tokenEnv } }
  }
  const path = controlTokenFilePathOf(ledgerPath)
  const token = randomBytes(32).toString('hex')
  writeFileAtomically(path, `${token}\n`)
  return { token, source: { source: 'file', path } }
}

/**
 * Writes the runtime file beside the ledger (`<ledger>.runtime.json`, mode 0600, atomically): call
 * it once the control API listens. Returns the file's path.
 *
 * @example
 * writeRuntimeFile({ ledgerPath, pid: process.pid, url: server.url, startedAt: new Date(startedAt), token: source })
 */
export function writeRuntimeFile(parameters: {
  ledgerPath: string
  pid: number
  url: string
  startedAt: Date
  token: ControlTokenSource
}): string {
  const runtime: RuntimeFile = runtimeFileSchema.parse({
    pid: parameters.pid,
    url: parameters.url,
    startedAt: parameters.startedAt.toISOString(),
    ledgerPath: parameters.ledgerPath,
    token: parameters.token,
  })
  const path = runtimeFilePathOf(parameters.ledgerPath)
  writeFileAtomically(path, `${JSON.stringify(runtime, null, 2)}\n`)
  return path
}

/**
 * Removes the runtime file at a clean stop, and the generated token file with it, if they are the
 * ones process `pid` wrote (a file another daemon has written since is left alone). Never throws: a
 * file left behind names a dead process, which readers take for stale.
 *
 * @example
 * removeRuntimeFile({ ledgerPath, pid: process.pid })
 */
export function removeRuntimeFile(parameters: { ledgerPath: string; pid: number }): void {
  const path = runtimeFilePathOf(parameters.ledgerPath)
  try {
    const parsed = runtimeFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')))
    if (!parsed.success || parsed.data.pid !== parameters.pid) return
    rmSync(path, { force: true })
    if (parsed.data.token.source === 'file') rmSync(parsed.data.token.path, { force: true })
  } catch {
    // Missing or unreadable: nothing of ours to remove.
  }
}

/** What {@link readRuntimeFile} found. */
export type RuntimeFileReading =
  /** A daemon runs and owns the ledger. */
  | { status: 'running'; path: string; runtime: RuntimeFile }
  /** No runtime file: no daemon with a control API runs on this ledger. */
  | { status: 'absent'; path: string }
  /** A file that names no running daemon (killed, or it lost the ledger): no daemon; `why` says so. */
  | { status: 'stale'; path: string; why: string; runtime: RuntimeFile | undefined }

/**
 * Reads the runtime file of `ledgerPath`, validated. It names a running daemon only if its pid
 * runs and is the ledger's owner (the `ledger_owner` row, whose start time tells a reused pid
 * apart); otherwise it is stale (a daemon killed with SIGKILL leaves its file behind) and means "no
 * daemon", with the reason. A stale file is not removed here: the next daemon replaces it.
 *
 * @example
 * const found = readRuntimeFile('/…/data/stockroute.sqlite')
 * if (found.status === 'running') await fetch(`${found.runtime.url}/v1/kill-switch`)
 * else if (found.status === 'stale') console.error(`no daemon: ${found.why}`)
 */
export function readRuntimeFile(ledgerPath: string): RuntimeFileReading {
  const path = runtimeFilePathOf(ledgerPath)
  if (!existsSync(path)) return { status: 'absent', path }
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    return {
      status: 'stale',
      path,
      why: `${path} is not JSON (${(error as Error).message})`,
      runtime: undefined,
    }
  }
  const parsed = runtimeFileSchema.safeParse(json)
  if (!parsed.success)
    return {
      status: 'stale',
      path,
      why: `${path} is not a runtime file (${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ')})`,
      runtime: undefined,
    }
  const runtime = parsed.data
  const why = whyNotRunning(runtime, ledgerPath)
  return why === undefined ? { status: 'running', path, runtime } : { status: 'stale', path, why, runtime }
}

/** Why the daemon a runtime file names does not run (undefined: it runs and owns the ledger). */
function whyNotRunning(runtime: RuntimeFile, ledgerPath: string): string | undefined {
  if (!isPidAlive(runtime.pid)) return `its daemon, pid ${runtime.pid}, is not running (killed or crashed)`
  let owner: LedgerOwnerRecord | undefined
  try {
    const ledger = openLedger({ path: ledgerPath, readonly: true })
    try {
      owner = readLedgerOwner(ledger.database)
    } finally {
      ledger.close()
    }
  } catch (error) {
    return `pid ${runtime.pid} runs, but the ledger cannot be read to confirm it owns it (${(error as Error).message})`
  }
  if (!owner) return `pid ${runtime.pid} runs, but the ledger has no owner: no daemon writes it`
  if (owner.pid !== runtime.pid || owner.host !== hostname())
    return `pid ${runtime.pid} runs, but the ledger's owner is pid ${owner.pid} on ${owner.host} (${owner.command})`
  if (!isLedgerOwnerAlive(owner, { nowMs: Date.now() }))
    return `pid ${runtime.pid} is another process now (the pid was reused): its daemon is gone`
  return undefined
}

/**
 * Whether process `pid` runs on this host (a zombie counts as gone).
 *
 * @example
 * isPidAlive(process.pid) // true
 */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return true // no /proc: trust kill(pid, 0)
  }
}
