import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter } from '../../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'
import { listOwnStock, type Wallet, walletOn } from '../ledger/ledgerFixtures.js'
import { corporateActionCalls } from './corporateActionCalls.js'

// The maker's list of corporate action records (GET /api/v1/maker/corporate-actions/actions) and
// the sandbox trigger's refusal of bad requests. Nothing here executes a quote or processes an
// action: the shared chains serve, with StockTokens of this file's own (listed in its service only,
// so no other file's holders are touched).

const service = useSandboxService({ requestsPerSecond: 10_000 })
const chainA = chainWithRouter
const chainB = chainWithoutRouter
const { trigger, triggered, actionsOf } = corporateActionCalls(service)

describe('GET /api/v1/maker/corporate-actions/actions', () => {
  let holder: Wallet
  const tokens: Address[] = []

  beforeAll(async () => {
    holder = await walletOn(chainA())
    for (const chain of [chainA(), chainA(), chainB()]) {
      const listing = await listOwnStock(service(), chain)
      await walletOn(chain, { privateKey: holder.privateKey, tokens: { [listing.address]: 3n } })
      await triggered({
        chain_id: chain.chainId,
        ticker: listing.ticker,
        exchange: 0,
        action_type: 'stock_split',
        params: { numerator: 2, denominator: 1 },
      })
      tokens.push(listing.address)
    }
  })

  it("returns only the caller's records, newest first, with total_count", async () => {
    const reply = await actionsOf(holder.account.address)
    expect(reply.body.data.total_count).toBe(3)
    expect(reply.body.data.actions.map((a) => a.token_address)).toEqual([...tokens].reverse())
    const stranger = await actionsOf(privateKeyToAddress(generatePrivateKey()))
    expect(stranger.body.data).toEqual({ actions: [], total_count: 0 })
  })

  it('token: one token address, in any letter case', async () => {
    const reply = await actionsOf(holder.account.address, { token: (tokens[1] as string).toLowerCase() })
    expect(reply.body.data.actions.map((a) => a.token_address)).toEqual([tokens[1]])
    expect(reply.body.data.total_count).toBe(1)
  })

  it('chain_id: one chain', async () => {
    const reply = await actionsOf(holder.account.address, { chain_id: chainB().chainId })
    expect(reply.body.data.actions.map((a) => a.token_address)).toEqual([tokens[2]])
  })

  it('page and page_size (default 20): total_count counts every match', async () => {
    const reply = await actionsOf(holder.account.address, { page: 2, page_size: 2 })
    expect(reply.body.data.total_count).toBe(3)
    expect(reply.body.data.actions.map((a) => a.token_address)).toEqual([tokens[0]])
  })

  it('page_size is capped at 100: 101 is a 400 naming the limit', async () => {
    const reply = await actionsOf(holder.account.address, { page_size: 101 })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('100')
  })

  it('bad token address and unknown chain are 400s', async () => {
    expect((await actionsOf(holder.account.address, { token: '0x12' })).status).toBe(400)
    expect((await actionsOf(holder.account.address, { chain_id: 5 })).status).toBe(400)
  })

  it('needs a maker key: 401 without credentials', async () => {
    expect((await apiCall(service(), '/api/v1/maker/corporate-actions/actions')).status).toBe(401)
  })
})

describe('POST /sandbox/v1/corporate-actions rejects bad requests', () => {
  // A token of this file's own: should a check be missing, no other test's token is touched.
  let ticker = ''
  beforeAll(async () => {
    ticker = (await listOwnStock(service(), chainA())).ticker
  })
  const body = (fields: Record<string, unknown>) => ({
    chain_id: chainA().chainId,
    ticker,
    exchange: 0,
    ...fields,
  })

  it.each([
    ['a body that is not JSON', () => '{not json', 400],
    ['an unknown action type', () => body({ action_type: 'merger' }), 400],
    [
      'a split whose ratio does not increase',
      () => body({ action_type: 'stock_split', params: { numerator: 1, denominator: 2 } }),
      400,
    ],
    [
      'a reverse split whose ratio does not decrease',
      () => body({ action_type: 'reverse_stock_split', params: { numerator: 2, denominator: 2 } }),
      400,
    ],
    [
      'a dividend without its dates',
      () => body({ action_type: 'dividend', params: { dividend_per_share: '1', tax_rate: 10 } }),
      400,
    ],
    [
      'a dividend paid before its ex-dividend date',
      () =>
        body({
          action_type: 'dividend',
          params: {
            dividend_per_share: '1',
            tax_rate: 10,
            ex_dividend_date: '2026-03-20',
            dividend_date: '2026-03-02',
          },
        }),
      400,
    ],
    ['an unknown chain', () => body({ chain_id: 1, action_type: 'delisting' }), 400],
    ['an exchange that does not exist', () => body({ exchange: 2, action_type: 'delisting' }), 400],
    ['an unknown ticker', () => body({ ticker: 'NOPE', action_type: 'delisting' }), 404],
  ])('%s', async (_name, makeBody, status) => {
    const reply = await trigger(makeBody())
    expect(reply.status).toBe(status)
    expect(reply.body.code).toBe(status)
    expect(
      service()
        .context.ledger.corporateActions.list()
        .some((a) => a.tokenTicker === ticker),
    ).toBe(false)
  })
})
