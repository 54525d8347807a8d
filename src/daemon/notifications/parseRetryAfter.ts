/**
 * How long a sink asked to wait, in ms, from a 429 (or 503) reply: the `Retry-After` header (seconds
 * or an HTTP date), else `retry_after` (Discord, seconds) or `parameters.retry_after` (Telegram) in
 * the JSON body. Undefined when the reply says nothing usable.
 *
 * @example
 * parseRetryAfter('2', '', Date.now()) // 2000
 * parseRetryAfter(null, '{"ok":false,"parameters":{"retry_after":3}}', Date.now()) // 3000
 */
export function parseRetryAfter(header: string | null, body: string, nowMs: number): number | undefined {
  if (header !== null && header.trim() !== '') {
    const value = header.trim()
    if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000)
    const at = Date.parse(value)
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs)
  }
  try {
    const parsed = JSON.parse(body) as { retry_after?: unknown; parameters?: { retry_after?: unknown } }
    const seconds = parsed?.retry_after ?? parsed?.parameters?.retry_after
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)
      return Math.ceil(seconds * 1000)
  } catch {
    // Not JSON: no hint in the body.
  }
  return undefined
}
