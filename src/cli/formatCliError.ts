import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { printable } from '@stockroute/client/domain/printable.js'

/**
 * What the CLI prints on stderr for an error that ends a command (no trailing newline). A
 * stockroute error prints its code and short message, its meta messages indented by two spaces,
 * and `fix: <remedy>` when it has one; any other error prints `stockroute: <message>`. Neither
 * prints a stack, `details` or the cause: what is printed is only what the error's message says,
 * whose authors keep secrets out of it (variable names, never their values). Other characters a
 * terminal would act on (CR, ESC…) are escaped (`printable`); the message's own line breaks stay.
 *
 * @example
 * formatCliError(configFileNotFound('/srv/stockroute.json'))
 * // error CONFIG_INVALID: config file not found: /srv/stockroute.json
 * //   pass --config FILE (the default is ./stockroute.json, else the demo's config/default.json). To make one:
 * //   …
 * // fix: pass --config with the path of an existing stockroute.json, or make one as above (…)
 */
export function formatCliError(error: unknown): string {
  if (!(error instanceof StockrouteError))
    return shown(`stockroute: ${error instanceof Error ? error.message : String(error)}`)
  const lines = [`error ${error.code}: ${error.shortMessage}`]
  for (const meta of error.metaMessages)
    for (const line of meta.split('\n'))
      if (line.trim() !== '') lines.push(/^\s/.test(line) ? line : `  ${line}`)
  if (error.remedy) lines.push(`fix: ${error.remedy}`)
  return shown(lines.join('\n'))
}

/**
 * The message as data, its own line breaks kept: every other character a terminal would act on
 * (CR, ESC, bidirectional overrides…) escaped by `printable`, whatever a service or the daemon put
 * in it.
 */
function shown(text: string): string {
  return text.split('\n').map(printable).join('\n')
}
