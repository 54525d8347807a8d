// The chain layer: viem clients per chain, the executor ABI, EIP-712 quote verification, ERC-20
// helpers, allowance storage layouts, execute simulation, settlement events and the inclusion-time estimate.
export * from './abis.js'
export * from './allowanceSlot.js'
export * from './clients.js'
export * from './decodeRevert.js'
export * from './erc20.js'
export * from './errors.js'
export * from './inclusionTime.js'
export * from './readExecutorDomain.js'
export type { ChainCallOptions } from './rpcCall.js'
export * from './settlementEvents.js'
export * from './simulateExecute.js'
export * from './verifyRouterQuote.js'
