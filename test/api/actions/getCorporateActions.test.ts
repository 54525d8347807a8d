import {
  type CorporateActionRecord,
  getCorporateActions,
  iterateCorporateActions,
} from '@stockroute/client/api/actions/getCorporateActions.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError } from '@stockroute/client/api/errors.js'
import { type Address, getAddress, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'
import { listOwnStock, type Wallet, walletOn } from '../../sandbox/service/ledger/ledgerFixtures.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

let holder: Wallet
let ticker: string
let token: Address
const actionIds: Record<'dividend' | 'split' | 'rename', string> = { dividend: '', split: '', rename: '' }

/** Maker by API key + signature with X-Maker-Addr; every request counted on its way to the real fetch. */
function keyClient(maker: Address = holder.account.address) {
  const urls: URL[] = []
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    makerAddress: maker,
    fetch: (input, init) => {
      urls.push(new URL(String(input)))
      return fetch(input, init)
    },
  })
  return { client, urls }
}

async function sandboxAdmin(path: string, body: unknown) {
  const reply = await apiCall(service(), path, { method: 'POST', body })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body.data as { id: string }
}

// A StockToken of this test's own (listed in this service only, so no other file's holders are
// touched), held by one wallet; the sandbox's back office triggers three actions on it: a dividend
// (then processed on chain), a locked 3-for-2 split and a ticker change (left pending).
beforeAll(async () => {
  const chain = chainWithRouter()
  const listing = await listOwnStock(service(), chain)
  ticker = listing.ticker
  // Deployed in the test: the listing keeps the receipt's lowercase address; replies are checksummed.
  token = getAddress(listing.address)
  holder = await walletOn(chain, { tokens: { [token]: 7n } })
  const base = { chain_id: chain.chainId, ticker, exchange: 0 }
  actionIds.dividend = (
    await sandboxAdmin('/sandbox/v1/corporate-actions', {
      ...base,
      action_type: 'dividend',
      params: {
        dividend_per_share: '0.25',
        tax_rate: 15,
        fee_amount: '0.01',
        ex_dividend_date: '2026-03-02',
        dividend_date: '2026-03-16',
      },
    })
  ).id
  await sandboxAdmin(`/sandbox/v1/corporate-actions/${actionIds.dividend}/process`, '')
  actionIds.split = (
    await sandboxAdmin('/sandbox/v1/corporate-actions', {
      ...base,
      action_type: 'stock_split',
      params: { numerator: 3, denominator: 2 },
      lock_tokens: true,
    })
  ).id
  actionIds.rename = (
    await sandboxAdmin('/sandbox/v1/corporate-actions', {
      ...base,
      action_type: 'ticker_change',
      params: { new_ticker: `${ticker}N` },
    })
  ).id
}, 120_000)

/** The holder's record of an action, as the sandbox keeps it. */
function sandboxRecord(actionId: string) {
  const record = service()
    .context.ledger.corporateActions.get(actionId)
    ?.records.find((r) => r.maker.toLowerCase() === holder.account.address.toLowerCase())
  if (!record) throw new Error(`no record of ${actionId} for the holder`)
  return record
}

function byActionType(actions: readonly CorporateActionRecord[]) {
  return Object.fromEntries(actions.map((action) => [action.actionType, action]))
}

describe('getCorporateActions', () => {
  it("returns the holder's records, newest first, with the reference's fields typed", async () => {
    const { actions, totalCount } = await getCorporateActions(keyClient().client, {
      chainId: chainWithRouter().chainId,
    })
    expect(totalCount).toBe(3)
    expect(actions.map((action) => action.id)).toEqual(
      [actionIds.rename, actionIds.split, actionIds.dividend].map((id) => sandboxRecord(id).id),
    )
    const { dividend, stock_split: split, ticker_change: rename } = byActionType(actions)
    const common = {
      maker: holder.account.address,
      chainId: chainWithRouter().chainId,
      tokenAddress: token,
      ticker,
      exchange: 0,
      holdingQty: '7',
    }
    expect(dividend).toEqual({
      ...common,
      id: sandboxRecord(actionIds.dividend).id,
      actionType: 'dividend',
      status: 'processed',
      actionQty: '7',
      compensationQty: null,
      isTokenLocked: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      processedHash: sandboxRecord(actionIds.dividend).processedHash,
      processedAt: expect.any(String),
      remark: null,
      taxRate: '15',
      originalFeeAmount: sandboxRecord(actionIds.dividend).originalFeeAmount,
      originalNetAmount: sandboxRecord(actionIds.dividend).originalNetAmount,
      originalCompensationAmount: sandboxRecord(actionIds.dividend).originalCompensationAmount,
      params: {
        type: 'dividend',
        dividend_per_share: '0.25',
        tax_rate: 15,
        fee_amount: '0.01',
        ex_dividend_date: '2026-03-02',
        dividend_date: '2026-03-16',
        distribution_plan: 'cash',
      },
      dividend: {
        dividendPerShare: '0.25',
        taxRate: 15,
        feeAmount: '0.01',
        exDividendDate: '2026-03-02',
        dividendDate: '2026-03-16',
        distributionPlan: 'cash',
      },
    })
    expect(dividend?.processedHash).toMatch(/^0x[0-9a-f]{64}$/)
    // 7 × 3/2 = 10.5: the holder keeps 10 and half a share is compensated; the token is locked meanwhile.
    expect(split).toMatchObject({
      ...common,
      status: 'triggered',
      actionQty: '10',
      isTokenLocked: true,
      processedHash: null,
      processedAt: null,
      dividend: null,
      params: { type: 'stock_split', numerator: 3, denominator: 2 },
    })
    expect(rename).toMatchObject({
      ...common,
      status: 'triggered',
      actionQty: '7',
      isTokenLocked: false,
      params: { type: 'ticker_change', old_ticker: ticker, new_ticker: `${ticker}N` },
    })
  })

  it('matches the raw reply record for record', async () => {
    const reply = await apiCall(service(), '/api/v1/maker/corporate-actions/actions', {
      credential: service().credential,
      makerAddress: holder.account.address,
    })
    const { actions, totalCount } = await getCorporateActions(keyClient().client)
    expect(totalCount).toBe(reply.body.data.total_count)
    expect(
      actions.map((a) => ({
        id: a.id,
        maker: a.maker,
        chain_id: a.chainId,
        holding_qty: a.holdingQty,
        action_qty: a.actionQty,
        compensation_qty: a.compensationQty,
        status: a.status,
        is_token_locked: a.isTokenLocked,
        created_at: a.createdAt,
        updated_at: a.updatedAt,
        processed_hash: a.processedHash,
        processed_at: a.processedAt,
        remark: a.remark,
        tax_rate: a.taxRate,
        original_fee_amount: a.originalFeeAmount,
        original_net_amount: a.originalNetAmount,
        original_compensation_amount: a.originalCompensationAmount,
        token_address: a.tokenAddress,
        action_type: a.actionType,
        params: a.params,
        ticker: a.ticker,
        exchange: a.exchange,
      })),
    ).toEqual(
      (reply.body.data.actions as Record<string, string>[]).map((raw) => ({
        ...raw,
        token_address: getAddress(raw.token_address ?? ''),
      })),
    )
  })

  it('by wallet JWT: the same records as by API key', async () => {
    const client = createServiceClient({
      baseUrl: service().url,
      wallet: { account: holder.account, chainId: chainWithRouter().chainId },
    })
    expect(await getCorporateActions(client)).toEqual(await getCorporateActions(keyClient().client))
    expect(client.session?.loginCount()).toBe(1)
  })

  it('filters by token; a maker holding nothing has no records', async () => {
    const { client, urls } = keyClient()
    expect((await getCorporateActions(client, { token })).totalCount).toBe(3)
    expect((await getCorporateActions(client, { token: zeroAddress })).actions).toEqual([])
    expect(urls[0]?.searchParams.get('token')).toBe(token)
    const stranger = privateKeyToAccount(generatePrivateKey()).address
    expect(await getCorporateActions(keyClient(stranger).client)).toEqual({ actions: [], totalCount: 0 })
  })

  it('an API key without a maker address is refused', async () => {
    const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
    await expect(getCorporateActions(client)).rejects.toBeInstanceOf(ServiceAuthError)
  })
})

describe('iterateCorporateActions', () => {
  it('yields every record exactly once across pages of 1, then stops', async () => {
    const { client, urls } = keyClient()
    const seen: CorporateActionRecord[] = []
    for await (const action of iterateCorporateActions(client, { pageSize: 1 })) seen.push(action)
    expect(seen.map((action) => action.id)).toEqual(
      (await getCorporateActions(keyClient().client)).actions.map((action) => action.id),
    )
    expect(new Set(seen.map((action) => action.id)).size).toBe(3)
    expect(urls.map((url) => [url.searchParams.get('page'), url.searchParams.get('page_size')])).toEqual([
      ['1', '1'],
      ['2', '1'],
      ['3', '1'],
    ])
  })

  it('pages of 2 end on the short last page', async () => {
    const { client, urls } = keyClient()
    const seen: string[] = []
    for await (const action of iterateCorporateActions(client, { pageSize: 2, token })) seen.push(action.id)
    expect(seen).toHaveLength(3)
    expect(urls).toHaveLength(2)
  })
})
