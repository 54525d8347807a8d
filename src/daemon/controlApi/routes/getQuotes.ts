import { quoteQuerySchema } from '../contract.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest, SwapApiEngine } from '../types.js'
import { toPreviewView } from '../views/previewView.js'
import { translateEngineError } from './translateEngineError.js'

/** The intent id of a preview: never recorded, only named in the engine's messages. */
const previewIntentId = 'api:preview'

/**
 * `GET /v1/quotes?chainId&ticker&exchange&side&amountIn&amountType&limitPrice`: what a swap would
 * get now, from `engine.preview`: the router quote, the guard's verdict (`ok`, or the broken `rule`
 * and why), the risk limit it would break, the kill switch, the approvals it would send. Nothing is
 * recorded or signed. A refusal by the service is 422 with the service's message.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/quotes', handle: getQuotes(engine) } as const
 * // curl 'http://127.0.0.1:8787/v1/quotes?chainId=31337&ticker=AAPL&exchange=0&side=buy&amountIn=1000'
 * // → {"quote":{…},"verdict":{"ok":true,…},"riskProblem":null,"halted":null,…}
 */
export function getQuotes(engine: SwapApiEngine) {
  return async (request: ControlRequest): Promise<ControlReply> => {
    const swap = readQuery(request, quoteQuerySchema, 'Invalid quote request')
    try {
      const preview = await engine.preview(
        {
          intentId: previewIntentId,
          chainId: swap.chainId,
          ticker: swap.ticker,
          exchange: swap.exchange,
          side: swap.side,
          amountIn: swap.amountIn,
          amountType: swap.amountType,
          limitPrice: swap.limitPrice,
        },
        { signal: request.signal },
      )
      return { status: 200, body: toPreviewView(preview) }
    } catch (error) {
      throw translateEngineError(error) ?? error
    }
  }
}
