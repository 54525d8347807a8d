import { InvalidArgumentError } from 'commander'

/**
 * Commander parser for a strategy id option: printable ASCII without spaces, as ids are in the config.
 *
 * @example
 * parseStrategyOption('dca-aapl') // 'dca-aapl'
 */
export function parseStrategyOption(text: string): string {
  if (!/^[\x21-\x7e]{1,100}$/.test(text))
    throw new InvalidArgumentError('must be a strategy id as in the config')
  return text
}
