import { errors, jwtVerify, SignJWT } from 'jose'
import { unauthorized } from '../errors.js'

export type JwtClaims = { walletAddress: `0x${string}`; chainId: number }

/**
 * Issues an HS256 JWT carrying wallet address, chain id and expiry, signed by the sandbox.
 *
 * @example
 * const jwt = await issueJwt({ secret, claims: { walletAddress, chainId: 31337 }, nowMs, lifetimeSeconds: 86400 })
 */
export function issueJwt(parameters: {
  secret: Uint8Array
  claims: JwtClaims
  nowMs: number
  lifetimeSeconds: number
}): Promise<string> {
  const { secret, claims, nowMs, lifetimeSeconds } = parameters
  const issuedAt = Math.floor(nowMs / 1000)
  return new SignJWT({ wallet_address: claims.walletAddress, chain_id: claims.chainId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.walletAddress)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetimeSeconds)
    .sign(secret)
}

/** Verifies a bearer JWT: 401 `Token expired` or 401 `Invalid token`, as the reference lists. */
export async function verifyJwt(token: string, secret: Uint8Array, nowMs: number): Promise<JwtClaims> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      currentDate: new Date(nowMs),
    })
    const wallet = payload.wallet_address
    const chainId = payload.chain_id
    if (typeof wallet !== 'string' || !/^0x[0-9a-f]{40}$/.test(wallet) || typeof chainId !== 'number') {
      throw unauthorized('Invalid token', 'the token lacks wallet_address or chain_id')
    }
    return { walletAddress: wallet as `0x${string}`, chainId }
  } catch (error) {
    if (error instanceof errors.JWTExpired)
      throw unauthorized('Token expired', 'log in again: POST /api/v1/makers/connect')
    if (error instanceof errors.JOSEError)
      throw unauthorized('Invalid token', 'the bearer token is malformed or not signed by this server')
    throw error
  }
}
