import { isIP } from 'node:net'

/**
 * Whether a listen host is a loopback address: `localhost`, any 127.0.0.0/8 address, `::1` (in any
 * spelling), or an IPv4-mapped 127.x address. Other names are not resolved: they count as remote.
 *
 * @example
 * isLoopbackHost('127.0.0.1') // true
 * isLoopbackHost('::1') // true
 * isLoopbackHost('0.0.0.0') // false: every interface
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare.toLowerCase() === 'localhost') return true
  const family = isIP(bare)
  if (family === 4) return bare.startsWith('127.')
  if (family !== 6) return false
  // The URL parser writes an IPv6 address canonically: `::1`, and `::ffff:7f00:1` for ::ffff:127.0.0.1.
  let canonical: string
  try {
    canonical = new URL(`http://[${bare}]/`).hostname
  } catch {
    return false // a zone id (fe80::1%eth0): link-local, not loopback
  }
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical)
}
