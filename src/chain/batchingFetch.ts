/** What viem's HTTP transport reads of a response (see nodeFetch.ts). */
type MinimalResponse = Pick<Response, 'ok' | 'status' | 'statusText' | 'body' | 'text' | 'json'> & {
  headers: Pick<Headers, 'get'>
}

type Waiting = {
  call: Record<string, unknown>
  init: RequestInit
  resolve: (response: MinimalResponse) => void
  reject: (error: unknown) => void
  /** Set once the caller's signal aborted: it was answered, nothing more is owed to it. */
  settled: boolean
}

export type BatchingFetchOptions = {
  /** Most calls in one batch request; the rest go in further requests of the same turn. Default 20. */
  maxBatchSize?: number | undefined
}

/** What a batching fetch has done, for tests and logs. */
export type BatchingFetchStats = {
  /** HTTP requests sent, single or batch. */
  requests: number
  /** JSON-RPC calls carried in batch requests. */
  batchedCalls: number
  /** Origins whose node answered a batch with something other than a list: each call is sent alone there from then on. */
  refusedBy: string[]
}

export type BatchingFetch = typeof fetch & {
  stats(): BatchingFetchStats
  /**
   * Resolves once the calls made so far, this turn's included, have been handed to the HTTP
   * client: after this turn's callbacks and their promise chains (viem's, between a call and its
   * `fetch`), earlier than the turn's own flush would send them. CPU-bound work awaited after it
   * overlaps the node's answer instead of delaying its question.
   */
  sendQueued(): Promise<void>
}

/**
 * A `fetch` for viem's HTTP transport that sends the JSON-RPC calls made in one turn of the event
 * loop as ONE batch request (JSON-RPC 2.0 batch), then hands each caller its own answer as if it had
 * been sent alone. On a loopback or LAN node each HTTP round trip costs far more than the call it
 * carries (two socket writes, two wake-ups), and a pipelined engine makes its calls in clusters: an
 * approval and its execute, their receipts, several executions' reads. A call made alone is sent
 * alone, at once (the turn ends before any timer), so nothing waits on a batch.
 *
 * A caller's signal still ends its own wait; the shared request is aborted only when every caller
 * in it has gone. A node that answers a batch with anything but a list (batches unsupported, too
 * large) gets each call again on its own, and no batch from then on. An HTTP error status is every
 * caller's answer, as it would have been alone (viem then retries reads as configured).
 *
 * @example
 * const transport = http(rpcUrl, { fetchFn: createBatchingFetch(createNodeFetch()) })
 */
export function createBatchingFetch(send: typeof fetch, options: BatchingFetchOptions = {}): BatchingFetch {
  const maxBatchSize = options.maxBatchSize ?? 20
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1)
    throw new RangeError(
      `maxBatchSize ${maxBatchSize} must be a whole number >= 1 (1 sends every call alone)`,
    )
  const queues = new Map<string, Waiting[]>()
  const refused = new Set<string>()
  const stats = { requests: 0, batchedCalls: 0 }

  const sendAlone = (url: string, init: RequestInit) => {
    stats.requests += 1
    return send(url, init) as unknown as Promise<MinimalResponse>
  }

  const flush = (url: string) => {
    const waiting = queues.get(url) ?? []
    queues.delete(url)
    const live = waiting.filter((entry) => !entry.settled)
    for (let start = 0; start < live.length; start += maxBatchSize)
      void sendBatch(url, live.slice(start, start + maxBatchSize))
  }

  const answerAlone = (url: string, entry: Waiting) =>
    sendAlone(url, entry.init).then(
      (response) => settle(entry, () => entry.resolve(response)),
      (error: unknown) => settle(entry, () => entry.reject(error)),
    )

  const sendBatch = async (url: string, entries: Waiting[]) => {
    const [first] = entries
    if (!first) return
    if (entries.length === 1) return answerAlone(url, first)
    stats.batchedCalls += entries.length
    // The shared request goes when the last of its callers does.
    const shared = new AbortController()
    const release = entries.map((entry) =>
      onAbort(entry.init.signal, () => {
        if (entries.every((other) => other.settled || other.init.signal?.aborted)) shared.abort()
      }),
    )
    try {
      const body = JSON.stringify(entries.map((entry, index) => ({ ...entry.call, id: index })))
      const response = await sendAlone(url, {
        method: 'POST',
        ...(first.init.headers ? { headers: first.init.headers } : {}),
        body,
        signal: shared.signal,
      })
      const text = await response.text()
      if (!response.ok) {
        for (const entry of entries) settle(entry, () => entry.resolve(textResponse(response, text)))
        return
      }
      const answers = parseList(text)
      if (!answers) {
        // Batches refused (or unreadable): each call on its own, from now on.
        refused.add(originOf(url))
        for (const entry of entries) void answerAlone(url, entry)
        return
      }
      const byId = new Map(answers.map((answer) => [answer.id, answer]))
      for (const [index, entry] of entries.entries()) {
        const answer = byId.get(index)
        if (answer === undefined) {
          void answerAlone(url, entry)
          continue
        }
        const own = JSON.stringify({ ...answer, id: entry.call.id })
        settle(entry, () => entry.resolve(textResponse(response, own)))
      }
    } catch (error) {
      for (const entry of entries) settle(entry, () => entry.reject(error))
    } finally {
      for (const stop of release) stop()
    }
  }

  const batchingFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<MinimalResponse> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const call = maxBatchSize > 1 && !refused.has(originOf(url)) ? singleCall(init.body) : undefined
    if (!call) return sendAlone(url, init)
    return new Promise((resolve, reject) => {
      const entry: Waiting = { call, init, resolve, reject, settled: false }
      const signal = init.signal
      if (signal?.aborted) return reject(abortReason(signal))
      if (signal) onAbort(signal, () => settle(entry, () => reject(abortReason(signal))))
      const queue = queues.get(url)
      if (queue) queue.push(entry)
      else {
        queues.set(url, [entry])
        // After this turn's I/O callbacks: every call they made goes in the same request.
        setImmediate(flush, url)
      }
    })
  }
  return Object.assign(batchingFetch as unknown as typeof fetch, {
    stats: (): BatchingFetchStats => ({ ...stats, refusedBy: [...refused] }),
    // An immediate queued now runs after every promise chain started before it has settled or
    // reached a `fetch`; the flush it does leaves nothing for the turn's own (a no-op then).
    sendQueued: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          for (const url of [...queues.keys()]) flush(url)
          resolve()
        }),
      ),
  })
}

/** Answers a caller once: the first of its answer and its signal's abort wins. */
function settle(entry: Waiting, answer: () => void): void {
  if (entry.settled) return
  entry.settled = true
  answer()
}

/** The body as one JSON-RPC call object; undefined for anything else (a batch already, not JSON). */
function singleCall(body: RequestInit['body']): Record<string, unknown> | undefined {
  if (typeof body !== 'string' || !body.startsWith('{')) return undefined
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === 'object' && parsed !== null && 'method' in parsed
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function parseList(text: string): { id: unknown }[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? (parsed as { id: unknown }[]) : undefined
  } catch {
    return undefined
  }
}

function textResponse(response: MinimalResponse, text: string): MinimalResponse {
  return {
    ok: response.ok,
    status: response.status,
    statusText: response.statusText,
    body: null,
    headers: {
      get: (name: string) => (name.toLowerCase() === 'content-length' ? null : response.headers.get(name)),
    },
    text: async () => text,
    json: async () => JSON.parse(text),
  }
}

function onAbort(signal: AbortSignal | null | undefined, listener: () => void): () => void {
  if (!signal) return () => undefined
  signal.addEventListener('abort', listener, { once: true })
  return () => signal.removeEventListener('abort', listener)
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
