/**
 * The wait before attempt `attempts + 1` after `attempts` failed ones: exponential from `baseMs`,
 * capped at `maxMs`, with "equal jitter" (between half and all of it) so that sinks that failed
 * together do not retry together. `random` is injectable for tests.
 *
 * @example
 * retryDelay(1, { baseMs: 1_000, maxMs: 300_000 }) // 500…1000
 * retryDelay(4, { baseMs: 1_000, maxMs: 300_000 }) // 4000…8000
 */
export function retryDelay(
  attempts: number,
  options: { baseMs: number; maxMs: number; random?: (() => number) | undefined },
): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30)
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** exponent)
  const random = options.random ?? Math.random
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}
