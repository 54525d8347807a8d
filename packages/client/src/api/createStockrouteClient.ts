import { connectMaker } from './actions/connectMaker.js'
import { getChains } from './actions/getChains.js'
import { getChainTokens, iterateChainTokens } from './actions/getChainTokens.js'
import { getCorporateActions, iterateCorporateActions } from './actions/getCorporateActions.js'
import { getHeatmaps } from './actions/getHeatmaps.js'
import { getMarketQuote } from './actions/getMarketQuote.js'
import { getMarketQuotes } from './actions/getMarketQuotes.js'
import { getOrders, iterateOrders } from './actions/getOrders.js'
import { getPlatformStats } from './actions/getPlatformStats.js'
import { getPositions, iteratePositions } from './actions/getPositions.js'
import { getRouterQuote } from './actions/getRouterQuote.js'
import { getSpreadTables } from './actions/getSpreadTables.js'
import { getTickerInfo } from './actions/getTickerInfo.js'
import { getTickerStats } from './actions/getTickerStats.js'
import { getTokenAddress } from './actions/getTokenAddress.js'
import { createServiceClient, type ServiceClient, type ServiceClientConfig } from './createServiceClient.js'

/** An action with its client argument already given. */
type Bound<Action> = Action extends (client: ServiceClient, ...rest: infer Rest) => infer Result
  ? (...rest: Rest) => Result
  : never

function bind<Action extends (client: ServiceClient, ...rest: never[]) => unknown>(
  client: ServiceClient,
  action: Action,
): Bound<Action> {
  return ((...rest: never[]) => action(client, ...rest)) as Bound<Action>
}

/**
 * The whole service as one object: every endpoint of the interface reference as a typed method
 * (`(params, options)`), the paginated lists as async iterators, over one transport.
 *
 * @example
 * const service = createStockrouteClient({ baseUrl, credentials: { apiKey, apiSecret }, makerAddress })
 * const { quote } = await service.getRouterQuote({ ticker: 'AAPL', exchange: 0, isBuy: true, chainId, asset, amountIn: '100' })
 * for await (const order of service.iterateOrders({ chainId })) console.log(order.id)
 */
export function createStockrouteClient(config: ServiceClientConfig) {
  const client = createServiceClient(config)
  return {
    transport: client,
    connectMaker: bind(client, connectMaker),
    getTokenAddress: bind(client, getTokenAddress),
    getChains: bind(client, getChains),
    getChainTokens: bind(client, getChainTokens),
    iterateChainTokens: bind(client, iterateChainTokens),
    getRouterQuote: bind(client, getRouterQuote),
    getTickerStats: bind(client, getTickerStats),
    getPlatformStats: bind(client, getPlatformStats),
    getHeatmaps: bind(client, getHeatmaps),
    getOrders: bind(client, getOrders),
    iterateOrders: bind(client, iterateOrders),
    getPositions: bind(client, getPositions),
    iteratePositions: bind(client, iteratePositions),
    getCorporateActions: bind(client, getCorporateActions),
    iterateCorporateActions: bind(client, iterateCorporateActions),
    getMarketQuote: bind(client, getMarketQuote),
    getMarketQuotes: bind(client, getMarketQuotes),
    getTickerInfo: bind(client, getTickerInfo),
    getSpreadTables: bind(client, getSpreadTables),
  }
}

export type StockrouteClient = ReturnType<typeof createStockrouteClient>
