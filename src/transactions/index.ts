// The transaction manager: one per (chain, wallet), the only code that signs and sends.

export { type AllowanceOutlook, allowanceOutlook } from './allowanceOutlook.js'
export * from './blockWatcher.js'
export * from './createTransactionManager.js'
export * from './errors.js'
export * from './failpoints.js'
export { type Fees, replacementFees } from './fees.js'
export * from './types.js'
