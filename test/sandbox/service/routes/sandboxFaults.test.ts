import {
  type RouterQuoteDomain,
  routerQuoteDomain,
  routerQuoteTypes,
} from '@stockroute/client/domain/routerQuote.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { quoteFaultNames } from '@stockroute/sandbox/service/faultSwitch.js'
import { type Address, type Hex, parseUnits, recoverTypedDataAddress } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter, tokenOf } from '../../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const service = useSandboxService({ faults: true, requestsPerSecond: 1000 })
/** Started the way `npm start` and `stockroute sandbox` start it: no fault switch. */
const plainService = useSandboxService()

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

type FaultState = { fault: string | null; remaining: number | null }

function setFault(body: unknown, on = service) {
  return apiCall<{ code: number; data: FaultState; message?: string; details?: string }>(
    on(),
    '/sandbox/v1/faults',
    { method: 'POST', body },
  )
}

function getFault(on = service) {
  return apiCall<{ code: number; data: FaultState; message?: string; details?: string }>(
    on(),
    '/sandbox/v1/faults',
  )
}

/** The request every fault is shown on: buy AAPL (US) for 1000 of the chain's asset (100 buys no share). */
const request = { ticker: 'AAPL', exchange: 0, is_buy: true, amount_in: '1000' }

async function requestQuote(chain: LocalChain): Promise<QuoteReply> {
  const reply = await apiCall<{ code: number; data: QuoteReply }>(service(), '/api/v1/router/quote', {
    credential: service().credential,
    query: { chain_id: chain.chainId, asset: chain.defaultAsset.address, ...request },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body.data
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

/** Who signed the reply's struct (or `struct`) in the chain's domain (or `domain`). */
function signerOf(
  chain: LocalChain,
  reply: QuoteReply,
  overrides: { domain?: RouterQuoteDomain; struct?: ReturnType<typeof structOf> } = {},
) {
  return recoverTypedDataAddress({
    domain: overrides.domain ?? routerQuoteDomain(chain),
    types: routerQuoteTypes,
    primaryType: 'Quote',
    message: overrides.struct ?? structOf(reply),
    signature: reply.signature,
  })
}

/** The quote the service kept, as the struct it signed. */
function issuedStruct(reply: QuoteReply) {
  const issued = service().context.quotes.get(reply.quote.quote_id)
  if (!issued) throw new Error(`the service kept no quote ${reply.quote.quote_id}`)
  return {
    quoteId: issued.quoteId,
    stockToken: issued.stockToken,
    assetToken: issued.assetToken,
    isBuy: issued.isBuy,
    amountIn: issued.amountInUsed,
    amountOut: issued.amountOut,
    feeAmount: issued.feeAmount,
    expiresAt: BigInt(issued.expiresAt),
  }
}

afterEach(async () => {
  await setFault({ fault: null })
})

describe('the fault switch is off unless the service is started with faults: true', () => {
  it('GET and POST /sandbox/v1/faults answer 404 with how to enable it, and quotes stay normal', async () => {
    const expected = {
      code: 404,
      message: 'Not found',
      details: 'the fault switch is disabled: start the sandbox service with faults: true (tests only)',
    }
    const get = await getFault(plainService)
    expect(get.status).toBe(404)
    expect(get.body).toEqual(expected)
    const post = await setFault({ fault: 'wrong-signer' }, plainService)
    expect(post.status).toBe(404)
    expect(post.body).toEqual(expected)
    expect(plainService().context.faults).toBeNull()
  })
})

describe('POST/GET /sandbox/v1/faults', () => {
  const chain = chainWithRouter()

  it('starts cleared', async () => {
    const reply = await getFault()
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ code: 0, data: { fault: null, remaining: null } })
  })

  it('arms a fault with a count, shows it, and clears with {"fault": null}', async () => {
    expect((await setFault({ fault: 'expired', count: 3 })).body).toEqual({
      code: 0,
      data: { fault: 'expired', remaining: 3 },
    })
    expect((await getFault()).body.data).toEqual({ fault: 'expired', remaining: 3 })
    expect((await setFault({ fault: null })).body).toEqual({
      code: 0,
      data: { fault: null, remaining: null },
    })
    expect((await getFault()).body.data).toEqual({ fault: null, remaining: null })
  })

  it('count 1 affects exactly one quote, then the switch clears itself', async () => {
    await setFault({ fault: 'wrong-signer', count: 1 })
    const first = await requestQuote(chain)
    expect(await signerOf(chain, first)).not.toBe(chain.operatorAddress)
    expect((await getFault()).body.data).toEqual({ fault: null, remaining: null })
    const second = await requestQuote(chain)
    expect(await signerOf(chain, second)).toBe(chain.operatorAddress)
  })

  it('count 2 counts down per quote served', async () => {
    await setFault({ fault: 'wrong-spender', count: 2 })
    expect((await requestQuote(chain)).required_approvals[0]?.spender).toBe(chain.payerAddress)
    expect((await getFault()).body.data).toEqual({ fault: 'wrong-spender', remaining: 1 })
    expect((await requestQuote(chain)).required_approvals[0]?.spender).toBe(chain.payerAddress)
    expect((await getFault()).body.data).toEqual({ fault: null, remaining: null })
    expect((await requestQuote(chain)).required_approvals[0]?.spender).toBe(chain.executorAddress)
  })

  it('without a count the fault stays until cleared', async () => {
    expect((await setFault({ fault: 'wrong-domain' })).body.data).toEqual({
      fault: 'wrong-domain',
      remaining: null,
    })
    for (let index = 0; index < 3; index++) {
      expect(await signerOf(chain, await requestQuote(chain))).not.toBe(chain.operatorAddress)
    }
    expect((await getFault()).body.data).toEqual({ fault: 'wrong-domain', remaining: null })
    await setFault({ fault: null })
    expect(await signerOf(chain, await requestQuote(chain))).toBe(chain.operatorAddress)
  })

  it('a rejected quote request does not use up the fault', async () => {
    await setFault({ fault: 'expired', count: 1 })
    const bad = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: { chain_id: chain.chainId, asset: chain.defaultAsset.address, ...request, ticker: 'ZZZZ' },
    })
    expect(bad.status).toBe(404)
    expect((await getFault()).body.data).toEqual({ fault: 'expired', remaining: 1 })
  })

  it('refuses an unknown fault name with the allowed names', async () => {
    const reply = await setFault({ fault: 'slow-signer' })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 400, message: 'Invalid parameter' })
    expect(reply.body.details).toMatch(/^fault: /)
    for (const name of quoteFaultNames) expect(reply.body.details).toContain(name)
    expect((await getFault()).body.data).toEqual({ fault: null, remaining: null })
  })

  it.each([
    [{}, /^fault: must be null or one of wrong-signer/],
    [{ fault: 'expired', count: 0 }, /^count: must be a positive integer/],
    [{ fault: 'expired', count: 1.5 }, /^count: must be a positive integer/],
    [{ fault: 'expired', count: '2' }, /^count: must be a positive integer/],
    [{ fault: null, count: 2 }, /^count: applies only when arming a fault/],
    [{ fault: 'expired', cnt: 2 }, /cnt/],
    [[], /^body: must be a JSON object/],
    ['not json', /^body: is not valid JSON/],
    ['', /^body: a JSON object/],
  ])('refuses %j with 400 naming what is wrong', async (body, details) => {
    const reply = await setFault(body)
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe(400)
    expect(reply.body.details).toMatch(details)
  })
})

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('router quotes under each fault, on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const asset = chain.defaultAsset
  const requested = parseUnits(request.amount_in, asset.decimals)

  async function quoteUnder(fault: (typeof quoteFaultNames)[number]) {
    expect((await setFault({ fault, count: 1 })).status).toBe(200)
    return requestQuote(chain)
  }

  it('no fault: signed by the operator, consistent with the request', async () => {
    const reply = await requestQuote(chain)
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.quote.amount_in).toBe(requested.toString())
    expect(reply.quote.stock_token).toBe(tokenOf(chain, 'AAPL'))
    expect(reply.required_approvals[0]?.spender).toBe(chain.executorAddress)
  })

  it('wrong-signer: a valid EIP-712 signature, but by the payer key, not the operator', async () => {
    const reply = await quoteUnder('wrong-signer')
    const signer = await signerOf(chain, reply)
    expect(signer).not.toBe(chain.operatorAddress)
    expect(signer).toBe(chain.roles.payer.address)
    expect(reply.quote.amount_in).toBe(requested.toString())
    expect(issuedStruct(reply)).toEqual(structOf(reply))
  })

  it('tampered-amount: amount_out is one more than what the operator signed', async () => {
    const reply = await quoteUnder('tampered-amount')
    expect(await signerOf(chain, reply)).not.toBe(chain.operatorAddress)
    const signed = { ...structOf(reply), amountOut: BigInt(reply.quote.amount_out) - 1n }
    expect(await signerOf(chain, reply, { struct: signed })).toBe(chain.operatorAddress)
    expect(issuedStruct(reply)).toEqual(signed)
  })

  it('wrong-amount: validly signed, but for twice the requested amount_in', async () => {
    const reply = await quoteUnder('wrong-amount')
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.quote.amount_in).toBe((requested * 2n).toString())
    expect(BigInt(reply.quote.amount_in_used)).toBeGreaterThan(requested)
    expect(BigInt(reply.quote.amount_in_used)).toBeLessThanOrEqual(requested * 2n)
    expect(reply.required_approvals[0]?.amount).toBe(reply.quote.amount_in_used)
    expect(issuedStruct(reply)).toEqual(structOf(reply))
    expect(service().context.quotes.get(reply.quote.quote_id)?.amountIn).toBe(requested * 2n)
  })

  it('wrong-token: validly signed, but stock_token is another token of the chain', async () => {
    const reply = await quoteUnder('wrong-token')
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.quote.ticker).toBe('AAPL')
    expect(reply.quote.stock_token).not.toBe(tokenOf(chain, 'AAPL'))
    expect(chain.tokens.map((token) => token.address)).toContain(reply.quote.stock_token)
    expect(issuedStruct(reply)).toEqual(structOf(reply))
  })

  it('wrong-spender: validly signed, but the approval names the payer as spender', async () => {
    const reply = await quoteUnder('wrong-spender')
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.required_approvals[0]).toMatchObject({
      token_address: asset.address,
      spender: chain.payerAddress,
      amount: reply.quote.amount_in_used,
    })
    expect(reply.required_approvals[0]?.spender).not.toBe(chain.executorAddress)
  })

  it('expired: validly signed, expires_at 5 seconds in the past', async () => {
    const before = Math.floor(Date.now() / 1000)
    const reply = await quoteUnder('expired')
    const after = Math.floor(Date.now() / 1000)
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.quote.expires_at).toBeGreaterThanOrEqual(before - 5)
    expect(reply.quote.expires_at).toBeLessThanOrEqual(after - 5)
    expect(issuedStruct(reply)).toEqual(structOf(reply))
  })

  it('short-validity: validly signed, expires_at the current second + 1', async () => {
    const before = Math.floor(Date.now() / 1000)
    const reply = await quoteUnder('short-validity')
    const after = Math.floor(Date.now() / 1000)
    expect(await signerOf(chain, reply)).toBe(chain.operatorAddress)
    expect(reply.quote.expires_at).toBeGreaterThanOrEqual(before + 1)
    expect(reply.quote.expires_at).toBeLessThanOrEqual(after + 1)
    expect(issuedStruct(reply)).toEqual(structOf(reply))
  })

  it('wrong-domain: signed by the operator, but in the domain of chain id + 1000', async () => {
    const reply = await quoteUnder('wrong-domain')
    expect(await signerOf(chain, reply)).not.toBe(chain.operatorAddress)
    const otherDomain = { ...routerQuoteDomain(chain), chainId: chain.chainId + 1000 }
    expect(await signerOf(chain, reply, { domain: otherDomain })).toBe(chain.operatorAddress)
  })
})
