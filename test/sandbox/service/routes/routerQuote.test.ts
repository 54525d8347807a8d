import { routerQuoteDomain, routerQuoteTypes } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi, type Hex, parseUnits, recoverTypedDataAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  balanceOf,
  chainWithoutRouter,
  chainWithRouter,
  freshWallet,
  tokenOf,
} from '../../../helpers/localChains.js'
import { setLastPrices } from '../../../helpers/pinnedPrices.js'
import { expectRevert } from '../../../helpers/reverts.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 1000 })
/** A service whose clock runs 11 s behind: every quote it signs has already expired on chain. */
// Its quotes' 10 s ended 20 s ago: expired against any recent block, even one mined a few seconds
// before the simulation on a loaded machine (an offset of 11 s left 1 s, and failed once in CI).
const lateService = useSandboxService({ clock: { now: () => Date.now() - 30_000 } })

type QuoteReply = {
  quote: {
    quote_id: Hex
    ticker: string
    exchange: number
    is_buy: boolean
    chain_id: number
    amount_type: string
    amount_in: string
    amount_in_used: string
    amount_out: string
    fee_amount: string
    stock_token: Address
    asset_token: Address
    price: string
    expires_at: number
  }
  signature: Hex
  required_approvals: { token_address: Address; spender: Address; amount: string; description: string }[]
}

function requestQuote(
  chain: LocalChain,
  params: {
    ticker: string
    exchange: number
    is_buy: boolean
    amount_in: string
    amount_type?: string
    asset?: string
  },
  on = service,
) {
  return apiCall<{ code: number; data: QuoteReply; message?: string; details?: string }>(
    on(),
    '/api/v1/router/quote',
    {
      credential: on().credential,
      query: { chain_id: chain.chainId, asset: chain.defaultAsset.address, ...params },
    },
  )
}

function structOf(reply: QuoteReply) {
  const q = reply.quote
  return {
    quoteId: q.quote_id,
    stockToken: q.stock_token,
    assetToken: q.asset_token,
    isBuy: q.is_buy,
    amountIn: BigInt(q.amount_in_used),
    amountOut: BigInt(q.amount_out),
    feeAmount: BigInt(q.fee_amount),
    expiresAt: BigInt(q.expires_at),
  }
}

async function approveAndExecute(
  chain: LocalChain,
  wallet: Awaited<ReturnType<typeof freshWallet>>,
  reply: QuoteReply,
) {
  for (const approval of reply.required_approvals) {
    const hash = await wallet.walletClient.writeContract({
      address: approval.token_address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [approval.spender, BigInt(approval.amount)],
    })
    await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
  const hash = await wallet.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [structOf(reply), reply.signature],
  })
  return wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

/** The fields of a quote reply a test works out by hand. */
type HandQuote = Partial<QuoteReply['quote']>

/**
 * AAPL quoted at a last price of 227.48170001 USD, worked out by hand for each asset's decimals: the
 * price per share rounded up on a buy and down on a sell, whole shares within 1000 / 1.001 on a buy,
 * and the 10 bps fee rounded up to the asset's base unit.
 */
const handQuotes: Record<number, { buy: HandQuote; sell: HandQuote }> = {
  6: {
    // 227.48170001 USD = 227,481,700.01 base units: 227,481,701 up. 1000 / 1.001 = 999.000999 USDC
    // buys 4 shares (a 5th: 1,137.41 > 1000). Gross 4 × 227,481,701 = 909,926,804; fee
    // 909,926,804 × 10 / 10,000 = 909,926.804 → 909,927 (up); paid 909,926,804 + 909,927 = 910,836,731.
    buy: { price: '227481701', amount_out: '4', fee_amount: '909927', amount_in_used: '910836731' },
    // 2 shares at 227,481,700 (down): gross 454,963,400; fee 454,963.4 → 454,964 (up); received
    // 454,963,400 − 454,964 = 454,508,436.
    sell: { price: '227481700', amount_in_used: '2', fee_amount: '454964', amount_out: '454508436' },
  },
  18: {
    // 227.48170001 × 1e18 is whole: 227,481,700,010,000,000,000 either way. 4 shares: gross
    // 909,926,800,040,000,000,000; fee a thousandth of it, whole: 909,926,800,040,000,000.
    buy: {
      price: '227481700010000000000',
      amount_out: '4',
      fee_amount: '909926800040000000',
      amount_in_used: '910836726840040000000',
    },
    // 2 shares: gross 454,963,400,020,000,000,000, fee 454,963,400,020,000,000, received the difference.
    sell: {
      price: '227481700010000000000',
      amount_in_used: '2',
      fee_amount: '454963400020000000',
      amount_out: '454508436619980000000',
    },
  },
}

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('GET /api/v1/router/quote on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const asset = chain.defaultAsset

  it('returns {code: 0, data: {quote, signature, required_approvals}} with every field typed as the reference says', async () => {
    const reply = await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: true, amount_in: '1000' })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    const { quote, signature, required_approvals } = reply.body.data
    expect(quote).toMatchObject({
      ticker: 'AAPL',
      exchange: 0,
      is_buy: true,
      chain_id: chain.chainId,
      amount_type: 'stablecoin_in',
      stock_token: tokenOf(chain, 'AAPL'),
      asset_token: asset.address,
    })
    expect(quote.quote_id).toMatch(/^0x[0-9a-f]{64}$/)
    for (const field of ['amount_in', 'amount_in_used', 'amount_out', 'fee_amount', 'price'] as const) {
      expect(quote[field]).toMatch(/^\d+$/)
    }
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(required_approvals).toHaveLength(1)
  })

  it('rule 1: amount_in is natural units in; amounts come back in token decimals (asset native, StockToken 0)', async () => {
    const restore = setLastPrices(service().context.prices, { AAPL: '227.48170001' })
    try {
      const hand = handQuotes[asset.decimals]
      if (!hand) throw new Error(`no hand-worked quote for a ${asset.decimals}-decimal asset`)
      const buy = (
        await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: true, amount_in: '1000' })
      ).body.data.quote
      expect(buy).toMatchObject({ amount_in: parseUnits('1000', asset.decimals).toString(), ...hand.buy })
      const sell = (await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: false, amount_in: '2' }))
        .body.data.quote
      expect(sell).toMatchObject({ amount_in: '2', ...hand.sell })
    } finally {
      restore()
    }
  })

  it('rule 1: a ShareToken quantity comes back in 18 decimals', async () => {
    const reply = await requestQuote(chain, { ticker: 'AAPLs', exchange: 0, is_buy: true, amount_in: '50' })
    const { quote } = reply.body.data
    expect(quote.stock_token).toBe(tokenOf(chain, 'AAPLs'))
    expect(BigInt(quote.amount_out)).toBeGreaterThan(10n ** 17n)
    expect(BigInt(quote.amount_out)).toBeLessThan(10n ** 18n)
    const sell = await requestQuote(chain, { ticker: 'AAPLs', exchange: 0, is_buy: false, amount_in: '0.25' })
    expect(sell.body.data.quote.amount_in).toBe('250000000000000000')
  })

  it('rule 2: the quote is valid for 10 seconds', async () => {
    const before = Math.floor(Date.now() / 1000)
    const reply = await requestQuote(chain, { ticker: 'TSLA', exchange: 0, is_buy: true, amount_in: '600' })
    const after = Math.floor(Date.now() / 1000)
    const { expires_at } = reply.body.data.quote
    expect(expires_at).toBeGreaterThanOrEqual(before + 10)
    expect(expires_at).toBeLessThanOrEqual(after + 10)
  })

  it('is signed with EIP-712 by the chain operator for the contract that executes it', async () => {
    const reply = await requestQuote(chain, { ticker: 'NVDA', exchange: 0, is_buy: true, amount_in: '500' })
    const signer = await recoverTypedDataAddress({
      domain: routerQuoteDomain(chain),
      types: routerQuoteTypes,
      primaryType: 'Quote',
      message: structOf(reply.body.data),
      signature: reply.body.data.signature,
    })
    expect(signer).toBe(chain.operatorAddress)
  })

  it('required_approvals name the executing contract as spender and exactly what execute takes', async () => {
    const buy = (await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: true, amount_in: '700' }))
      .body.data
    expect(buy.required_approvals[0]).toMatchObject({
      token_address: asset.address,
      spender: chain.executorAddress,
      amount: buy.quote.amount_in_used,
    })
    const sell = (await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: false, amount_in: '2' }))
      .body.data
    expect(sell.required_approvals[0]).toMatchObject({
      token_address: tokenOf(chain, 'AAPL'),
      spender: chain.executorAddress,
      amount: '2',
    })
  })

  it('a quote fetched over HTTP settles on chain: the taker pays amount_in_used and receives amount_out', async () => {
    const wallet = await freshWallet(chain, { asset: '2000' })
    const reply = (
      await requestQuote(chain, { ticker: 'MSFT', exchange: 0, is_buy: true, amount_in: '1500' })
    ).body.data
    const receipt = await approveAndExecute(chain, wallet, reply)
    expect(receipt.status).toBe('success')
    expect(await balanceOf(chain, tokenOf(chain, 'MSFT'), wallet.account.address)).toBe(
      BigInt(reply.quote.amount_out),
    )
    expect(await balanceOf(chain, asset.address, wallet.account.address)).toBe(
      parseUnits('2000', asset.decimals) - BigInt(reply.quote.amount_in_used),
    )
  })

  it('rule 2: after its 10 seconds the quote no longer settles (QuoteExpired)', async () => {
    const wallet = await freshWallet(chain, { asset: '2000' })
    const reply = (
      await requestQuote(chain, { ticker: 'AAPL', exchange: 0, is_buy: true, amount_in: '500' }, lateService)
    ).body.data
    await expectRevert(
      wallet.publicClient.simulateContract({
        account: wallet.account,
        address: chain.executorAddress,
        abi: rfqSettlementAbi,
        functionName: 'execute',
        args: [structOf(reply), reply.signature],
      }),
      'QuoteExpired',
    )
  })

  it('rule 3: an HK stablecoin-in buy is rounded down to whole lots and the unused part is not charged', async () => {
    const wallet = await freshWallet(chain, { asset: '20000' })
    const reply = await requestQuote(chain, { ticker: '0700', exchange: 1, is_buy: true, amount_in: '15000' })
    expect(reply.status).toBe(200)
    const { quote } = reply.body.data
    expect(BigInt(quote.amount_out) % 100n).toBe(0n)
    expect(BigInt(quote.amount_out)).toBeGreaterThanOrEqual(100n)
    expect(BigInt(quote.amount_in_used)).toBeLessThan(BigInt(quote.amount_in))
    await approveAndExecute(chain, wallet, reply.body.data)
    expect(await balanceOf(chain, asset.address, wallet.account.address)).toBe(
      parseUnits('20000', asset.decimals) - BigInt(quote.amount_in_used),
    )
    expect(await balanceOf(chain, tokenOf(chain, '0700'), wallet.account.address)).toBe(
      BigInt(quote.amount_out),
    )
  })

  it('rule 3: an HK stablecoin-in amount that cannot cover one lot gets no quote', async () => {
    const reply = await requestQuote(chain, { ticker: '0700', exchange: 1, is_buy: true, amount_in: '100' })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 400, message: 'Amount below one lot' })
  })

  it('rule 3: an HK stocktoken-in buy that is not a lot multiple is rejected, not adjusted', async () => {
    const reply = await requestQuote(chain, {
      ticker: '9988',
      exchange: 1,
      is_buy: true,
      amount_in: '150',
      amount_type: 'stocktoken',
    })
    expect(reply.body).toMatchObject({ code: 400, message: 'Lot size violation' })
    expect(reply.body.details).toMatch(/100/)
    const whole = await requestQuote(chain, {
      ticker: '9988',
      exchange: 1,
      is_buy: true,
      amount_in: '200',
      amount_type: 'stocktoken',
    })
    expect(whole.body.data.quote).toMatchObject({
      amount_type: 'stocktoken_in',
      amount_in: '200',
      amount_out: '200',
    })
  })

  it('rule 3: an HK sell that is not a lot multiple is rejected', async () => {
    const reply = await requestQuote(chain, { ticker: '0005', exchange: 1, is_buy: false, amount_in: '500' })
    expect(reply.body).toMatchObject({ code: 400, message: 'Lot size violation' })
    const ok = await requestQuote(chain, { ticker: '0005', exchange: 1, is_buy: false, amount_in: '800' })
    expect(ok.status).toBe(200)
  })

  it('KR: whole shares only', async () => {
    const fractional = await requestQuote(chain, {
      ticker: '005930',
      exchange: 3,
      is_buy: false,
      amount_in: '1.5',
    })
    expect(fractional.body).toMatchObject({ code: 400, message: 'Fractional shares not allowed' })
    const buy = await requestQuote(chain, { ticker: '005930', exchange: 3, is_buy: true, amount_in: '300' })
    expect(buy.status).toBe(200)
    expect(buy.body.data.quote.amount_out).toMatch(/^[1-9]\d*$/)
  })

  it("the asset must be the chain's default asset", async () => {
    const other = chain.assets.find((a) => a.address !== asset.address)
    const reply = await requestQuote(chain, {
      ticker: 'AAPL',
      exchange: 0,
      is_buy: true,
      amount_in: '100',
      asset: other?.address ?? '',
    })
    expect(reply.body).toMatchObject({ code: 400, message: 'Unsupported asset' })
    expect(reply.body.details).toContain(asset.address)
  })
})

describe('GET /api/v1/router/quote validation', () => {
  const chain = chainWithRouter()

  it.each([
    [{ ticker: 'ZZZZ', exchange: 0 }, 404, 'Unknown ticker'],
    [{ ticker: 'AAPL', exchange: 1 }, 404, 'Unknown ticker'],
    [{ ticker: 'AAPL', exchange: 2 }, 400, 'Unsupported exchange'],
    [{ ticker: 'AAPL', exchange: 0, amount_in: '-5' }, 400, 'Invalid parameter'],
    [{ ticker: 'AAPL', exchange: 0, amount_in: '1e3' }, 400, 'Invalid parameter'],
    [{ ticker: 'AAPL', exchange: 0, amount_in: '0' }, 400, 'Amount below one lot'],
    [{ ticker: 'AAPL', exchange: 0, amount_in: '10.1234567' }, 400, 'Invalid parameter'],
  ])('%o is %i %s', async (params, status, message) => {
    const reply = await requestQuote(chain, { is_buy: true, amount_in: '100', ...params })
    expect(reply.status).toBe(status)
    expect(reply.body).toMatchObject({ code: status, message })
  })

  it('names a missing parameter', async () => {
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: {
        exchange: 0,
        is_buy: true,
        chain_id: chain.chainId,
        asset: chain.defaultAsset.address,
        amount_in: '5',
      },
    })
    expect(reply.body).toMatchObject({ code: 400, details: 'ticker: is required' })
  })

  it('refuses amount_type stablecoin on a sell', async () => {
    const reply = await requestQuote(chain, {
      ticker: 'AAPL',
      exchange: 0,
      is_buy: false,
      amount_in: '1',
      amount_type: 'stablecoin',
    })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toMatch(/buys only/)
  })

  it('refuses an unknown chain', async () => {
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: {
        ticker: 'AAPL',
        exchange: 0,
        is_buy: true,
        chain_id: 1,
        asset: chain.defaultAsset.address,
        amount_in: '5',
      },
    })
    expect(reply.body).toMatchObject({ code: 400, message: 'Unsupported chain' })
  })

  it('refuses a size the payer cannot fill', async () => {
    const reply = await requestQuote(chain, {
      ticker: 'AAPL',
      exchange: 0,
      is_buy: true,
      amount_in: '90000000000',
      amount_type: 'stocktoken',
    })
    expect(reply.body).toMatchObject({ code: 400, message: 'Insufficient liquidity' })
  })
})
