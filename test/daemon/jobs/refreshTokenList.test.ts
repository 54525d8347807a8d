import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { refreshTokenList, type TokenListEntry } from '../../../src/daemon/jobs/refreshTokenList.js'
import { chainWithoutRouter, chainWithRouter, localChains, tokenOf } from '../../helpers/localChains.js'
import { useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

describe('refreshTokenList', () => {
  it('lists every token of each chain with its market rules', async () => {
    const chainIds = localChains().map((chain) => chain.chainId)
    const report = await refreshTokenList({ service: client(), chainIds })
    expect(report.errors).toEqual([])
    expect(report.diffs).toEqual([])
    expect([...report.tokens.keys()]).toEqual(chainIds)
    for (const chain of localChains()) {
      const tokens = report.tokens.get(chain.chainId) ?? []
      expect(tokens.map((token) => token.address).sort()).toEqual(
        chain.tokens.map((token) => token.address).sort(),
      )
      expect(tokens.find((token) => token.ticker === 'AAPL')).toEqual({
        ticker: 'AAPL',
        name: 'Apple Inc.',
        exchange: 'USEX',
        exchangeCode: 0,
        address: tokenOf(chain, 'AAPL'),
        kind: 'stock',
        decimals: 0,
        lotSize: 1n,
        spreadTableCode: '1',
        underlyingToken: null,
      })
      expect(tokens.find((token) => token.ticker === 'AAPLs')).toMatchObject({
        kind: 'share',
        decimals: 18,
        underlyingToken: tokenOf(chain, 'AAPL'),
      })
      expect(tokens.find((token) => token.ticker === '0005')).toMatchObject({
        exchange: 'HKEX',
        exchangeCode: 1,
        lotSize: 400n,
      })
    }
  })

  it('diffs against the previous list: added, removed, renamed (same address) and changed rules', async () => {
    const chainA = chainWithRouter()
    const chainB = chainWithoutRouter()
    const first = await refreshTokenList({ service: client(), chainIds: [chainA.chainId, chainB.chainId] })
    const current = first.tokens.get(chainA.chainId) ?? []
    const byTicker = (ticker: string) => current.find((token) => token.ticker === ticker) as TokenListEntry
    const gone: TokenListEntry = {
      ...byTicker('AAPL'),
      ticker: 'GONE',
      address: `0x${'42'.repeat(20)}` as Address,
    }
    const previous = new Map<number, TokenListEntry[]>([
      [
        chainA.chainId,
        [
          ...current
            .filter((token) => token.ticker !== 'TSLA')
            .map((token) =>
              token.ticker === 'MSFT'
                ? { ...token, ticker: 'MSFT-OLD' }
                : token.ticker === '0005'
                  ? { ...token, lotSize: 500n }
                  : token,
            ),
          gone,
        ],
      ],
    ])
    const report = await refreshTokenList({
      service: client(),
      chainIds: [chainA.chainId, chainB.chainId],
      previous,
    })
    expect(report.diffs).toEqual([
      {
        chainId: chainA.chainId,
        added: [byTicker('TSLA')],
        removed: [gone],
        renamed: [{ address: byTicker('MSFT').address, from: 'MSFT-OLD', to: 'MSFT' }],
        changed: [{ address: byTicker('0005').address, ticker: '0005', fields: ['lotSize'] }],
      },
    ])
    // No previous list for chain B: no diff for it, its list is there.
    expect(report.tokens.get(chainB.chainId)?.length).toBe(chainB.tokens.length)
  })

  it('a chain whose list cannot be read is an error of the report and keeps its previous list', async () => {
    const kept: TokenListEntry[] = []
    const report = await refreshTokenList({
      service: client(),
      chainIds: [999_999],
      previous: new Map([[999_999, kept]]),
    })
    expect(report.errors).toEqual([{ chainId: 999_999, why: expect.any(String) }])
    expect(report.tokens.get(999_999)).toEqual([])
    expect(report.diffs).toEqual([])
  })
})
