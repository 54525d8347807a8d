import { sandboxCatalogue } from '../catalogue.js'
import type { LocalChains } from '../localChains.js'
import { type ApiCredential, createApiCredential } from './auth/apiKeys.js'
import { createJwtSecret, systemClock } from './context.js'
import type { Listing, SandboxClock, SandboxContext } from './contextTypes.js'
import { createFaultSwitch } from './faultSwitch.js'
import { createMakerLedger } from './ledger/makerLedger.js'
import { createPriceSimulator } from './market/priceSimulator.js'
import { createRateLimiter } from './rateLimiter.js'
import type { Route } from './route.js'
import { allRoutes } from './routes/index.js'
import { listenSandboxHttp, type SandboxServiceLogger } from './server.js'
import { createTtlCache } from './ttlCache.js'

export type StartSandboxServiceParameters = {
  /** The chains to serve (from startLocalChains). */
  local: Pick<LocalChains, 'chains' | 'wallets'>
  /** 0 (default): a free loopback port. */
  port?: number
  clock?: SandboxClock
  /** Seed of the price simulator; the same seed gives the same prices at the same times. */
  priceSeed?: string
  /** Rate of the API key created at start, in requests per second (bursts up to twice that). */
  requestsPerSecond?: number
  /** Default 24 h. */
  jwtLifetimeSeconds?: number
  /** Accepted distance of a login message's timestamp from the server clock; default 5 minutes. */
  loginWindowMs?: number
  routes?: readonly Route[]
  logger?: SandboxServiceLogger
  /**
   * TEST-ONLY: serve POST/GET /sandbox/v1/faults, which make router quotes misbehave on purpose
   * (for the engine's guard tests). Default false; `npm start` and `stockroute sandbox` never set it.
   */
  faults?: boolean
}

export type SandboxService = {
  url: string
  /** The API key created at start: an institution key, usable with X-Maker-Addr as a maker key. */
  credential: ApiCredential
  context: SandboxContext
  stop: () => Promise<void>
}

/** Token-address lookups are cached for 4 hours, as the reference says. */
export const tokenAddressCacheSeconds = 14_400

/**
 * Serves the whole interface reference over HTTP on 127.0.0.1, on top of running local chains.
 *
 * @example
 * const local = await startLocalChains()
 * const service = await startSandboxService({ local })
 * await fetch(`${service.url}/api/v1/chains`)
 */
export async function startSandboxService(
  parameters: StartSandboxServiceParameters,
): Promise<SandboxService> {
  const {
    local,
    port,
    clock = systemClock,
    priceSeed = 'stockroute-sandbox',
    requestsPerSecond = 100,
    jwtLifetimeSeconds = 86_400,
    loginWindowMs = 5 * 60_000,
    routes = allRoutes,
    logger,
    faults = false,
  } = parameters
  const [firstChain] = local.chains
  if (!firstChain) throw new Error('the sandbox service needs at least one chain')
  const credential = createApiCredential(requestsPerSecond)
  const listings = new Map<number, Listing[]>(
    local.chains.map((chain) => [
      chain.chainId,
      chain.tokens.map((token) => ({ ...token, chainId: chain.chainId, isActive: true })),
    ]),
  )
  const catalogue = sandboxCatalogue
  const context: SandboxContext = {
    chains: local.chains,
    wallets: local.wallets,
    defaultChainId: firstChain.chainId,
    catalogue,
    clock,
    credentials: new Map([[credential.apiKey, credential]]),
    jwt: { secret: createJwtSecret(), lifetimeSeconds: jwtLifetimeSeconds },
    usedLoginNonces: new Set(),
    loginWindowMs,
    rateLimiter: createRateLimiter(),
    tokenAddressCache: createTtlCache(tokenAddressCacheSeconds * 1000),
    listings,
    quotes: new Map(),
    prices: createPriceSimulator({ catalogue, seed: priceSeed, clock }),
    ledger: createMakerLedger({ chains: local.chains }),
    faults: faults ? createFaultSwitch() : null,
  }
  context.ledger.attach(context)
  const http = await listenSandboxHttp({
    context,
    routes,
    ...(port === undefined ? {} : { port }),
    ...(logger ? { logger } : {}),
  })
  return {
    url: http.url,
    credential,
    context,
    stop: async () => {
      await http.close()
      await context.ledger.close()
    },
  }
}
