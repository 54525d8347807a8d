import {
  type ChainToken,
  type ChainTokensFilters,
  chainTokensMaxPageSize,
  getChainTokens,
  iterateChainTokens,
} from '@stockroute/client/api/actions/getChainTokens.js'
import type { ExchangeCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { plural } from '@stockroute/client/domain/plural.js'
import type { Address } from 'viem'
import { formatFittedTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { serviceClientFromConfig } from '../serviceClient.js'

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
  wide?: boolean
}

/** What `stockroute tokens` runs (its options: ./tokensCommand.ts): one page, or every matching token. */
export async function listTokens(options: TokensOptions) {
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
      formatFittedTable(
        [
          { header: 'TICKER' },
          { header: 'TYPE' },
          { header: 'EXCHANGE' },
          { header: 'DECIMALS', align: 'right' },
          { header: 'LOT', align: 'right' },
          { header: 'SPREAD TABLE', wide: true },
          { header: 'STOCK CODE', wide: true },
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
        { wide: options.wide },
      ),
      '',
      summary,
    ].join('\n')
  })
}
