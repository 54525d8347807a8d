import { readFileSync } from 'node:fs'
import type { ControlTokenSource } from '../../daemon/runtimeFile.js'
import { DaemonClientError } from './daemonClientError.js'

/**
 * The bearer token of the daemon's control API, from where its runtime file says it is: the
 * variable `api.tokenEnv` names (this process's environment first, then the `.env` beside the
 * config, as the daemon reads it), or the token file the daemon generated beside the ledger (mode
 * 0600: readable by the daemon's user only). Throws {@link DaemonClientError}
 * `CONTROL_TOKEN_UNAVAILABLE` saying how to provide it.
 *
 * @example
 * readControlToken({ source: 'env', name: 'STOCKROUTE_API_TOKEN' }, { env: process.env, dotenv: {} })
 */
export function readControlToken(
  source: ControlTokenSource,
  context: {
    env: Readonly<Record<string, string | undefined>>
    dotenv: Readonly<Record<string, string>>
    pid: number
  },
): string {
  if (source.source === 'env') {
    const token = context.env[source.name] || context.dotenv[source.name]
    if (!token)
      throw new DaemonClientError({
        code: 'CONTROL_TOKEN_UNAVAILABLE',
        shortMessage: `The daemon (pid ${context.pid}) takes its control token from ${source.name} (api.tokenEnv), which this shell does not set: set ${source.name} to the daemon's value, in the environment or in the .env beside the config.`,
        details: { tokenEnv: source.name },
      })
    return token
  }
  let text: string
  try {
    text = readFileSync(source.path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new DaemonClientError({
      code: 'CONTROL_TOKEN_UNAVAILABLE',
      shortMessage:
        code === 'EACCES'
          ? `Cannot read the daemon's token file ${source.path} (mode 0600): run the CLI as the user that runs the daemon (pid ${context.pid}).`
          : `Cannot read the daemon's token file ${source.path} (${(error as Error).message}): it is written at each daemon start; restart the daemon (pid ${context.pid}) if it was removed.`,
      details: { path: source.path },
      cause: error,
    })
  }
  const token = text.trim()
  if (!token)
    throw new DaemonClientError({
      code: 'CONTROL_TOKEN_UNAVAILABLE',
      shortMessage: `The daemon's token file ${source.path} is empty: restart the daemon (pid ${context.pid}) to write a new one.`,
      details: { path: source.path },
    })
  return token
}
