import { getTokenAddress } from '@stockroute/client/api/actions/getTokenAddress.js'
import type { CallOptions, ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { type ExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { EngineError } from './errors.js'
import type { Instrument, InstrumentResolver } from './types.js'

/**
 * A resolver over the service's token-address lookup (a maker endpoint: the client needs a
 * `makerAddress` or a wallet). An inactive token is refused with {@link EngineError}.
 *
 * @example
 * const resolve = createInstrumentResolver(client)
 * const aapl = await resolve({ chainId: 31337, ticker: 'AAPL', exchange: 0 })
 * aapl.tokenAddress // '0x…'
 */
export function createInstrumentResolver(client: ServiceClient): InstrumentResolver {
  const cache = new Map<string, Promise<Instrument>>()
  return (parameters, options) => {
    const key = `${parameters.chainId}:${parameters.exchange}:${parameters.ticker}`
    let pending = cache.get(key)
    if (!pending) {
      pending = lookUp(client, parameters, options)
      cache.set(key, pending)
      pending.catch(() => cache.delete(key))
    }
    return pending
  }
}

async function lookUp(
  client: ServiceClient,
  parameters: { chainId: number; ticker: string; exchange: ExchangeCode },
  options?: CallOptions,
): Promise<Instrument> {
  const { chainId, ticker, exchange } = parameters
  const token = await getTokenAddress(client, { ticker, exchange, chainId }, options)
  if (!token.isActive || token.chainId !== chainId)
    throw new EngineError({
      code: 'INVALID_INTENT',
      shortMessage: `${ticker} on exchange ${exchange} is not active on chain ${chainId}: it cannot be traded there now.`,
      remedy: `trade it on a chain where it is active (\`stockroute tokens --chain ID\` lists them), or wait until it is active on chain ${chainId} again`,
      details: { ticker, exchange, chainId },
    })
  return {
    chainId,
    ticker,
    exchange,
    market: marketCodes[exchange],
    tokenAddress: token.tokenAddress,
    tokenKind: token.tokenType,
    lotSize: token.lotSize,
    spreadTableCode: token.spreadTableCode,
    marketSymbol: token.tokenType === 'share' && ticker.endsWith('s') ? ticker.slice(0, -1) : ticker,
  }
}
