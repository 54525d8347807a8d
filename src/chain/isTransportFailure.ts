import { BaseError, HttpRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem'

/**
 * Whether a call failed for want of an answer (connection refused, reset, timed out, a 5xx from a
 * proxy) rather than because the node answered no: such a call may be tried again. Looks through
 * `cause` chains, so a {@link ChainRpcError} wrapping a timeout counts.
 *
 * @example
 * try {
 *   await readDecimals(publicClient, token)
 * } catch (error) {
 *   if (isTransportFailure(error)) retryLater()
 * }
 */
export function isTransportFailure(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 10; depth++) {
    if (cause instanceof BaseError) {
      const found = cause.walk(
        (inner) =>
          inner instanceof HttpRequestError ||
          inner instanceof TimeoutError ||
          inner instanceof SocketClosedError ||
          inner instanceof WebSocketRequestError,
      )
      return Boolean(found)
    }
    cause = cause.cause
  }
  return false
}
