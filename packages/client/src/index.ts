// @stockroute/client: the service client, its errors, and the market rules and units a client of
// the service keeps (Hong Kong lots and ticks, South Korea tick bands, StockToken and ShareToken
// decimals). What an aggregator that only routes quotes needs, without the bot or the sandbox.

export { type ApiKeySigner, hmacApiKeySigner } from './api/auth/apiKeySigner.js'
export * from './api/createServiceClient.js'
export * from './api/createStockrouteClient.js'
export * from './api/errors.js'
export { createRequestLimiter, type RequestLimiter, sharedLimiterFor } from './api/limiter.js'
export { type SignableQuote, toSignedQuoteStruct } from './api/quoteStruct.js'
export * from './domain/domainRuleError.js'
export * from './domain/errors.js'
export * from './domain/marketRules.js'
export * from './domain/markets.js'
export * from './domain/quantityRules.js'
export * from './domain/quotePrice.js'
export * from './domain/routerQuote.js'
export * from './domain/spreadTables.js'
export * from './domain/stablecoinInSizing.js'
export * from './domain/tickRules.js'
export * from './domain/unitConversions.js'
export * from './domain/unitStrings.js'
export * from './domain/units.js'
