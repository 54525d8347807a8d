import type Database from 'better-sqlite3'
import type { ReportFilter } from '../types.js'

/**
 * The tokens a ticker filter selects, as a predicate on (chain, token address): every token whose
 * position carries the ticker now or carried it before a ticker change (`position_renames`), so
 * that `--ticker OLD` and `--ticker NEW` both find a renamed holding with its whole history.
 * Undefined when the filter names no ticker (every token is in scope).
 *
 * @example
 * const inScope = tokenScope(ledger.database, { ticker: 'AAPL' })
 * inScope?.(31337, '0xAbc…') // true when that token is or was AAPL
 */
export function tokenScope(
  database: Database.Database,
  filter: Pick<ReportFilter, 'ticker' | 'chainId'>,
): ((chainId: number, tokenAddress: string) => boolean) | undefined {
  if (filter.ticker === undefined) return undefined
  const keys = new Set(
    tokensOfTicker(database, filter.ticker).map((row) => `${row.chain_id}:${row.token_address}`),
  )
  return (chainId, tokenAddress) => keys.has(`${chainId}:${tokenAddress}`)
}

/**
 * The tokens that carry `ticker` now or carried it before a ticker change.
 *
 * @example
 * tokensOfTicker(ledger.database, 'AAPL') // [{ chain_id: 31337, token_address: '0xAbc…' }]
 */
export function tokensOfTicker(
  database: Database.Database,
  ticker: string,
): { chain_id: number; token_address: string }[] {
  return database
    .prepare<{ ticker: string }, { chain_id: number; token_address: string }>(
      `SELECT chain_id, token_address FROM positions WHERE ticker = @ticker
       UNION SELECT chain_id, token_address FROM position_renames WHERE from_ticker = @ticker OR to_ticker = @ticker`,
    )
    .all({ ticker })
}
