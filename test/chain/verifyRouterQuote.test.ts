import { getRouterQuote } from '@stockroute/client/api/actions/getRouterQuote.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import { routerQuoteDomain, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { signRouterQuote } from '@stockroute/sandbox/signQuote.js'
import { getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { readExecutorDomain } from '../../src/chain/readExecutorDomain.js'
import {
  type KnownExecutor,
  type PinnedExecutor,
  type RouterQuoteVerdict,
  verifyRouterQuote,
} from '../../src/chain/verifyRouterQuote.js'
import { chainWithoutRouter, chainWithRouter, signForChain } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'
import { buyQuote, publicClientOf } from './fixtures.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

/** A real router quote, fetched from the sandbox over HTTP with stockroute's own client. */
async function sandboxQuote(chain: LocalChain) {
  const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
  const { quote, signature } = await getRouterQuote(client, {
    ticker: 'AAPL',
    exchange: 0,
    isBuy: true,
    chainId: chain.chainId,
    asset: chain.defaultAsset.address,
    amountIn: '1000',
  })
  return { struct: toSignedQuoteStruct(quote), signature }
}

function pinnedOf(chain: LocalChain): PinnedExecutor {
  return {
    chainId: chain.chainId,
    executorAddress: chain.executorAddress,
    operatorAddress: chain.operatorAddress,
  }
}

function knownOf(chain: LocalChain): KnownExecutor {
  return { domain: routerQuoteDomain(chain), operatorAddress: chain.operatorAddress }
}

async function verify(
  chain: LocalChain,
  quote: SignedQuoteStruct,
  signature: Hex,
  overrides: Partial<Parameters<typeof verifyRouterQuote>[0]> = {},
): Promise<RouterQuoteVerdict> {
  return verifyRouterQuote({
    quote,
    signature,
    executorDomain: await readExecutorDomain(publicClientOf(chain), chain.executorAddress),
    pinned: pinnedOf(chain),
    minValidityMs: 2_000,
    now: Date.now,
    ...overrides,
  })
}

function expectRejected(verdict: RouterQuoteVerdict, rule: string, message: RegExp) {
  expect(verdict.ok, JSON.stringify(verdict)).toBe(false)
  if (verdict.ok) return
  expect(verdict.rule).toBe(rule)
  expect(verdict.message).toMatch(message)
}

describe.each([
  ['with platform router (PlatformRouter domain)', chainWithRouter, 'PlatformRouter'],
  ['without router (RFQSettlement domain)', chainWithoutRouter, 'RFQSettlement'],
])('verifyRouterQuote on the chain %s', (_label, chainOf, domainName) => {
  const chain = chainOf()

  it('a real quote from the sandbox verifies, recovering to the pinned operator', async () => {
    const executorDomain = await readExecutorDomain(publicClientOf(chain), chain.executorAddress)
    expect(executorDomain.name).toBe(domainName)
    const { struct, signature } = await sandboxQuote(chain)
    const verdict = await verify(chain, struct, signature, { executorDomain })
    expect(verdict).toEqual({ ok: true, signer: chain.operatorAddress, remainingMs: expect.any(Number) })
    if (verdict.ok) expect(verdict.remainingMs).toBeGreaterThan(2_000)
  })

  it('signer: a quote signed by another key', async () => {
    const quote = buyQuote(chain)
    const otherKey = generatePrivateKey()
    const verdict = await verify(chain, quote, await signForChain(chain, quote, otherKey))
    expectRejected(verdict, 'signer', /not the pinned operator/)
    if (verdict.ok) return
    expect(verdict.message).toContain(privateKeyToAccount(otherKey).address)
    expect(verdict.message).toContain(chain.operatorAddress)
    expect(verdict.details).toEqual({
      recoveredSigner: privateKeyToAccount(otherKey).address,
      expectedSigner: chain.operatorAddress,
    })
  })

  it.each<[string, (quote: SignedQuoteStruct) => SignedQuoteStruct]>([
    ['amountOut + 1', (quote) => ({ ...quote, amountOut: quote.amountOut + 1n })],
    ['amountIn - 1', (quote) => ({ ...quote, amountIn: quote.amountIn - 1n })],
    ['fee 0', (quote) => ({ ...quote, feeAmount: 0n })],
    ['side', (quote) => ({ ...quote, isBuy: !quote.isBuy })],
    ['stock token', (quote) => ({ ...quote, stockToken: getAddress(quote.assetToken) })],
    ['expiry + 60 s', (quote) => ({ ...quote, expiresAt: quote.expiresAt + 60n })],
  ])('signer: a real quote tampered after signing (%s)', async (_field, tamper) => {
    const { struct, signature } = await sandboxQuote(chain)
    expect((await verify(chain, struct, signature)).ok).toBe(true)
    expectRejected(await verify(chain, tamper(struct), signature), 'signer', /altered after signing/)
  })

  it('signer: a malformed signature is a verdict, not a throw', async () => {
    const quote = buyQuote(chain)
    expectRejected(await verify(chain, quote, '0x1234'), 'signer', /not a valid ECDSA signature/)
    expectRejected(
      await verify(chain, quote, `0x${'00'.repeat(65)}`),
      'signer',
      /not a valid ECDSA signature/,
    )
  })

  it('expired: the quote’s second has passed, as the contract counts it', async () => {
    const quote = buyQuote(chain, { expiresAt: BigInt(Math.floor(Date.now() / 1000) - 5) })
    const signature = await signForChain(chain, quote)
    expectRejected(await verify(chain, quote, signature), 'expired', /expired at .* ago.*QuoteExpired/)
    // Inside the expiry second the contract still accepts it, but no validity is left.
    const within = Number(quote.expiresAt) * 1000 + 999
    expectRejected(await verify(chain, quote, signature, { now: () => within }), 'validity', /0 ms from now/)
    const after = (Number(quote.expiresAt) + 1) * 1000
    expectRejected(await verify(chain, quote, signature, { now: () => after }), 'expired', /1 s ago/)
  })

  it('validity: less left than the inclusion time plus margin', async () => {
    const nowMs = Date.now()
    const quote = buyQuote(chain, { expiresAt: BigInt(Math.floor(nowMs / 1000) + 3) })
    const signature = await signForChain(chain, quote)
    const remainingMs = Number(quote.expiresAt) * 1000 - nowMs
    const now = () => nowMs
    expectRejected(
      await verify(chain, quote, signature, { now, minValidityMs: 5_000 }),
      'validity',
      new RegExp(`${remainingMs} ms from now, less than the 5000 ms required`),
    )
    expect(await verify(chain, quote, signature, { now, minValidityMs: remainingMs })).toEqual({
      ok: true,
      signer: chain.operatorAddress,
      remainingMs,
    })
    expectRejected(
      await verify(chain, quote, signature, { now, minValidityMs: remainingMs + 1 }),
      'validity',
      /less/,
    )
  })

  it('domain: the pinned chain id is not the chain the executor is on', async () => {
    const { struct, signature } = await sandboxQuote(chain)
    const verdict = await verify(chain, struct, signature, { pinned: { ...pinnedOf(chain), chainId: 1 } })
    expectRejected(verdict, 'domain', new RegExp(`names chain ${chain.chainId}, not the pinned chain 1`))
  })

  it('domain: an executor domain that binds no chain id or no contract is refused', async () => {
    const executorDomain = await readExecutorDomain(publicClientOf(chain), chain.executorAddress)
    const { struct, signature } = await sandboxQuote(chain)
    for (const fields of ['0x0b', '0x07'] as const) {
      expectRejected(
        await verify(chain, struct, signature, { executorDomain: { ...executorDomain, fields } }),
        'domain',
        /does not bind both a chain id and a verifying contract/,
      )
    }
    expectRejected(
      await verify(chain, struct, signature, { executorDomain: { ...executorDomain, extensions: [1n] } }),
      'domain',
      /cannot reproduce/,
    )
  })

  it('never throws for the bad quotes above, but does for a misused minimum validity', async () => {
    const quote = buyQuote(chain)
    await expect(
      verify(chain, quote, await signForChain(chain, quote), { minValidityMs: -1 }),
    ).rejects.toThrow(RangeError)
  })
})

describe('verifyRouterQuote across executors', () => {
  const alpha = chainWithRouter()
  const beta = chainWithoutRouter()

  it("domain: a real quote for the other chain's executor, named when that executor is known", async () => {
    const { struct, signature } = await sandboxQuote(beta)
    expect((await verify(beta, struct, signature)).ok).toBe(true)
    const verdict = await verify(alpha, struct, signature, {
      knownExecutors: [knownOf(alpha), knownOf(beta)],
    })
    expectRejected(
      verdict,
      'domain',
      new RegExp(`signed for executor ${beta.executorAddress} \\(RFQSettlement\\) on chain ${beta.chainId}`),
    )
    if (!verdict.ok)
      expect(verdict.details).toMatchObject({ signedForChainId: beta.chainId, pinnedChainId: alpha.chainId })
    // Without knowing the other executor, the signature simply does not recover to the operator.
    expectRejected(await verify(alpha, struct, signature), 'signer', /not the pinned operator/)
  })

  it("domain: signed by the chain's own operator for its settlement contract while the router is pinned", async () => {
    const quote = buyQuote(alpha)
    const settlementDomain = routerQuoteDomain({ ...alpha, platformRouterAddress: null })
    const signature = await signRouterQuote({
      domain: settlementDomain,
      quote,
      operatorKey: alpha.roles.operator.privateKey,
    })
    const verdict = await verify(alpha, quote, signature, {
      knownExecutors: [{ domain: settlementDomain, operatorAddress: alpha.operatorAddress }],
    })
    expectRejected(verdict, 'domain', new RegExp(`executor ${alpha.settlementAddress} \\(RFQSettlement\\)`))
  })

  it('domain: the domain read is not the pinned executor’s', async () => {
    const { struct, signature } = await sandboxQuote(alpha)
    const settlementDomain = await readExecutorDomain(publicClientOf(alpha), alpha.settlementAddress)
    const verdict = await verify(alpha, struct, signature, { executorDomain: settlementDomain })
    expectRejected(
      verdict,
      'domain',
      new RegExp(
        `verifying contract is ${alpha.settlementAddress}, not the pinned executor ${alpha.executorAddress}`,
      ),
    )
    // And the executor pinned wrongly (the settlement) against the router's domain.
    expectRejected(
      await verify(alpha, struct, signature, {
        pinned: { ...pinnedOf(alpha), executorAddress: alpha.settlementAddress },
      }),
      'domain',
      /not the pinned executor/,
    )
  })

  it("signer: the other chain's operator is not this chain's", async () => {
    const quote = buyQuote(alpha)
    const signature = await signForChain(alpha, quote, beta.roles.operator.privateKey)
    expectRejected(
      await verify(alpha, quote, signature),
      'signer',
      new RegExp(`recovers to ${beta.operatorAddress}`),
    )
  })
})
