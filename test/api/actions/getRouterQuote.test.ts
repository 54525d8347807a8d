import {
  checkNaturalAmount,
  type GetRouterQuoteParameters,
  getRouterQuote,
  RouterQuoteParameterError,
} from '@stockroute/client/api/actions/getRouterQuote.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import { routerQuoteDomain, routerQuoteTypes } from '@stockroute/client/domain/routerQuote.js'
import type { AssetAmount, ShareQuantity, StockQuantity } from '@stockroute/client/domain/units.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { parseUnits, recoverTypedDataAddress } from 'viem'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  balanceOf,
  chainWithoutRouter,
  chainWithRouter,
  freshWallet,
  tokenOf,
} from '../../helpers/localChains.js'
import { useSandboxService } from '../../helpers/sandboxService.js'
import { quoteAndExecute } from './quoteExecution.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

/** A client whose every request is counted on its way to the real fetch (counting, not mocking). */
function countingClient() {
  const urls: URL[] = []
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    fetch: (input, init) => {
      urls.push(new URL(String(input)))
      return fetch(input, init)
    },
  })
  return { client, urls }
}

function issuedQuote(quoteId: string) {
  const issued = service().context.quotes.get(quoteId)
  if (!issued) throw new Error(`the sandbox issued no quote ${quoteId}`)
  return issued
}

function request(chain: LocalChain, parameters: Partial<GetRouterQuoteParameters>): GetRouterQuoteParameters {
  return {
    ticker: 'AAPL',
    exchange: 0,
    isBuy: true,
    chainId: chain.chainId,
    asset: chain.defaultAsset.address,
    amountIn: '1000',
    ...parameters,
  }
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('getRouterQuote on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const asset = chain.defaultAsset

  it('stablecoin buy of a StockToken: asset amounts in asset base units, stock in whole shares, as issued', async () => {
    const { client, urls } = countingClient()
    const { quote, signature, requiredApprovals } = await getRouterQuote(client, request(chain, {}))
    const issued = issuedQuote(quote.quoteId)
    expect(quote).toEqual({
      quoteId: issued.quoteId,
      ticker: 'AAPL',
      exchange: 0,
      chainId: chain.chainId,
      tokenKind: 'stock',
      stockToken: tokenOf(chain, 'AAPL'),
      assetToken: asset.address,
      isBuy: true,
      amountType: 'stablecoin_in',
      amountIn: parseUnits('1000', asset.decimals),
      amountInUsed: issued.amountInUsed,
      amountOut: issued.amountOut,
      feeAmount: issued.feeAmount,
      price: issued.price,
      expiresAt: issued.expiresAt,
    })
    expect(quote.amountOut).toBeGreaterThan(0n)
    expect(quote.amountInUsed).toBe(quote.price * issued.amountOut + quote.feeAmount)
    expect(signature).toBe(issued.signature)
    expect(requiredApprovals).toEqual([
      {
        tokenAddress: asset.address,
        spender: chain.executorAddress,
        amount: issued.amountInUsed,
        description: expect.stringContaining(chain.executorAddress),
      },
    ])
    // Sent as the reference names the parameters, amount_in in natural units.
    expect(Object.fromEntries(urls[0]?.searchParams ?? [])).toEqual({
      ticker: 'AAPL',
      exchange: '0',
      is_buy: 'true',
      chain_id: String(chain.chainId),
      asset: asset.address,
      amount_in: '1000',
    })
    if (quote.tokenKind === 'stock' && quote.isBuy && quote.amountType === 'stablecoin_in') {
      expectTypeOf(quote.amountIn).toEqualTypeOf<AssetAmount>()
      expectTypeOf(quote.amountOut).toEqualTypeOf<StockQuantity>()
    } else {
      throw new Error('expected a stablecoin-in buy of a StockToken')
    }
  })

  it('a ShareToken (ticker with the s suffix) has its quantities in 18 decimals', async () => {
    const buy = (
      await getRouterQuote(countingClient().client, request(chain, { ticker: 'AAPLs', amountIn: '50' }))
    ).quote
    expect(buy.tokenKind).toBe('share')
    expect(buy.stockToken).toBe(tokenOf(chain, 'AAPLs'))
    expect(buy.amountOut).toBe(issuedQuote(buy.quoteId).amountOut)
    expect(buy.amountOut).toBeGreaterThan(10n ** 17n)
    expect(buy.amountOut).toBeLessThan(10n ** 18n)
    if (buy.tokenKind === 'share' && buy.isBuy) expectTypeOf(buy.amountOut).toEqualTypeOf<ShareQuantity>()

    const sell = (
      await getRouterQuote(
        countingClient().client,
        request(chain, { ticker: 'AAPLs', isBuy: false, amountIn: '0.25' }),
      )
    ).quote
    expect(sell).toMatchObject({
      tokenKind: 'share',
      isBuy: false,
      amountIn: 250_000_000_000_000_000n,
      amountInUsed: 250_000_000_000_000_000n,
      amountOut: issuedQuote(sell.quoteId).amountOut,
    })
  })

  it('a sell: amountIn = amountInUsed shares, amountOut the asset net of the fee; the approval is of the stock', async () => {
    const { quote, requiredApprovals } = await getRouterQuote(
      countingClient().client,
      request(chain, { isBuy: false, amountIn: '2' }),
    )
    const issued = issuedQuote(quote.quoteId)
    expect(quote).toMatchObject({
      isBuy: false,
      amountType: 'stocktoken_in',
      tokenKind: 'stock',
      amountIn: 2n,
      amountInUsed: 2n,
      amountOut: issued.amountOut,
      feeAmount: issued.feeAmount,
    })
    expect(quote.amountOut + quote.feeAmount).toBe(quote.price * 2n)
    expect(requiredApprovals[0]).toMatchObject({ tokenAddress: tokenOf(chain, 'AAPL'), amount: 2n })
  })

  it('a stocktoken-in buy of a lot multiple: amountIn is the quantity, amountInUsed the asset charged', async () => {
    const { quote } = await getRouterQuote(
      countingClient().client,
      request(chain, { ticker: '1810', exchange: 1, amountIn: '200', amountType: 'stocktoken' }),
    )
    const issued = issuedQuote(quote.quoteId)
    expect(quote).toMatchObject({
      amountType: 'stocktoken_in',
      exchange: 1,
      amountIn: 200n,
      amountOut: 200n,
      amountInUsed: issued.amountInUsed,
    })
    expect(quote.amountInUsed).toBe(quote.price * 200n + quote.feeAmount)
  })

  it('toSignedQuoteStruct is what the operator signed, and it executes on chain with the approvals given', async () => {
    const wallet = await freshWallet(chain, { asset: '2000' })
    const stock = tokenOf(chain, 'MSFT')
    const assetBefore = await balanceOf(chain, asset.address, wallet.account.address)
    const execution = await quoteAndExecute(countingClient().client, chain, wallet, {
      ticker: 'MSFT',
      isBuy: true,
      amountIn: '1500',
    })
    const { quote, signature } = execution
    const struct = toSignedQuoteStruct(quote)
    expect(struct).toEqual({
      quoteId: quote.quoteId,
      stockToken: stock,
      assetToken: asset.address,
      isBuy: true,
      amountIn: quote.amountInUsed,
      amountOut: quote.amountOut,
      feeAmount: quote.feeAmount,
      expiresAt: BigInt(quote.expiresAt),
    })
    const signer = await recoverTypedDataAddress({
      domain: routerQuoteDomain(chain),
      types: routerQuoteTypes,
      primaryType: 'Quote',
      message: struct,
      signature,
    })
    expect(signer).toBe(chain.operatorAddress)
    expect(await balanceOf(chain, stock, wallet.account.address)).toBe(quote.amountOut)
    expect(await balanceOf(chain, asset.address, wallet.account.address)).toBe(
      assetBefore - quote.amountInUsed,
    )
  })
})

describe('getRouterQuote refusals', () => {
  const chain = chainWithRouter()

  it("HK lot rule: a stocktoken-in quantity that is not a lot multiple is the service's 400, with its message", async () => {
    const error = await rejectionOf(
      getRouterQuote(
        countingClient().client,
        request(chain, { ticker: '1810', exchange: 1, amountIn: '150', amountType: 'stocktoken' }),
      ),
    )
    expect(error).toBeInstanceOf(ServiceBadRequestError)
    const refused = error as ServiceBadRequestError
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      shape: 'code-message-details',
      code: 400,
      message: 'Lot size violation',
    })
    expect(refused.shortMessage).toContain('Lot size violation')
    // The sandbox names the nearest valid quantities.
    expect(refused.shortMessage).toMatch(/200/)
  })

  it('HK lot rule: a stablecoin amount below one lot is refused', async () => {
    const error = await rejectionOf(
      getRouterQuote(countingClient().client, request(chain, { ticker: '1810', exchange: 1, amountIn: '1' })),
    )
    expect(error).toBeInstanceOf(ServiceBadRequestError)
    expect((error as ServiceBadRequestError).body).toMatchObject({ message: 'Amount below one lot' })
  })

  it('an unknown ticker is a ServiceNotFoundError', async () => {
    const error = await rejectionOf(
      getRouterQuote(countingClient().client, request(chain, { ticker: 'NOPE' })),
    )
    expect(error).toBeInstanceOf(ServiceNotFoundError)
    expect((error as ServiceNotFoundError).body).toMatchObject({ message: 'Unknown ticker' })
  })

  it.each([
    ['1e3', /exponent notation/],
    ['1E-4', /exponent notation/],
    ['-5', /negative/],
    ['', /empty/],
    [' 10', /whitespace/],
    ['1,000', /not a plain decimal/],
    ['+5', /not a plain decimal/],
    ['.5', /not a plain decimal/],
    ['5.', /not a plain decimal/],
    ['0x10', /not a plain decimal/],
    ['0', /zero/],
    ['0.000', /zero/],
  ])('amountIn %j is refused before any request (%s)', async (amountIn, message) => {
    const { client, urls } = countingClient()
    const error = await rejectionOf(getRouterQuote(client, request(chain, { amountIn })))
    expect(error).toBeInstanceOf(RouterQuoteParameterError)
    expect((error as RouterQuoteParameterError).code).toBe('INVALID_QUOTE_PARAMETER')
    expect((error as RouterQuoteParameterError).shortMessage).toMatch(message)
    expect((error as RouterQuoteParameterError).details).toMatchObject({
      parameter: 'amountIn',
      value: amountIn,
    })
    expect(urls).toEqual([])
  })

  it('plain decimals pass the client-side check unchanged', () => {
    for (const amount of ['1000', '0.5', '12.500', '007']) expect(checkNaturalAmount(amount)).toBe(amount)
  })

  it('amountType stablecoin on a sell, and an unknown exchange, are refused before any request', async () => {
    const { client, urls } = countingClient()
    const sell = await rejectionOf(
      getRouterQuote(client, request(chain, { isBuy: false, amountType: 'stablecoin' })),
    )
    expect(sell).toBeInstanceOf(RouterQuoteParameterError)
    expect((sell as RouterQuoteParameterError).shortMessage).toMatch(/buys only/)
    const exchange = await rejectionOf(getRouterQuote(client, request(chain, { exchange: 2 as 0 })))
    expect((exchange as RouterQuoteParameterError).shortMessage).toMatch(/0 \(US\), 1 \(HK\) or 3 \(KR\)/)
    expect(urls).toEqual([])
  })

  it("the caller's tokenKind overrides the ticker rule", async () => {
    const { quote } = await getRouterQuote(countingClient().client, {
      ...request(chain, { ticker: 'AAPLs', amountIn: '10' }),
      tokenKind: 'stock',
    })
    expect(quote.tokenKind).toBe('stock')
  })

  it('stops with its AbortSignal', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop now'))
    await expect(
      getRouterQuote(countingClient().client, request(chain, {}), { signal: controller.signal }),
    ).rejects.toThrow('stop now')
  })
})
