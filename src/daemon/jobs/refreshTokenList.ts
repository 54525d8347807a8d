import { iterateChainTokens } from '@stockroute/client/api/actions/getChainTokens.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { tokenKindOfTicker } from '@stockroute/client/api/tokenQuantity.js'
import { type ExchangeCode, exchangeNames, type TokenKind } from '@stockroute/client/domain/markets.js'
import type { Address } from 'viem'
import { getAddress } from 'viem'
import { type JobLogger, messageOf } from './jobTypes.js'

// Cron job: every chain's token list, with what changed since the last run (for the logs, and for
// whoever caches instruments: a renamed token keeps its address, a delisted one leaves the list).

/** One token of a chain's list, as the daemon keeps it. */
export type TokenListEntry = {
  ticker: string
  name: string
  /** Exchange name as the list shows it (`USEX`, `HKEX`, `KREX`). */
  exchange: string
  /** The exchange's code (0, 1, 3), null for a name this build does not know. */
  exchangeCode: ExchangeCode | null
  address: Address
  /** `stock` (whole shares) or `share` (1e18 units); from the ticker when the list does not say. */
  kind: TokenKind
  decimals: number
  /** Board lot in whole shares. */
  lotSize: bigint
  spreadTableCode: string
  /** The StockToken a ShareToken stands for; null for a StockToken. */
  underlyingToken: Address | null
}

/** What changed in one chain's list since the previous one (tokens matched by address). */
export type TokenListDiff = {
  chainId: number
  added: TokenListEntry[]
  removed: TokenListEntry[]
  renamed: { address: Address; from: string; to: string }[]
  /** Same address and ticker, other rules: lot size, spread table, kind, decimals, exchange, underlying. */
  changed: { address: Address; ticker: string; fields: (keyof TokenListEntry)[] }[]
}

export type RefreshTokenListParameters = {
  service: ServiceClient
  chainIds: readonly number[]
  /** The lists of the previous run: a diff is computed for each chain found here. */
  previous?: ReadonlyMap<number, readonly TokenListEntry[]> | undefined
  logger?: JobLogger | undefined
  signal?: AbortSignal | undefined
}

export type RefreshTokenListReport = {
  /**
   * chain id → its tokens, sorted by ticker. A chain whose list could not be read keeps its
   * previous list (when given), so one failed run does not look like every token delisted.
   */
  tokens: Map<number, TokenListEntry[]>
  /** One per chain read that had a previous list (empty lists of changes included). */
  diffs: TokenListDiff[]
  /** Chains whose list could not be read. */
  errors: { chainId: number; why: string }[]
}

const exchangeCodeOfName = new Map<string, ExchangeCode>(
  Object.entries(exchangeNames).map(([code, name]) => [name, Number(code) as ExchangeCode]),
)

const comparedFields = [
  'name',
  'exchange',
  'exchangeCode',
  'kind',
  'decimals',
  'lotSize',
  'spreadTableCode',
  'underlyingToken',
] as const satisfies readonly (keyof TokenListEntry)[]

/**
 * Reads every token of each chain (all pages of GET /api/v1/chains/{chain_id}/tokens) and returns
 * them by chain, with a diff against `previous`: tokens added, removed, renamed (same address, new
 * ticker) and changed. Never throws for one chain: a chain that cannot be read goes to `errors`.
 *
 * @example
 * let lists = new Map()
 * const { tokens, diffs } = await refreshTokenList({ service, chainIds: [31337, 31338], previous: lists })
 * for (const diff of diffs) if (diff.renamed.length > 0) logger.info(diff, 'tokens renamed')
 * lists = tokens
 */
export async function refreshTokenList(
  parameters: RefreshTokenListParameters,
): Promise<RefreshTokenListReport> {
  const { service, chainIds, previous, logger, signal } = parameters
  const report: RefreshTokenListReport = { tokens: new Map(), diffs: [], errors: [] }
  for (const chainId of chainIds) {
    signal?.throwIfAborted()
    const entries: TokenListEntry[] = []
    try {
      for await (const token of iterateChainTokens(service, { chainId }, signal ? { signal } : {}))
        entries.push({
          ticker: token.ticker,
          name: token.name,
          exchange: token.exchange,
          exchangeCode: exchangeCodeOfName.get(token.exchange.toUpperCase()) ?? null,
          address: getAddress(token.tokenAddress),
          kind: token.tokenType ?? tokenKindOfTicker(token.ticker),
          decimals: token.decimals,
          lotSize: token.lotSize,
          spreadTableCode: token.spreadTableCode,
          underlyingToken: token.underlyingToken ? getAddress(token.underlyingToken) : null,
        })
    } catch (error) {
      signal?.throwIfAborted()
      const why = messageOf(error)
      report.errors.push({ chainId, why })
      logger?.warn({ chainId, err: why }, 'token list: cannot read the tokens of a chain')
      const kept = previous?.get(chainId)
      if (kept) report.tokens.set(chainId, [...kept])
      continue
    }
    entries.sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0))
    report.tokens.set(chainId, entries)
    const before = previous?.get(chainId)
    if (!before) {
      logger?.info({ chainId, tokens: entries.length }, 'token list loaded')
      continue
    }
    const diff = diffTokenLists(chainId, before, entries)
    report.diffs.push(diff)
    if (diff.added.length + diff.removed.length + diff.renamed.length + diff.changed.length > 0)
      logger?.info(
        {
          chainId,
          added: diff.added.map((token) => `${token.ticker} ${token.address}`),
          removed: diff.removed.map((token) => `${token.ticker} ${token.address}`),
          renamed: diff.renamed.map((token) => `${token.from} → ${token.to} ${token.address}`),
          changed: diff.changed.map((token) => `${token.ticker}: ${token.fields.join(', ')}`),
        },
        'token list changed',
      )
  }
  return report
}

/**
 * What changed from `before` to `after` (tokens matched by address, in any letter case).
 *
 * @example
 * diffTokenLists(31337, lastList, newList).renamed // [{ address, from: 'FB', to: 'META' }]
 */
export function diffTokenLists(
  chainId: number,
  before: readonly TokenListEntry[],
  after: readonly TokenListEntry[],
): TokenListDiff {
  const key = (token: TokenListEntry) => token.address.toLowerCase()
  const old = new Map(before.map((token) => [key(token), token]))
  const now = new Map(after.map((token) => [key(token), token]))
  const diff: TokenListDiff = { chainId, added: [], removed: [], renamed: [], changed: [] }
  for (const [address, token] of now) {
    const was = old.get(address)
    if (!was) {
      diff.added.push(token)
      continue
    }
    if (was.ticker !== token.ticker)
      diff.renamed.push({ address: token.address, from: was.ticker, to: token.ticker })
    const fields = comparedFields.filter((field) => was[field] !== token[field])
    if (fields.length > 0) diff.changed.push({ address: token.address, ticker: token.ticker, fields })
  }
  for (const [address, token] of old) if (!now.has(address)) diff.removed.push(token)
  return diff
}
