import { InvalidArgumentError } from 'commander'

/** Commander parser for a TCP port option. */
export function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535')
  }
  return Number(text)
}

/** Commander parser for a positive whole number. */
export function parsePositiveInteger(text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0)
    throw new InvalidArgumentError('must be a positive whole number')
  return Number(text)
}
