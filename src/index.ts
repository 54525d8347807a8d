// stockroute as a library: the service client, its errors, the market rules and units, and the
// local sandbox for integration tests of your own.

export { type ApiKeySigner, hmacApiKeySigner } from './api/auth/apiKeySigner.js'
export * from './api/createServiceClient.js'
export * from './api/createStockrouteClient.js'
export * from './api/errors.js'
export { createRequestLimiter, type RequestLimiter, sharedLimiterFor } from './api/limiter.js'
export { toSignedQuoteStruct } from './api/quoteStruct.js'
export * from './domain/errors.js'
export * from './domain/marketRules.js'
export * from './domain/markets.js'
export * from './domain/routerQuote.js'
export * from './domain/spreadTables.js'
export * from './domain/units.js'
export { type Sandbox, startSandbox } from './sandbox/startSandbox.js'
