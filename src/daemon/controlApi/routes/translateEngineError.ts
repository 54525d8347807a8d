import { RouterQuoteParameterError } from '@stockroute/client/api/actions/getRouterQuote.js'
import {
  ServiceBadRequestError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceTimeoutError,
  ServiceTransportError,
  ServiceUnavailableError,
  serviceErrorText,
} from '@stockroute/client/api/errors.js'
import { EngineError } from '../../../engine/index.js'
import { ControlApiError } from '../errors.js'

/**
 * The control API's answer to an error of `engine.submit` or `engine.preview` that the caller can
 * act on: a refused intent or unknown chain (400, with the engine's message), a refusal by the
 * service (422, with the service's message), the service or engine unavailable (503). Anything
 * else is `undefined`: an internal failure, logged and answered 500 without details.
 *
 * @example
 * try {
 *   await engine.preview(intent)
 * } catch (error) {
 *   throw translateEngineError(error) ?? error
 * }
 */
export function translateEngineError(error: unknown): ControlApiError | undefined {
  if (error instanceof EngineError) {
    if (error.code === 'INVALID_INTENT' || error.code === 'UNKNOWN_CHAIN')
      return new ControlApiError({ status: 400, code: error.code, message: error.shortMessage, cause: error })
    if (error.code === 'ENGINE_CLOSED')
      return new ControlApiError({
        status: 503,
        code: 'ENGINE_CLOSED',
        message: 'The daemon is shutting down and takes no new swaps: retry once it is running again.',
        headers: { 'retry-after': '5' },
        cause: error,
      })
    return undefined
  }
  if (error instanceof RouterQuoteParameterError)
    return new ControlApiError({
      status: 400,
      code: 'BAD_REQUEST',
      message: `Invalid swap request: ${error.shortMessage}`,
      problems: [{ field: String(error.details.parameter ?? 'request'), problem: error.problem }],
      cause: error,
    })
  if (error instanceof ServiceNotFoundError || error instanceof ServiceBadRequestError) {
    const hint =
      error instanceof ServiceNotFoundError
        ? 'check chainId, ticker and exchange: the service does not list this token on this chain'
        : 'change the request as the message says; the same request will be refused again'
    return new ControlApiError({
      status: 422,
      code: 'SERVICE_REFUSED',
      message: `The service refused the request (${error.status}: ${serviceErrorText(error.body)}): ${hint}.`,
      cause: error,
    })
  }
  if (error instanceof ServiceRateLimitError)
    return new ControlApiError({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The service is rate limiting the daemon: retry after the Retry-After delay.',
      headers: { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) },
      cause: error,
    })
  if (
    error instanceof ServiceUnavailableError ||
    error instanceof ServiceTransportError ||
    error instanceof ServiceTimeoutError
  )
    return new ControlApiError({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The service is unavailable or did not answer in time: retry shortly.',
      headers: { 'retry-after': '2' },
      cause: error,
    })
  return undefined
}
