import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reconcilePositions } from '../../../src/daemon/jobs/reconcilePositions.js'
import { syncCorporateActions } from '../../../src/daemon/jobs/syncCorporateActions.js'
import { createEngine, type Engine } from '../../../src/engine/index.js'
import { type Ledger, openLedger } from '../../../src/store/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../../helpers/engine.js'
import { clientsFor, fundAddress, tokenOf } from '../../helpers/localChains.js'
import { apiCall } from '../../helpers/sandboxService.js'
import { usePrivateChains } from '../../sandbox/service/ledger/ledgerFixtures.js'

// Corporate actions change a token for every holder on its chain, so this file runs on two chains
// of its own (and a sandbox service on them): splits, dividends, ticker changes and delistings here
// never touch a token another test file trades, whatever ticker they use.
const privateChains = usePrivateChains({
  chainIds: [43_137, 43_138],
  catalogueTickers: ['NVDA', 'MSFT', 'AMZN', '9988'],
})
const chainA = () => privateChains().withRouter // router, 6-decimal asset
const chainB = () => privateChains().withoutRouter // settlement, 18-decimal asset
const ledgers = engineLedgers()

let engine: Engine
let ledger: Ledger
let client: ServiceClient
let owner: Address
let intents = 0

beforeAll(async () => {
  const service = privateChains().service
  const account = privateKeyToAccount(generatePrivateKey())
  owner = account.address
  await Promise.all(privateChains().chains.map((chain) => fundAddress(chain, owner, { asset: '20000' })))
  ledger = openLedger({ path: ledgers.path() })
  client = createServiceClient({
    baseUrl: service.url,
    credentials: service.credential,
    makerAddress: owner,
  })
  engine = await createEngine({
    ledger,
    service: client,
    account,
    chains: engineChainsOf(privateChains().chains),
    settings: testEngineSettings,
  })
  await engine.recover()
}, 120_000)

afterAll(async () => {
  await engine?.close()
  ledger?.close()
})

function jobChains() {
  return privateChains().chains.map((chain) => ({
    chainId: chain.chainId,
    publicClient: clientsFor(chain, chain.roles.deployer.privateKey).publicClient,
  }))
}

function sync() {
  return syncCorporateActions({ ledger, service: client, chains: jobChains() })
}

async function buy(chain: LocalChain, ticker: string, exchange: ExchangeCode, amountIn: string) {
  const outcome = await engine.execute({
    intentId: `buy-${ticker}-${++intents}`,
    chainId: chain.chainId,
    ticker,
    exchange,
    side: 'buy',
    amountIn,
  })
  expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
  expect(outcome.fills).toHaveLength(1)
}

type ActionJson = {
  id: string
  status: string
  records: { id: string; maker: string; processed_hash: string }[]
}

async function triggerAndProcess(body: Record<string, unknown>, process = true): Promise<ActionJson> {
  const service = privateChains().service
  const triggered = await apiCall<{ data: ActionJson }>(service, '/sandbox/v1/corporate-actions', {
    method: 'POST',
    body,
  })
  expect(triggered.status, JSON.stringify(triggered.body)).toBe(200)
  if (!process) return triggered.body.data
  const processed = await apiCall<{ data: ActionJson }>(
    service,
    `/sandbox/v1/corporate-actions/${triggered.body.data.id}/process`,
    { method: 'POST', body: '' },
  )
  expect(processed.status, JSON.stringify(processed.body)).toBe(200)
  return processed.body.data
}

function recordIdOf(action: ActionJson): string {
  const record = action.records.find((r) => r.maker.toLowerCase() === owner.toLowerCase())
  if (!record) throw new Error(`no record of ${owner} in action ${action.id}`)
  return record.id
}

function position(chain: LocalChain, ticker: string) {
  const found = ledger.positions.getPosition(chain.chainId, tokenOf(chain, ticker))
  if (!found) throw new Error(`no position in ${ticker}`)
  return found
}

async function onChain(chain: LocalChain, token: Address, who: Address = owner) {
  return clientsFor(chain, chain.roles.deployer.privateKey).publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [who],
  })
}

/** Every ledger position equals the wallet's on-chain balance, and the fold agrees with the table. */
async function expectLedgerEqualsChain() {
  for (const held of ledger.positions.listPositions()) {
    const chain = privateChains().chains.find((c) => c.chainId === held.chainId) as LocalChain
    expect(held.balance, `${held.ticker} on ${held.chainId}`).toBe(await onChain(chain, held.tokenAddress))
  }
  expect(ledger.positions.recomputePositions().mismatches).toEqual([])
}

describe('syncCorporateActions', () => {
  it('a 2-for-1 split doubles the balance and halves the average price, once', async () => {
    await buy(chainA(), 'NVDA', 0, '1000')
    const before = position(chainA(), 'NVDA')
    expect(before.balance).toBeGreaterThan(0n)
    const action = await triggerAndProcess({
      chain_id: chainA().chainId,
      ticker: 'NVDA',
      exchange: 0,
      action_type: 'stock_split',
      params: { numerator: 2, denominator: 1 },
    })

    const report = await sync()
    expect(report).toEqual({ seen: 1, applied: 1, alreadyApplied: 0, income: 0, skipped: [], errors: [] })
    const after = position(chainA(), 'NVDA')
    expect(after.balance).toBe(2n * before.balance)
    expect(after.costBasis).toBe(before.costBasis)
    expect(after.avgPrice).toBe(before.avgPrice / 2n)
    expect(after.realizedPnl).toBe(before.realizedPnl)
    expect(ledger.positions.findAppliedReference(recordIdOf(action))).toMatchObject({ kind: 'split' })
    await expectLedgerEqualsChain()

    // Running it again changes nothing.
    const stored = ledger.positions.listPositions()
    expect(await sync()).toEqual({
      seen: 1,
      applied: 0,
      alreadyApplied: 1,
      income: 0,
      skipped: [],
      errors: [],
    })
    expect(ledger.positions.listPositions()).toEqual(stored)
  })

  it('a split followed by a trade before the sync: only what was held at the split is scaled', async () => {
    const before = position(chainA(), 'NVDA')
    const action = await triggerAndProcess({
      chain_id: chainA().chainId,
      ticker: 'NVDA',
      exchange: 0,
      action_type: 'stock_split',
      params: { numerator: 3, denominator: 2 },
    })
    await buy(chainA(), 'NVDA', 0, '300')
    const report = await sync()
    expect(report).toMatchObject({ applied: 1, alreadyApplied: 1, skipped: [] })
    const onChainBalance = await onChain(chainA(), tokenOf(chainA(), 'NVDA'))
    expect(onChainBalance).toBeGreaterThan((before.balance * 3n) / 2n)
    expect(position(chainA(), 'NVDA').balance).toBe(onChainBalance)
    // Scaling the whole balance by 3/2 would count the later buy one and a half times.
    expect(
      ledger.database
        .prepare<[string], { reason: string }>('SELECT reason FROM position_adjustments WHERE reference = ?')
        .get(recordIdOf(action))?.reason,
    ).toMatch(/^3-for-2 stock split of NVDA, applied as \d+\/\d+ since \d+ was traded after it$/)
    await expectLedgerEqualsChain()
  })

  it('a 1-for-3 reverse split on the chain with an 18-decimal asset', async () => {
    await buy(chainB(), 'AMZN', 0, '2000')
    const before = position(chainB(), 'AMZN')
    await triggerAndProcess({
      chain_id: chainB().chainId,
      ticker: 'AMZN',
      exchange: 0,
      action_type: 'reverse_stock_split',
      params: { numerator: 1, denominator: 3 },
    })
    expect(await sync()).toMatchObject({ applied: 1, income: 0, skipped: [] })
    const after = position(chainB(), 'AMZN')
    expect(after.balance).toBe(before.balance / 3n)
    expect(after.costBasis).toBe(before.costBasis)
    expect(after.avgPrice).toBe(before.costBasis / after.balance)
    await expectLedgerEqualsChain()
  })

  it('a dividend of an HK stock is income equal to the default asset the wallet received on chain', async () => {
    const chain = chainB()
    await buy(chain, '9988', 1, '2500')
    const held = position(chain, '9988')
    expect(held.balance % 100n).toBe(0n)
    const asset = chain.defaultAsset.address
    const cashBefore = await onChain(chain, asset)
    const action = await triggerAndProcess({
      chain_id: chain.chainId,
      ticker: '9988',
      exchange: 1,
      action_type: 'dividend',
      params: {
        dividend_per_share: '2.5',
        tax_rate: 10,
        fee_amount: '1',
        ex_dividend_date: '2026-03-02',
        dividend_date: '2026-03-20',
      },
    })
    const received = (await onChain(chain, asset)) - cashBefore
    expect(received).toBeGreaterThan(0n)

    const report = await sync()
    expect(report).toMatchObject({ applied: 0, income: 1, skipped: [] })
    const reference = recordIdOf(action)
    const income = ledger.income.getIncomeByReference(reference)
    const gross = (held.balance * 5n) / 2n // 2.5 HKD a share
    const tax = gross / 10n
    expect(income).toMatchObject({
      chainId: chain.chainId,
      tokenAddress: tokenOf(chain, '9988'),
      ticker: '9988',
      kind: 'dividend',
      amount: received,
      assetToken: asset,
      assetDecimals: chain.defaultAsset.decimals,
      quantity: held.balance,
      original: {
        currency: 'HKD',
        gross: String(gross),
        tax: String(tax),
        fee: '1',
        net: String(gross - tax - 1n),
        taxRate: 10,
      },
    })
    expect(income?.txHash).toBe(action.records.find((r) => r.id === reference)?.processed_hash)
    expect(ledger.income.incomeTotals({ chainId: chain.chainId })).toEqual([
      { chainId: chain.chainId, assetToken: asset, assetDecimals: 18, total: received, count: 1 },
    ])
    // Income is no position change.
    expect(position(chain, '9988')).toEqual(held)

    const again = await sync()
    expect(again).toMatchObject({ applied: 0, income: 0, skipped: [] })
    expect(ledger.income.listIncome()).toHaveLength(1)
  })

  it('a ticker change renames the position; the rename survives recomputePositions', async () => {
    await buy(chainA(), 'MSFT', 0, '1000')
    const before = position(chainA(), 'MSFT')
    await triggerAndProcess({
      chain_id: chainA().chainId,
      ticker: 'MSFT',
      exchange: 0,
      action_type: 'ticker_change',
      params: { new_ticker: 'MSFTN' },
    })
    expect(await sync()).toMatchObject({ applied: 1, skipped: [] })
    const after = ledger.positions.getPosition(chainA().chainId, before.tokenAddress)
    expect(after).toEqual({
      ...before,
      ticker: 'MSFTN',
      lastSeq: after?.lastSeq,
      updatedAtMs: after?.updatedAtMs,
    })
    expect(ledger.positions.listRenames()).toMatchObject([{ fromTicker: 'MSFT', toTicker: 'MSFTN' }])
    const { mismatches, positions } = ledger.positions.recomputePositions()
    expect(mismatches).toEqual([])
    expect(positions.find((p) => p.tokenAddress === before.tokenAddress)?.ticker).toBe('MSFTN')
  })

  it('a record not processed yet is skipped, and applied once processed', async () => {
    const triggered = await triggerAndProcess(
      {
        chain_id: chainB().chainId,
        ticker: 'AMZN',
        exchange: 0,
        action_type: 'delisting',
      },
      false,
    )
    const reference = recordIdOf(triggered)
    const pending = await sync()
    expect(pending.skipped).toEqual([{ id: reference, why: expect.stringContaining('not processed') }])
    expect(pending.applied).toBe(0)

    const before = position(chainB(), 'AMZN')
    const processed = await apiCall(
      privateChains().service,
      `/sandbox/v1/corporate-actions/${triggered.id}/process`,
      {
        method: 'POST',
        body: '',
      },
    )
    expect(processed.status).toBe(200)
    expect(await sync()).toMatchObject({ applied: 1, skipped: [] })
    // Delisted: nothing held, the cost basis realized as a loss (no compensation was paid).
    expect(position(chainB(), 'AMZN')).toMatchObject({
      balance: 0n,
      costBasis: 0n,
      realizedPnl: before.realizedPnl - before.costBasis,
    })
    await expectLedgerEqualsChain()
  })

  it('after every action, the positions reconcile with the chain and the service', async () => {
    const report = await reconcilePositions({ ledger, service: client, chains: jobChains(), owner })
    expect(report.errors).toEqual([])
    expect(report.discrepancies).toEqual([])
    expect(report.checked).toBe(ledger.positions.listPositions().length)
    expect(await sync()).toMatchObject({ applied: 0, income: 0, skipped: [], alreadyApplied: 6 })
  })
})
