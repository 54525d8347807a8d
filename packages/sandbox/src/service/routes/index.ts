import type { Route } from '../route.js'
import { chainsRoute } from './chains.js'
import { chainTokensRoute } from './chainTokens.js'
import { corporateActionsRoute } from './corporateActions.js'
import { heatmapsRoute } from './heatmaps.js'
import { makersConnectRoute } from './makersConnect.js'
import { marketQuoteRoute } from './marketQuote.js'
import { marketQuotesRoute } from './marketQuotes.js'
import { ordersRoute } from './orders.js'
import { platformStatsRoute } from './platformStats.js'
import { positionsRoute } from './positions.js'
import { routerQuoteRoute } from './routerQuote.js'
import { sandboxAdminRoutes } from './sandboxAdmin.js'
import { sandboxFaultRoutes } from './sandboxFaults.js'
import { sandboxMarketStatusFaultRoutes } from './sandboxMarketStatusFault.js'
import { spreadTablesRoute } from './spreadTables.js'
import { tickerInfoRoute } from './tickerInfo.js'
import { tickerStatsRoute } from './tickerStats.js'
import { tokenAddressRoute } from './tokenAddress.js'

/** Every endpoint of the interface reference's overview, in its order, then the sandbox's own. */
export const allRoutes: readonly Route[] = [
  makersConnectRoute,
  tokenAddressRoute,
  chainsRoute,
  chainTokensRoute,
  routerQuoteRoute,
  tickerStatsRoute,
  platformStatsRoute,
  heatmapsRoute,
  ordersRoute,
  positionsRoute,
  corporateActionsRoute,
  marketQuoteRoute,
  marketQuotesRoute,
  tickerInfoRoute,
  spreadTablesRoute,
  ...sandboxAdminRoutes,
  ...sandboxFaultRoutes,
  ...sandboxMarketStatusFaultRoutes,
]
