import { decodeJwt } from 'jose'
import type { LocalAccount } from 'viem'
import { buildLoginMessage } from '../../domain/loginMessage.js'

/** Logs in with the wallet: builds the message, signs it with personal_sign, posts it, returns the JWT. */
export type LoginFunction = (body: {
  wallet_address: string
  chain_id: string
  message: string
  signature: `0x${string}`
}) => Promise<string>

/**
 * Holds the wallet's JWT: logs in on first use, again shortly before expiry or after a 401, and
 * never runs two logins at once (concurrent callers share the one in flight).
 */
export type WalletSession = {
  walletAddress: `0x${string}`
  /** A valid JWT, logging in when there is none or it is about to expire. */
  jwt: (now: number) => Promise<string>
  /** Drops `jwt` after the service refused it; the next call logs in again (once for all callers). */
  invalidate: (jwt: string) => void
  /** How many logins this session has made. */
  loginCount: () => number
}

/** Renew this long before the JWT's expiry, so no call carries a token that expires in flight. */
const renewBeforeExpiryMs = 60_000

export function createWalletSession(parameters: {
  account: LocalAccount
  chainId: number
  login: LoginFunction
}): WalletSession {
  const { account, chainId, login } = parameters
  let current: { jwt: string; expiresAtMs: number } | undefined
  let inFlight: Promise<string> | undefined
  let logins = 0

  async function logIn(now: number): Promise<string> {
    const message = buildLoginMessage({
      walletAddress: account.address,
      chainId,
      timestamp: new Date(now),
      nonce: crypto.randomUUID(),
    })
    const signature = await account.signMessage({ message })
    logins += 1
    const jwt = await login({
      wallet_address: account.address,
      chain_id: String(chainId),
      message,
      signature,
    })
    const exp = decodeJwt(jwt).exp
    current = { jwt, expiresAtMs: typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY }
    return jwt
  }

  return {
    walletAddress: account.address,
    loginCount: () => logins,
    jwt(now) {
      if (current && current.expiresAtMs - renewBeforeExpiryMs > now) return Promise.resolve(current.jwt)
      inFlight ??= logIn(now).finally(() => {
        inFlight = undefined
      })
      return inFlight
    },
    invalidate(jwt) {
      if (current?.jwt === jwt) current = undefined
    },
  }
}
