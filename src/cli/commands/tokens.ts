import { type Command, InvalidArgumentError } from 'commander'
import { type Address, isAddress } from 'viem'
import {
  type ChainToken,
  type ChainTokensFilters,
  chainTokensMaxPageSize,
  getChainTokens,
  iterateChainTokens,
} from '../../api/actions/getChainTokens.js'
import { type ExchangeCode, isExchangeCode, type TokenKind } from '../../domain/markets.js'
import { plural } from '../../domain/plural.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult, serviceClientFromConfig, withServiceOptions } from '../serviceClient.js'

type TokensOptions = {
  config: string
  json?: boolean
  chain: number
  exchange?: ExchangeCode
  ticker?: string
  type?: TokenKind
  stockCode?: string
  address?: Address
  page?: number
  pageSize?: number
}

/**
 * `stockroute tokens --chain ID [--exchange N] [--ticker T] [--type stock|share] [--stock-code C]
 * [--address 0x…] [--page P] [--page-size S] [--json]`: the chain's active tokens, filtered. With
 * --page or --page-size, that one page; otherwise every matching token (fetched page by page).
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
    .action(async (options: TokensOptions) => {
      const { client } = serviceClientFromConfig(options.config)
      const filters: ChainTokensFilters & { chainId: number } = {
        chainId: options.chain,
        ...(options.exchange === undefined ? {} : { exchangeId: options.exchange }),
        ...(options.ticker === undefined ? {} : { ticker: options.ticker }),
        ...(options.type === undefined ? {} : { tokenType: options.type }),
        ...(options.stockCode === undefined ? {} : { stockCode: options.stockCode }),
        ...(options.address === undefined ? {} : { tokenAddress: options.address }),
      }
      const paged = options.page !== undefined || options.pageSize !== undefined
      const result = await withInterrupt(async (signal) => {
        if (paged)
          return getChainTokens(
            client,
            {
              ...filters,
              ...(options.page === undefined ? {} : { page: options.page }),
              ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
            },
            { signal },
          )
        const tokens: ChainToken[] = []
        for await (const token of iterateChainTokens(
          client,
          { ...filters, pageSize: chainTokensMaxPageSize },
          { signal },
        ))
          tokens.push(token)
        return { chainId: options.chain, tokens, total: tokens.length, pagination: null }
      })
      printResult(options.json, result, () => {
        const { tokens, total, pagination } = result
        const summary = pagination
          ? `page ${pagination.page} of ${pagination.totalPages}: ${tokens.length} of ${plural(total, 'token')} on chain ${result.chainId}`
          : `${total} token${total === 1 ? '' : 's'} on chain ${result.chainId}`
        if (tokens.length === 0) return `no tokens match (${summary})`
        return [
          formatTable(
            [
              { header: 'TICKER' },
              { header: 'TYPE' },
              { header: 'EXCHANGE' },
              { header: 'DECIMALS', align: 'right' },
              { header: 'LOT', align: 'right' },
              { header: 'SPREAD TABLE' },
              { header: 'STOCK CODE' },
              { header: 'NAME' },
              { header: 'ADDRESS' },
              { header: 'UNDERLYING' },
            ],
            tokens.map((token) => [
              token.ticker,
              token.tokenType ?? '-',
              token.exchange,
              String(token.decimals),
              String(token.lotSize),
              token.spreadTableCode,
              token.stockCode ?? '-',
              token.name,
              token.tokenAddress,
              token.underlyingToken ?? '-',
            ]),
          ),
          '',
          summary,
        ].join('\n')
      })
    })
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
  if (!isAddress(text, { strict: false }))
    throw new InvalidArgumentError('must be a 0x address of 40 hex digits')
  return text
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
