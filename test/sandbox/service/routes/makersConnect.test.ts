import { randomUUID } from 'node:crypto'
import { buildLoginMessage, formatLoginTimestamp } from '@stockroute/client/domain/loginMessage.js'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

let offsetMs = 0
const clock = { now: () => Date.now() + offsetMs }
const service = useSandboxService({ clock })
const chainId = 31337

function loginAttempt(
  options: {
    key?: `0x${string}`
    walletAddress?: string
    bodyChainId?: string
    messageChainId?: number
    timestamp?: Date
    nonce?: string
    message?: string
    signWith?: `0x${string}`
  } = {},
) {
  const key = options.key ?? generatePrivateKey()
  const account = privateKeyToAccount(key)
  const message =
    options.message ??
    buildLoginMessage({
      walletAddress: account.address,
      chainId: options.messageChainId ?? chainId,
      timestamp: options.timestamp ?? new Date(clock.now()),
      nonce: options.nonce ?? randomUUID(),
    })
  return {
    account,
    send: async () => {
      const signer = options.signWith ? privateKeyToAccount(options.signWith) : account
      const signature = await signer.signMessage({ message })
      return apiCall(service(), '/api/v1/makers/connect', {
        body: {
          wallet_address: options.walletAddress ?? account.address,
          chain_id: options.bodyChainId ?? String(chainId),
          message,
          signature,
        },
      })
    },
  }
}

describe('POST /api/v1/makers/connect', () => {
  it('returns {code: 0, data: {jwt}} whose HS256 token names the wallet, the chain and a 24 h expiry', async () => {
    const attempt = loginAttempt()
    const reply = await attempt.send()
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    const jwt = reply.body.data.jwt as string
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'HS256', typ: 'JWT' })
    const claims = decodeJwt(jwt)
    expect(claims.wallet_address).toBe(attempt.account.address.toLowerCase())
    expect(claims.chain_id).toBe(chainId)
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(86_400)
  })

  it('accepts a lowercase wallet address, lines in any order and extra custom lines', async () => {
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    const message = [
      'Welcome to the sandbox',
      `Nonce: ${randomUUID()}`,
      `Timestamp: ${formatLoginTimestamp(new Date(clock.now()))}`,
      `ChainId: ${chainId}`,
      `Wallet address: ${account.address.toLowerCase()}`,
      'Purpose: tests',
    ].join('\n')
    const reply = await loginAttempt({ key, message, walletAddress: account.address.toLowerCase() }).send()
    expect(reply.status).toBe(200)
  })

  it('rule 1: a signature that does not verify against the message and wallet is 400 Invalid signature', async () => {
    const reply = await loginAttempt({ signWith: generatePrivateKey() }).send()
    expect(reply).toMatchObject({ status: 400, body: { code: 400, message: 'Invalid signature' } })
  })

  it('rule 1: a message naming another wallet than wallet_address is 400 Invalid signature', async () => {
    const other = privateKeyToAccount(generatePrivateKey())
    const reply = await loginAttempt({ walletAddress: other.address }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Invalid signature' })
  })

  it('rule 2: a message missing a required line is 400 Invalid message format', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const message = [
      `Wallet address: ${account.address}`,
      `ChainId: ${chainId}`,
      `Timestamp: ${formatLoginTimestamp(new Date())}`,
    ].join('\n')
    const reply = await apiCall(service(), '/api/v1/makers/connect', {
      body: {
        wallet_address: account.address,
        chain_id: String(chainId),
        message,
        signature: await account.signMessage({ message }),
      },
    })
    expect(reply).toMatchObject({ status: 400, body: { code: 400, message: 'Invalid message format' } })
  })

  it('rule 2: a timestamp not in the form YYYY-MM-DDThh:mm:ssZ is 400 Invalid message format', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const message = `Wallet address: ${account.address}\nChainId: ${chainId}\nTimestamp: ${new Date().toISOString()}\nNonce: ${randomUUID()}`
    const reply = await apiCall(service(), '/api/v1/makers/connect', {
      body: {
        wallet_address: account.address,
        chain_id: String(chainId),
        message,
        signature: await account.signMessage({ message }),
      },
    })
    expect(reply.body).toEqual({ code: 400, message: 'Invalid message format' })
  })

  it.each([
    ['too old', -6 * 60_000],
    ['too far in the future', 6 * 60_000],
  ])('rule 3: a timestamp %s is 400 Timestamp expired', async (_label, shift) => {
    const reply = await loginAttempt({ timestamp: new Date(clock.now() + shift) }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Timestamp expired' })
  })

  it('rule 3: a timestamp just inside the five-minute window is accepted', async () => {
    const reply = await loginAttempt({ timestamp: new Date(clock.now() - 4 * 60_000) }).send()
    expect(reply.status).toBe(200)
  })

  it('rule 4: a nonce used before is 400 Nonce already used, even by another wallet', async () => {
    const nonce = randomUUID()
    expect((await loginAttempt({ nonce }).send()).status).toBe(200)
    const reply = await loginAttempt({ nonce }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Nonce already used' })
  })

  it('rule 4: a failed login does not burn its nonce', async () => {
    const nonce = randomUUID()
    const key = generatePrivateKey()
    expect((await loginAttempt({ key, nonce, signWith: generatePrivateKey() }).send()).status).toBe(400)
    expect((await loginAttempt({ key, nonce }).send()).status).toBe(200)
  })

  it.each([
    '0x1234',
    'not-an-address',
    '0xZZ00000000000000000000000000000000000000',
    '0xAbCdEf0000000000000000000000000000000000',
  ])('rule 5: wallet address %s is 400 Invalid wallet address', async (walletAddress) => {
    const reply = await loginAttempt({ walletAddress }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Invalid wallet address' })
  })

  it("rule 6: a message ChainId different from the body's chain_id is 400 Chain ID mismatch", async () => {
    const reply = await loginAttempt({ messageChainId: 31338 }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Chain ID mismatch' })
  })

  it('rule 6: a chain the service does not run is 400 Chain ID mismatch', async () => {
    const reply = await loginAttempt({ messageChainId: 1, bodyChainId: '1' }).send()
    expect(reply.body).toEqual({ code: 400, message: 'Chain ID mismatch' })
  })

  it('the other configured chain is accepted', async () => {
    const reply = await loginAttempt({ messageChainId: 31338, bodyChainId: '31338' }).send()
    expect(reply.status).toBe(200)
  })

  it.each([
    ['not JSON', 'wallet=1'],
    ['a JSON array', '[]'],
    [
      'chain_id as a number',
      JSON.stringify({
        wallet_address: '0x0000000000000000000000000000000000000001',
        chain_id: 31337,
        message: 'm',
        signature: '0x',
      }),
    ],
    [
      'a missing signature',
      JSON.stringify({
        wallet_address: '0x0000000000000000000000000000000000000001',
        chain_id: '31337',
        message: 'm',
      }),
    ],
  ])('a body that is %s is 400 Invalid request body', async (_label, body) => {
    const reply = await apiCall(service(), '/api/v1/makers/connect', { method: 'POST', body })
    expect(reply.body).toEqual({ code: 400, message: 'Invalid request body' })
  })
})

describe('the JWT on maker endpoints', () => {
  async function jwtFor() {
    const attempt = loginAttempt()
    const reply = await attempt.send()
    return { jwt: reply.body.data.jwt as string, address: attempt.account.address }
  }

  it('authenticates a maker endpoint as the wallet it names', async () => {
    const { jwt } = await jwtFor()
    const reply = await apiCall(service(), '/api/v1/positions', { bearer: jwt })
    expect(reply.status).toBe(200)
  })

  it('is refused with 401 Token expired once its 24 hours have passed', async () => {
    const { jwt } = await jwtFor()
    offsetMs += 86_400_000 + 1000
    try {
      const reply = await apiCall(service(), '/api/v1/positions', { bearer: jwt })
      expect(reply).toMatchObject({ status: 401, body: { code: 401, message: 'Token expired' } })
    } finally {
      offsetMs -= 86_400_000 + 1000
    }
  })

  it.each([
    ['garbage', () => 'not.a.jwt'],
    [
      'a tampered payload',
      (jwt: string) => {
        const [header, , signature] = jwt.split('.')
        const payload = Buffer.from(
          JSON.stringify({
            wallet_address: '0x0000000000000000000000000000000000000001',
            chain_id: 31337,
            exp: 9_999_999_999,
          }),
        ).toString('base64url')
        return `${header}.${payload}.${signature}`
      },
    ],
  ])('is refused with 401 Invalid token when it is %s', async (_label, mangle) => {
    const { jwt } = await jwtFor()
    const reply = await apiCall(service(), '/api/v1/positions', { bearer: mangle(jwt) })
    expect(reply).toMatchObject({ status: 401, body: { code: 401, message: 'Invalid token' } })
  })
})
