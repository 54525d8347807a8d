import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

/** A compact JWS (header.payload.signature, base64url). */
const compactJwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

const connectMakerSchema = z
  .object({ jwt: z.string().regex(compactJwt, 'expected a compact JWT (header.payload.signature)') })
  .transform(({ jwt }) => ({ jwt }))

export type ConnectMakerParameters = {
  /** The wallet that signed `message`; checksummed or lowercase. */
  walletAddress: Address
  /** The chain the login is for; sent as numeric text, and must equal the message's ChainId line. */
  chainId: number
  /** The exact text signed (see `buildLoginMessage` in domain/loginMessage.ts). */
  message: string
  /** personal_sign signature of `message` by `walletAddress` (not eth_sign). */
  signature: Hex
}

export type ConnectMakerReturnType = z.output<typeof connectMakerSchema>

/**
 * Logs a wallet in and returns its JWT (POST /api/v1/makers/connect, public). Not retried: a login
 * consumes its nonce, so a new attempt needs a new message. A refusal is a `LoginError` whose body
 * carries one of the reference's messages (`Invalid signature`, `Nonce already used`, …).
 *
 * @example
 * const message = buildLoginMessage({ walletAddress: account.address, chainId, timestamp: new Date(), nonce: crypto.randomUUID() })
 * const { jwt } = await connectMaker(client, {
 *   walletAddress: account.address,
 *   chainId,
 *   message,
 *   signature: await account.signMessage({ message }),
 * })
 */
export function connectMaker(
  client: ServiceClient,
  parameters: ConnectMakerParameters,
  options?: CallOptions,
): Promise<ConnectMakerReturnType> {
  const { walletAddress, chainId, message, signature } = parameters
  return client.request(
    {
      method: 'POST',
      path: '/api/v1/makers/connect',
      auth: 'public',
      body: { wallet_address: walletAddress, chain_id: String(chainId), message, signature },
      schema: connectMakerSchema,
    },
    options,
  )
}
