import { parseLoginMessage, parseLoginTimestamp } from '@stockroute/client/domain/loginMessage.js'
import { isAddress, isHex, verifyMessage } from 'viem'
import { z } from 'zod'
import { issueJwt } from '../auth/jwt.js'
import { findChain } from '../context.js'
import { loginError } from '../errors.js'
import { ok, type Route } from '../route.js'

/** The six rule messages of the reference, plus one for a body that is not the documented JSON. */
export const loginErrors = {
  invalidSignature: 'Invalid signature',
  invalidMessageFormat: 'Invalid message format',
  timestampExpired: 'Timestamp expired',
  nonceAlreadyUsed: 'Nonce already used',
  invalidWalletAddress: 'Invalid wallet address',
  chainIdMismatch: 'Chain ID mismatch',
  invalidRequestBody: 'Invalid request body',
} as const

const loginBody = z.object({
  wallet_address: z.string(),
  chain_id: z.string(),
  message: z.string(),
  signature: z.string(),
})

/**
 * POST /api/v1/makers/connect: wallet login with a personal_sign signature; returns a JWT.
 * Checks run in this order, so each failure names the first rule broken: body shape, wallet
 * address, message lines, chain id, timestamp window, signature (which also covers a message
 * naming another wallet), nonce (consumed only by a login that succeeds).
 */
export const makersConnectRoute: Route = {
  method: 'POST',
  path: '/api/v1/makers/connect',
  auth: 'public',
  async handle(request, context) {
    const body = parseBody(request.body)
    if (!isAddress(body.wallet_address, { strict: true })) throw loginError(loginErrors.invalidWalletAddress)
    const fields = parseLoginMessage(body.message)
    if (!fields) throw loginError(loginErrors.invalidMessageFormat)
    const timestampMs = parseLoginTimestamp(fields.timestamp)
    if (timestampMs === null) throw loginError(loginErrors.invalidMessageFormat)
    const chainId = /^\d{1,12}$/.test(body.chain_id) ? Number(body.chain_id) : Number.NaN
    if (!findChain(context, chainId) || fields.chainId !== body.chain_id) {
      throw loginError(loginErrors.chainIdMismatch)
    }
    const nowMs = context.clock.now()
    if (Math.abs(nowMs - timestampMs) > context.loginWindowMs) throw loginError(loginErrors.timestampExpired)
    const wallet = body.wallet_address.toLowerCase() as `0x${string}`
    const signedByWallet =
      fields.walletAddress.toLowerCase() === wallet &&
      isHex(body.signature) &&
      (await verifyMessage({ address: wallet, message: body.message, signature: body.signature }).catch(
        () => false,
      ))
    if (!signedByWallet) throw loginError(loginErrors.invalidSignature)
    if (context.usedLoginNonces.has(fields.nonce)) throw loginError(loginErrors.nonceAlreadyUsed)
    context.usedLoginNonces.add(fields.nonce)
    const jwt = await issueJwt({
      secret: context.jwt.secret,
      claims: { walletAddress: wallet, chainId },
      nowMs,
      lifetimeSeconds: context.jwt.lifetimeSeconds,
    })
    return ok({ jwt })
  },
}

function parseBody(text: string): z.infer<typeof loginBody> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw loginError(loginErrors.invalidRequestBody)
  }
  const parsed = loginBody.safeParse(json)
  if (!parsed.success) throw loginError(loginErrors.invalidRequestBody)
  return parsed.data
}
