// stockroute as a library: the service client, its errors, the market rules and units, the
// execution engine and its SQLite ledger, and the local sandbox for integration tests of your own.

export { type ApiKeySigner, hmacApiKeySigner } from './api/auth/apiKeySigner.js'
export * from './api/createServiceClient.js'
export * from './api/createStockrouteClient.js'
export * from './api/errors.js'
export { createRequestLimiter, type RequestLimiter, sharedLimiterFor } from './api/limiter.js'
export { type SignableQuote, toSignedQuoteStruct } from './api/quoteStruct.js'
export * from './domain/errors.js'
export * from './domain/marketRules.js'
export * from './domain/markets.js'
export * from './domain/quotePrice.js'
export * from './domain/routerQuote.js'
export * from './domain/spreadTables.js'
export * from './domain/units.js'
export * from './engine/index.js'
export { type Sandbox, startSandbox } from './sandbox/startSandbox.js'
export * from './store/index.js'
