import { connectMaker } from '@stockroute/client/api/actions/connectMaker.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { LoginError } from '@stockroute/client/api/errors.js'
import { buildLoginMessage } from '@stockroute/client/domain/loginMessage.js'
import { decodeJwt, jwtVerify } from 'jose'
import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()

/** A client whose every request is counted on its way to the real fetch (counting, not mocking). */
function countingClient() {
  const requests: { url: string; method: string; body: string }[] = []
  const client = createServiceClient({
    baseUrl: service().url,
    fetch: (input, init) => {
      requests.push({ url: String(input), method: init?.method ?? 'GET', body: String(init?.body ?? '') })
      return fetch(input, init)
    },
  })
  return { client, requests }
}

async function signedLogin(
  account: LocalAccount,
  chainId: number,
  overrides: { nonce?: string; timestamp?: Date; messageChainId?: number; signer?: LocalAccount } = {},
) {
  const message = buildLoginMessage({
    walletAddress: account.address,
    chainId: overrides.messageChainId ?? chainId,
    timestamp: overrides.timestamp ?? new Date(),
    nonce: overrides.nonce ?? crypto.randomUUID(),
  })
  const signature = await (overrides.signer ?? account).signMessage({ message })
  return { walletAddress: account.address, chainId, message, signature }
}

async function refusal(promise: Promise<unknown>): Promise<LoginError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(LoginError)
    return error as LoginError
  }
  throw new Error('expected the login to be refused')
}

const newAccount = () => privateKeyToAccount(generatePrivateKey())

describe('connectMaker', () => {
  it.each([
    ['with platform router', chainWithRouter],
    ['without router', chainWithoutRouter],
  ])('returns the JWT the service signed for the wallet and chain (%s)', async (_label, chainOf) => {
    const chainId = chainOf().chainId
    const account = newAccount()
    const { client, requests } = countingClient()
    const login = await signedLogin(account, chainId)
    const { jwt } = await connectMaker(client, login)

    const { payload } = await jwtVerify(jwt, service().context.jwt.secret)
    expect(payload).toMatchObject({ wallet_address: account.address.toLowerCase(), chain_id: chainId })
    expect(decodeJwt(jwt).exp).toBeGreaterThan(Date.now() / 1000)
    // One POST, with the reference's body: chain_id as numeric text.
    expect(requests).toHaveLength(1)
    expect(requests[0]?.method).toBe('POST')
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual({
      wallet_address: account.address,
      chain_id: String(chainId),
      message: login.message,
      signature: login.signature,
    })
    // The JWT is a working maker credential.
    const positions = await apiCall(service(), '/api/v1/positions', { bearer: jwt })
    expect(positions.status).toBe(200)
  })

  it('a replayed nonce is refused with "Nonce already used", and not retried', async () => {
    const chainId = chainWithRouter().chainId
    const account = newAccount()
    const nonce = crypto.randomUUID()
    await connectMaker(countingClient().client, await signedLogin(account, chainId, { nonce }))
    const { client, requests } = countingClient()
    const error = await refusal(connectMaker(client, await signedLogin(account, chainId, { nonce })))
    expect(error.status).toBe(400)
    expect(error.code).toBe('LOGIN_REFUSED')
    expect(error.body).toMatchObject({ message: 'Nonce already used' })
    expect(error.shortMessage).toMatch(/fresh nonce/)
    expect(requests).toHaveLength(1)
  })

  it.each([
    ['a signature by another key', { signer: newAccount() }, 'Invalid signature'],
    ['a message naming another chain', { messageChainId: 1 }, 'Chain ID mismatch'],
    ['a timestamp ten minutes old', { timestamp: new Date(Date.now() - 600_000) }, 'Timestamp expired'],
  ])('%s is refused with the reference message', async (_label, overrides, message) => {
    const chainId = chainWithRouter().chainId
    const error = await refusal(
      connectMaker(countingClient().client, await signedLogin(newAccount(), chainId, overrides)),
    )
    expect(error.body).toMatchObject({ shape: 'code-message', code: 400, message })
  })

  it('a chain the service does not run is "Chain ID mismatch"', async () => {
    const error = await refusal(
      connectMaker(countingClient().client, await signedLogin(newAccount(), 999_999)),
    )
    expect(error.body).toMatchObject({ message: 'Chain ID mismatch' })
  })
})
