import { chainTokensMaxPageSize } from '@stockroute/client/api/chainTokensPageSize.js'
import { type ExchangeCode, isExchangeCode, type TokenKind } from '@stockroute/client/domain/markets.js'
import { type Command, InvalidArgumentError } from 'commander'
import type { Address } from 'viem'
import { lazyAction } from '../lazyAction.js'
import { wideOptionHelp, withServiceOptions } from '../options.js'

/**
 * `stockroute tokens --chain ID [--exchange N] [--ticker T] [--type stock|share] [--stock-code C]
 * [--address 0x…] [--page P] [--page-size S] [--json]`: the chain's active tokens, filtered. With
 * --page or --page-size, that one page; otherwise every matching token (fetched page by page).
 * The service client is loaded only when the command runs (./tokensAction.ts).
 *
 * @example
 * registerTokensCommand(program)
 * // stockroute tokens --chain 31337 --exchange 1
 */
export function registerTokensCommand(program: Command) {
  withServiceOptions(
    program
      .command('tokens')
      .description("list a chain's active tokens, sorted by ticker (GET /api/v1/chains/{chain_id}/tokens)"),
  )
    .requiredOption('--chain <id>', 'chain id (list them with `stockroute chains`)', parseChainId)
    .option('--exchange <code>', 'exchange code: 0 (US), 1 (HK) or 3 (KR)', parseExchange)
    .option('--ticker <ticker>', 'exact ticker, case-sensitive (AAPL; AAPLs is its ShareToken)', parseText)
    .option(
      '--type <type>',
      'stock (StockTokens, 0 decimals) or share (ShareTokens, 18 decimals)',
      parseTokenType,
    )
    .option('--stock-code <code>', 'exact stock code (e.g. 00700)', parseText)
    .option('--address <address>', 'exact token address', parseAddress)
    .option('--page <n>', 'page number, from 1 (one page only; default page size 100)', parsePage)
    .option('--page-size <n>', `tokens per page, 1 to ${chainTokensMaxPageSize}`, parsePageSize)
    .option('--wide', wideOptionHelp)
    .action(lazyAction(() => import('./tokensAction.js'), 'listTokens'))
}

function wholeNumber(text: string, problem: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new InvalidArgumentError(problem)
  return Number(text)
}

function parseChainId(text: string): number {
  return wholeNumber(text, 'must be a chain id, a whole number such as 31337 (see `stockroute chains`)')
}

function parseExchange(text: string): ExchangeCode {
  const value = /^\d$/.test(text) ? Number(text) : Number.NaN
  if (!isExchangeCode(value))
    throw new InvalidArgumentError('must be an exchange code: 0 (US), 1 (HK) or 3 (KR)')
  return value
}

function parseTokenType(text: string): TokenKind {
  if (text !== 'stock' && text !== 'share') throw new InvalidArgumentError('must be stock or share')
  return text
}

function parseText(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('must not be empty')
  return text
}

function parseAddress(text: string): Address {
  // What viem's isAddress(text, { strict: false }) checks: the checksum is not required.
  if (!/^0x[0-9a-fA-F]{40}$/.test(text))
    throw new InvalidArgumentError('must be a 0x address of 40 hex digits')
  return text as Address
}

function parsePage(text: string): number {
  const page = wholeNumber(text, 'must be a page number, 1 or more')
  if (page < 1) throw new InvalidArgumentError('must be a page number, 1 or more')
  return page
}

function parsePageSize(text: string): number {
  const problem = `must be a whole number from 1 to ${chainTokensMaxPageSize}`
  const size = wholeNumber(text, problem)
  if (size < 1 || size > chainTokensMaxPageSize) throw new InvalidArgumentError(problem)
  return size
}
