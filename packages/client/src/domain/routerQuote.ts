import type { Address, Hex } from 'viem'

/**
 * The EIP-712 type of a router quote, as the executor contracts (RFQSettlement, PlatformRouter)
 * hash it. The quote is a bearer instrument: it names no taker.
 * Buy: `amountIn` is the asset paid, fee included; `amountOut` the stock delivered.
 * Sell: `amountIn` is the stock delivered; `amountOut` the asset received, net of the fee.
 */
export const routerQuoteTypes = {
  Quote: [
    { name: 'quoteId', type: 'bytes32' },
    { name: 'stockToken', type: 'address' },
    { name: 'assetToken', type: 'address' },
    { name: 'isBuy', type: 'bool' },
    { name: 'amountIn', type: 'uint256' },
    { name: 'amountOut', type: 'uint256' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'expiresAt', type: 'uint256' },
  ],
} as const

/** The struct passed to `execute(quote, signature)`, amounts in base units. */
export type SignedQuoteStruct = {
  quoteId: Hex
  stockToken: Address
  assetToken: Address
  isBuy: boolean
  amountIn: bigint
  amountOut: bigint
  feeAmount: bigint
  expiresAt: bigint
}

/** EIP-712 domain names of the two executor contracts. */
export const executorDomainNames = { settlement: 'RFQSettlement', platformRouter: 'PlatformRouter' } as const

export type RouterQuoteDomain = {
  name: string
  version: '1'
  chainId: number
  verifyingContract: Address
}

/**
 * The domain a chain's quotes are signed in: the verifying contract is the one whose `execute`
 * settles them, the platform router where the chain has one, else the settlement contract.
 *
 * @example
 * routerQuoteDomain({ chainId: 31337, settlementAddress, platformRouterAddress: null })
 * // { name: 'RFQSettlement', version: '1', chainId: 31337, verifyingContract: settlementAddress }
 */
export function routerQuoteDomain(parameters: {
  chainId: number
  settlementAddress: Address
  platformRouterAddress: Address | null
}): RouterQuoteDomain {
  const { chainId, settlementAddress, platformRouterAddress } = parameters
  return platformRouterAddress
    ? {
        name: executorDomainNames.platformRouter,
        version: '1',
        chainId,
        verifyingContract: platformRouterAddress,
      }
    : { name: executorDomainNames.settlement, version: '1', chainId, verifyingContract: settlementAddress }
}
