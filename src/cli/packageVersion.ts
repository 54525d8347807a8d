import { readFileSync } from 'node:fs'

/**
 * The version in stockroute's package.json, for `stockroute --version`.
 *
 * @example
 * packageVersion() // '0.1.0'
 */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
  const { version } = JSON.parse(text) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}
