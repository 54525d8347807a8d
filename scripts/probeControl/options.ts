// probe:control's command line: which daemon to probe (a URL and token, a config whose running
// daemon the runtime file names, or one the probe starts itself), checked before anything is sent.

export const probeUsage = `npm run probe:control -- (--url http://127.0.0.1:PORT --token TOKEN | --config FILE | --start)
     [--json] [--time-limit SECONDS] [--warmup SECONDS]`

/** At most this many requests in a whole run, whatever the categories plan: the probe is bounded. */
export const maxProbeRequests = 3_000

/** Which daemon the probe talks to. */
export type ProbeTarget =
  /** A daemon given by its control URL and bearer token. */
  | { kind: 'url'; url: string; token: string }
  /** The daemon running on a configuration's ledger, found as the CLI finds it (its runtime file). */
  | { kind: 'config'; configPath: string }
  /** An embedded demo daemon the probe starts in a folder of its own, and stops by its pid at the end. */
  | { kind: 'start' }

export type ProbeOptions = {
  target: ProbeTarget
  json: boolean
  /** The whole run's time limit, s: what is not done by then is reported as not held. */
  timeLimitSeconds: number
  /** With `--start`: how long the demo trades before the probe begins, s (its reads then read executions). */
  warmupSeconds: number
}

const valueOptions = ['--url', '--token', '--config', '--time-limit', '--warmup'] as const
const flagOptions = ['--json', '--start'] as const

/**
 * The options of `npm run probe:control -- …`; a bad value throws naming the option, with the usage.
 * A URL that is not loopback (127.0.0.1 or [::1]) is refused: the probe sends hostile requests and
 * bursts, never to another machine.
 *
 * @example
 * parseProbeOptions(['--url', 'http://127.0.0.1:8787', '--token', 't0k3n', '--json'])
 * // { target: { kind: 'url', url: 'http://127.0.0.1:8787', token: 't0k3n' }, json: true, timeLimitSeconds: 180, warmupSeconds: 0 }
 */
export function parseProbeOptions(args: readonly string[]): ProbeOptions {
  try {
    return parseOptions(args)
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nusage: ${probeUsage}`)
  }
}

function parseOptions(args: readonly string[]): ProbeOptions {
  const values = new Map<string, string>()
  const flags = new Set<string>()
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? ''
    if ((flagOptions as readonly string[]).includes(arg)) flags.add(arg)
    else if ((valueOptions as readonly string[]).includes(arg)) {
      const value = args[index + 1]
      if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value`)
      if (values.has(arg)) throw new Error(`${arg} is given twice`)
      values.set(arg, value)
      index += 1
    } else throw new Error(`unknown option ${arg}`)
  }
  const url = values.get('--url')
  const token = values.get('--token')
  const configPath = values.get('--config')
  const start = flags.has('--start')
  const chosen = [url !== undefined || token !== undefined, configPath !== undefined, start].filter(Boolean)
  if (chosen.length !== 1)
    throw new Error(
      'name one daemon: --url with --token, or --config FILE, or --start (a demo daemon of its own)',
    )
  let target: ProbeTarget
  if (configPath !== undefined) target = { kind: 'config', configPath }
  else if (start) target = { kind: 'start' }
  else {
    if (url === undefined || token === undefined) throw new Error('--url and --token go together')
    target = { kind: 'url', url: loopbackUrl(url), token }
  }
  if (!start && values.has('--warmup')) throw new Error('--warmup applies to --start only')
  return {
    target,
    json: flags.has('--json'),
    timeLimitSeconds: wholeNumber(values.get('--time-limit'), '--time-limit', 180, 10, 900),
    warmupSeconds: wholeNumber(values.get('--warmup'), '--warmup', start ? 30 : 0, 0, 600),
  }
}

/**
 * `url` as the probe's base URL (no trailing slash), or throws when it is not http on a loopback
 * address: 127.0.0.1 or [::1] (not `localhost`, which a hosts file may point elsewhere).
 *
 * @example
 * loopbackUrl('http://127.0.0.1:8787/') // 'http://127.0.0.1:8787'
 * loopbackUrl('http://10.0.0.5:8787') // throws: the probe talks to loopback only
 */
export function loopbackUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`--url ${url} is not a URL: give the daemon's control URL, e.g. http://127.0.0.1:8787`)
  }
  if (parsed.protocol !== 'http:')
    throw new Error(
      `--url ${url}: the daemon's control API is plain http on loopback, e.g. http://127.0.0.1:8787`,
    )
  if (parsed.hostname !== '127.0.0.1' && parsed.hostname !== '[::1]')
    throw new Error(
      `--url ${url} is not on 127.0.0.1 or [::1]: the probe sends hostile requests and bursts, to a daemon on this machine's loopback only`,
    )
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.username !== '' || parsed.password !== '')
    throw new Error(
      `--url ${url}: give the base URL only (scheme, host and port), e.g. http://127.0.0.1:8787`,
    )
  return parsed.origin
}

function wholeNumber(
  text: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`)
  return value
}
