import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/** What viem's HTTP transport reads of a response; a plain object, not a WHATWG `Response`. */
type MinimalResponse = Pick<Response, 'ok' | 'status' | 'statusText' | 'body' | 'text' | 'json'> & {
  headers: Pick<Headers, 'get'>
}

/**
 * A `fetch` for JSON-RPC over Node's own HTTP client with keep-alive sockets, for viem's HTTP
 * transport (`http(url, { fetchFn })`). Node's global `fetch` (undici, web streams, a `Response` per
 * reply) costs several times more CPU per request; a trading process makes a dozen requests per
 * execution. Same contract for viem: a rejection for a request that got no answer (its error as
 * `cause`), an `AbortError` when the signal aborts, the status and body otherwise.
 *
 * @example
 * const transport = http(rpcUrl, { fetchFn: createNodeFetch() })
 */
export function createNodeFetch(options: { maxSockets?: number } = {}): typeof fetch {
  const maxSockets = options.maxSockets ?? 64
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets }),
    https: new HttpsAgent({ keepAlive: true, maxSockets }),
  }
  const nodeFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<MinimalResponse> =>
    new Promise((resolve, reject) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
      const secure = url.protocol === 'https:'
      const body = typeof init.body === 'string' ? init.body : ''
      const headers: Record<string, string> = {}
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value
      })
      headers['content-length'] = String(Buffer.byteLength(body))
      const send = secure ? httpsRequest : httpRequest
      const request = send(
        url,
        {
          method: init.method ?? 'POST',
          headers,
          agent: secure ? agents.https : agents.http,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('error', reject)
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            const status = response.statusCode ?? 0
            resolve({
              ok: status >= 200 && status < 300,
              status,
              statusText: response.statusMessage ?? '',
              body: null,
              headers: {
                get: (name: string) => {
                  const value = response.headers[name.toLowerCase()]
                  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
                },
              },
              text: async () => text,
              json: async () => JSON.parse(text),
            })
          })
        },
      )
      request.on('error', reject)
      request.end(body)
    })
  return nodeFetch as unknown as typeof fetch
}
