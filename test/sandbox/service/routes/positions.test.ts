import { erc20Abi, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { balanceOf, tokenOf } from '../../../helpers/localChains.js'
import { apiCall } from '../../../helpers/sandboxService.js'
import { confirm, executeQuote, usePrivateChains, type Wallet, walletOn } from '../ledger/ledgerFixtures.js'

// Chains of this file's own: its many executions never disturb other files' platform-wide numbers.
const privateChains = usePrivateChains({ chainIds: [41_637, 41_638] })
const service = () => privateChains().service
const chainA = () => privateChains().withRouter
const chainB = () => privateChains().withoutRouter

type PositionJson = {
  ticker: string
  exchange: number
  chain_id: number
  token_address: string
  balance: string
  locked_balance: string
  available_balance: string
  avg_price: string
}
type PositionsPage = {
  positions: PositionJson[]
  total: number
  page: number
  page_size: number
  total_pages: number
}

const makerKey = generatePrivateKey()
const maker = privateKeyToAddress(makerKey)
let walletA: Wallet

function positionsOf(query: Record<string, string | number | boolean> = {}, who: string = maker) {
  return apiCall<{ code: number; data: PositionsPage; details?: string }>(service(), '/api/v1/positions', {
    credential: service().credential,
    makerAddress: who,
    query,
  })
}

async function positionNamed(ticker: string, chainId = chainA().chainId) {
  const reply = await positionsOf({ chain_id: chainId, ticker })
  expect(reply.status).toBe(200)
  return reply.body.data.positions[0]
}

beforeAll(async () => {
  walletA = await walletOn(chainA(), {
    privateKey: makerKey,
    asset: parseUnits('100000', 6),
    tokens: { [tokenOf(chainA(), 'MSFT')]: 5n },
  })
  const walletB = await walletOn(chainB(), { privateKey: makerKey, asset: parseUnits('100000', 18) })
  await executeQuote(service(), walletA, { ticker: 'NVDA', isBuy: true, quantity: 10n, price: 100_000_000n })
  await executeQuote(service(), walletA, { ticker: 'NVDA', isBuy: true, quantity: 10n, price: 200_000_000n })
  await executeQuote(service(), walletA, { ticker: 'NVDA', isBuy: false, quantity: 5n, price: 300_000_000n })
  await executeQuote(service(), walletA, { ticker: 'TSLA', isBuy: true, quantity: 2n, price: 250_000_000n })
  await executeQuote(service(), walletA, { ticker: 'TSLA', isBuy: false, quantity: 2n, price: 260_000_000n })
  await executeQuote(service(), walletB, {
    ticker: '0700',
    isBuy: true,
    quantity: 100n,
    price: parseUnits('53.79', 18),
  })
})

describe('GET /api/v1/positions', () => {
  it('one position per listed token the maker holds or has traded, balance equal to the on-chain balanceOf', async () => {
    const reply = await positionsOf({ page_size: 100 })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    const positions = reply.body.data.positions
    expect(positions.map((p) => `${p.chain_id}:${p.ticker}`)).toEqual([
      `${chainA().chainId}:MSFT`,
      `${chainA().chainId}:NVDA`,
      `${chainA().chainId}:TSLA`,
      `${chainB().chainId}:0700`,
    ])
    for (const position of positions) {
      const chain = position.chain_id === chainA().chainId ? chainA() : chainB()
      const onChain = await balanceOf(chain, tokenOf(chain, position.ticker), maker)
      expect(position.balance, position.ticker).toBe(onChain.toString())
      expect(position.token_address).toBe(tokenOf(chain, position.ticker))
    }
  })

  it("has the reference's fields; avg_price is the average cost of the buys, which a sell keeps", async () => {
    expect(await positionNamed('NVDA')).toEqual({
      ticker: 'NVDA',
      exchange: 0,
      chain_id: chainA().chainId,
      token_address: tokenOf(chainA(), 'NVDA'),
      balance: '15',
      locked_balance: '0',
      available_balance: '15',
      avg_price: '150000000',
    })
  })

  it('avg_price is in the asset base units of the chain: 18 decimals on the chain without router', async () => {
    expect(await positionNamed('0700', chainB().chainId)).toMatchObject({
      exchange: 1,
      balance: '100',
      avg_price: parseUnits('53.79', 18).toString(),
    })
  })

  it('a traded position sold out stays, with balance 0 and avg_price 0', async () => {
    expect(await positionNamed('TSLA')).toMatchObject({
      balance: '0',
      available_balance: '0',
      avg_price: '0',
    })
  })

  it('a token held but never traded shows its balance with avg_price 0', async () => {
    expect(await positionNamed('MSFT')).toMatchObject({ balance: '5', avg_price: '0' })
  })

  it('balance is the chain, not the sum of fills: a transfer out lowers it, avg_price stays', async () => {
    const wallet = await walletOn(chainA(), { asset: parseUnits('10000', 6) })
    await executeQuote(service(), wallet, { ticker: 'AMZN', isBuy: true, quantity: 10n, price: 180_000_000n })
    const hash = await wallet.walletClient.writeContract({
      address: tokenOf(chainA(), 'AMZN'),
      abi: erc20Abi,
      functionName: 'transfer',
      args: [privateKeyToAddress(generatePrivateKey()), 3n],
    })
    await confirm(chainA(), [hash])
    const reply = await positionsOf({ ticker: 'AMZN' }, wallet.account.address)
    expect(reply.body.data.positions).toEqual([
      expect.objectContaining({ balance: '7', available_balance: '7', avg_price: '180000000' }),
    ])
  })

  it('a maker who never held nor traded anything has no positions', async () => {
    const reply = await positionsOf({}, privateKeyToAddress(generatePrivateKey()))
    expect(reply.body.data).toEqual({ positions: [], total: 0, page: 1, page_size: 20, total_pages: 0 })
  })

  it('chain_id: one chain only', async () => {
    const reply = await positionsOf({ chain_id: chainB().chainId })
    expect(reply.body.data.positions.map((p) => p.ticker)).toEqual(['0700'])
  })

  it('ticker: exact and case-sensitive', async () => {
    expect((await positionsOf({ ticker: 'NVDA' })).body.data.positions.map((p) => p.ticker)).toEqual(['NVDA'])
    expect((await positionsOf({ ticker: 'nvda' })).body.data.positions).toEqual([])
  })

  it('ticker_like: case-insensitive substring', async () => {
    const reply = await positionsOf({ ticker: 's', ticker_like: true })
    expect(reply.body.data.positions.map((p) => p.ticker)).toEqual(['MSFT', 'TSLA'])
  })

  it('page and page_size slice the list; total and total_pages count every position', async () => {
    const reply = await positionsOf({ page: 2, page_size: 3 })
    expect(reply.body.data).toMatchObject({ total: 4, page: 2, page_size: 3, total_pages: 2 })
    expect(reply.body.data.positions.map((p) => p.ticker)).toEqual(['0700'])
  })

  it('page_size at most 100: 101 is a 400 naming the limit', async () => {
    const reply = await positionsOf({ page_size: 101 })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('page_size')
    expect(reply.body.details).toContain('100')
  })

  it('an unknown chain is a 400 naming the served chains', async () => {
    const reply = await positionsOf({ chain_id: 999 })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain(String(chainA().chainId))
  })

  it('needs a maker key: 401 without credentials', async () => {
    expect((await apiCall(service(), '/api/v1/positions')).status).toBe(401)
  })
})
