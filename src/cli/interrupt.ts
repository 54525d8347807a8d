/**
 * Runs `call` with an AbortSignal that the first Ctrl-C (SIGINT) aborts, so an interrupted command
 * stops its requests instead of waiting for them; the handler is removed afterwards.
 *
 * @example
 * const chains = await withInterrupt((signal) => getChains(client, {}, { signal }))
 */
export async function withInterrupt<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const abort = () => controller.abort(new Error('interrupted'))
  process.once('SIGINT', abort)
  try {
    return await call(controller.signal)
  } finally {
    process.off('SIGINT', abort)
  }
}
