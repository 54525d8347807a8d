/** A map whose entries expire `ttlMs` after they were set, by the given clock. */
export type TtlCache<Value> = {
  get: (key: string, nowMs: number) => Value | undefined
  set: (key: string, value: Value, nowMs: number) => void
  /** Seconds the entry has left, for the response's cache headers. */
  remainingSeconds: (key: string, nowMs: number) => number
}

export function createTtlCache<Value>(ttlMs: number): TtlCache<Value> {
  const entries = new Map<string, { value: Value; expiresMs: number }>()
  return {
    get(key, nowMs) {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry.expiresMs <= nowMs) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },
    set(key, value, nowMs) {
      entries.set(key, { value, expiresMs: nowMs + ttlMs })
    },
    remainingSeconds(key, nowMs) {
      const entry = entries.get(key)
      return entry ? Math.max(0, Math.ceil((entry.expiresMs - nowMs) / 1000)) : 0
    },
  }
}
