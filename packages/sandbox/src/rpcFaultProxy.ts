import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { type Address, type Hex, keccak256, parseTransaction } from 'viem'
import { answer, forward, readBody, type UpstreamReply } from './rpcFaultProxyHttp.js'
import { seededRandom } from './seededRandom.js'

// A loopback HTTP proxy in front of one JSON-RPC endpoint (an anvil chain) that injects the faults a
// real node cannot be asked to produce: slow answers, requests lost before the node, answers lost
// after the node acted (the nasty one for eth_sendRawTransaction), and gateway errors. TEST AND SOAK
// ONLY: it is a named fault injector, never part of a deployment.

/**
 * The faults to inject, per request (a JSON-RPC batch is one request). Rates are probabilities from
 * 0 to 1; `dropRate + cutRate + errorRate` must not exceed 1 (each request gets at most one of them).
 * An empty object injects nothing.
 */
export type RpcFaults = {
  /** Latency added before the request is handled: `[min, max]` ms (uniform), or a fixed number. */
  delayMs?: number | readonly [number, number] | undefined
  /** Share of the eligible requests that get `delayMs` (default 1: all of them). */
  delayRate?: number | undefined
  /** The client's connection is destroyed without forwarding: the request never reached the node. */
  dropRate?: number | undefined
  /**
   * Forwarded to the node, then the client's connection is destroyed before the reply: the request
   * took effect, its answer is lost.
   */
  cutRate?: number | undefined
  /** Answered with HTTP 502 without forwarding. */
  errorRate?: number | undefined
  /**
   * Only requests calling one of these JSON-RPC methods get faults (a batch does when any member
   * does); default: every request.
   */
  methods?: readonly string[] | undefined
}

/** What happened to the requests of one method (or to all requests, in {@link RpcFaultStats}). */
export type RpcFaultCounters = {
  /** Requests received (a batch counts once for each distinct method of its members). */
  requests: number
  /** Requests eligible for faults (their method is listed in `methods`, or no list is set). */
  eligible: number
  delayed: number
  dropped: number
  cut: number
  errored: number
}

/** A transaction sent through the proxy, as {@link RpcFaultProxy.withholdTransactions}' filter sees it. */
export type SentTransactionView = { hash: Hex; to: Address | undefined; nonce: number; data: Hex | undefined }

export type RpcFaultStats = RpcFaultCounters & {
  /** `eth_sendRawTransaction` calls answered with the hash but never forwarded (withheld). */
  withheld: number
  /** HTTP requests forwarded to the node (cut ones included). */
  forwarded: number
  /** Requests the node could not be reached for (answered 502, not counted as `errored`). */
  upstreamErrors: number
  /** Per JSON-RPC method; `(unparsed)` for bodies that are not JSON-RPC. */
  byMethod: Record<string, RpcFaultCounters>
}

export type StartRpcFaultProxyParameters = {
  /** The JSON-RPC endpoint to forward to, e.g. an anvil `rpcUrl`. http only. */
  upstream: string
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number | undefined
  /** Seed of the fault draws: the same seed and request order give the same faults. Default 1. */
  seed?: number | undefined
  /** Faults active from the start (default none). */
  faults?: RpcFaults | undefined
}

export type RpcFaultProxy = {
  /** `http://127.0.0.1:PORT`: use it as the chain's RPC URL. */
  url: string
  /**
   * From now on, every `eth_sendRawTransaction` whose transaction `filter` picks is answered with
   * its hash as a node that accepted it would, and never forwarded: the node never has it, as if it
   * dropped it at once (the client's sends of it again are withheld too while the filter picks
   * them). A batch's other members are forwarded as usual. `undefined` turns it off. The way a
   * test makes one chosen transaction fail to land (say, an execute after its approval went through).
   */
  withholdTransactions(filter: ((tx: SentTransactionView) => boolean) | undefined): void
  /** Replaces the active faults (validated; throws {@link RpcFaultProxyError}); `{}` turns them off. */
  setFaults(faults: RpcFaults): void
  /** The active faults. */
  faults(): RpcFaults
  /** A copy of the counters since start. */
  stats(): RpcFaultStats
  /** Closes the server and every open connection; delayed requests are abandoned. Idempotent. */
  stop(): Promise<void>
}

/** Stable codes of {@link RpcFaultProxyError}. */
export type RpcFaultProxyErrorCode = 'RPC_FAULT_PROXY_BAD_PARAMETER' | 'RPC_FAULT_PROXY_LISTEN_FAILED'

/** Bad parameters for the proxy (an invalid rate, range or upstream URL), or a port it cannot listen on. */
export class RpcFaultProxyError extends StockrouteError {
  override name = 'RpcFaultProxyError'
  declare readonly code: RpcFaultProxyErrorCode
  constructor(
    shortMessage: string,
    options: { code?: RpcFaultProxyErrorCode; remedy?: string; cause?: unknown } = {},
  ) {
    const { code = 'RPC_FAULT_PROXY_BAD_PARAMETER', remedy, cause } = options
    super({
      code,
      shortMessage,
      remedy:
        remedy ??
        'pass the value the message asks for (see RpcFaults in @stockroute/sandbox, rpcFaultProxy.ts)',
      cause,
    })
  }
}

/**
 * Starts a fault-injecting JSON-RPC proxy on 127.0.0.1 in front of `upstream`. Headers and bodies
 * pass through unchanged (batches included); each request draws its fate from a seeded PRNG:
 * delayed, dropped (never forwarded), cut (forwarded, answer lost), answered 502, or passed.
 *
 * @example
 * const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: 7 })
 * proxy.setFaults({ cutRate: 1, methods: ['eth_sendRawTransaction'] })
 * // a wallet client on proxy.url: sendRawTransaction throws, yet the transaction is mined
 * proxy.stats().byMethod.eth_sendRawTransaction?.cut // 1
 * await proxy.stop()
 */
export async function startRpcFaultProxy(parameters: StartRpcFaultProxyParameters): Promise<RpcFaultProxy> {
  const proxy = newProxyState(parameters)
  const server = createProxyServer(proxy)
  const port = await listenOnLoopback(server, parameters.port ?? 0)
  return proxyHandle(proxy, server, port)
}

/** What one proxy holds: its upstream, active faults and draws, counters and open resources. */
type ProxyState = {
  upstream: URL
  active: RpcFaults
  random: () => number
  stats: RpcFaultStats
  withhold: ((tx: SentTransactionView) => boolean) | undefined
  agent: Agent
  sockets: Set<Socket>
  timers: Set<NodeJS.Timeout>
  stopped: boolean
  stopping: Promise<void> | undefined
}

function newProxyState(parameters: StartRpcFaultProxyParameters): ProxyState {
  return {
    upstream: parseUpstream(parameters.upstream),
    active: validateFaults(parameters.faults ?? {}),
    random: seededRandom(parameters.seed ?? 1),
    stats: { ...emptyCounters(), forwarded: 0, upstreamErrors: 0, withheld: 0, byMethod: {} },
    withhold: undefined,
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    sockets: new Set(),
    timers: new Set(),
    stopped: false,
    stopping: undefined,
  }
}

/** The HTTP server: reads each body whole, then handles it; tracks connections to close them on stop. */
function createProxyServer(proxy: ProxyState): Server {
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => handleRequest(proxy, req, res, body))
      .catch((error: unknown) => {
        if (!res.headersSent) answer(res, 400, `rpcFaultProxy: ${(error as Error).message}`)
        else req.socket.destroy()
      })
  })
  server.on('connection', (socket) => {
    proxy.sockets.add(socket)
    socket.once('close', () => proxy.sockets.delete(socket))
  })
  return server
}

async function handleRequest(proxy: ProxyState, req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const methods = methodsOf(body)
  const { delay, fault } = drawFate(proxy, methods)
  if (delay > 0) await sleep(proxy.timers, delay)
  if (proxy.stopped) return void req.socket.destroy()
  if (fault === 'drop') return void req.socket.destroy()
  if (fault === 'error') return answer(res, 502, 'Bad Gateway (rpcFaultProxy: injected fault)')
  const split = proxy.withhold ? withheldCalls(body, proxy.withhold) : undefined
  if (split && split.withheld.length > 0) return answerWithheld(proxy, req, res, split)
  proxy.stats.forwarded += 1
  let reply: UpstreamReply
  try {
    reply = await forward(proxy.upstream, proxy.agent, req, body)
  } catch (error) {
    return answerUpstreamFailure(proxy, res, error)
  }
  if (fault === 'cut') return void req.socket.destroy()
  res.writeHead(reply.status, reply.headers)
  res.end(reply.body)
}

/** Draws one request's delay and fault from the active faults, and counts them. */
function drawFate(proxy: ProxyState, methods: string[]): { delay: number; fault: Fault } {
  const faults = proxy.active
  const eligible = faults.methods === undefined || methods.some((m) => faults.methods?.includes(m))
  // Always three draws per request, so the faults of one request never shift those of the next.
  const delayDraw = proxy.random()
  const delayAmountDraw = proxy.random()
  const faultDraw = proxy.random()
  const delay = eligible && delayDraw < (faults.delayRate ?? 1) ? delayOf(faults.delayMs, delayAmountDraw) : 0
  const fault = eligible ? pickFault(faults, faultDraw) : 'none'
  count(proxy.stats, methods, (counters) => {
    counters.requests += 1
    if (eligible) counters.eligible += 1
    if (delay > 0) counters.delayed += 1
    if (fault === 'drop') counters.dropped += 1
    if (fault === 'cut') counters.cut += 1
    if (fault === 'error') counters.errored += 1
  })
  return { delay, fault }
}

/** The node could not be reached: 502, counted apart from the injected faults. */
function answerUpstreamFailure(proxy: ProxyState, res: ServerResponse, error: unknown) {
  proxy.stats.upstreamErrors += 1
  answer(
    res,
    502,
    `Bad Gateway (rpcFaultProxy: upstream ${proxy.upstream.href}: ${(error as Error).message})`,
  )
}

/** Answers the withheld calls with their hashes, and forwards the rest of their batch, if any. */
async function answerWithheld(
  proxy: ProxyState,
  req: IncomingMessage,
  res: ServerResponse,
  split: WithheldSplit,
) {
  proxy.stats.withheld += split.withheld.length
  let replies = split.withheld
  if (split.rest.length > 0) {
    proxy.stats.forwarded += 1
    try {
      const reply = await forward(proxy.upstream, proxy.agent, req, Buffer.from(JSON.stringify(split.rest)))
      const parsed: unknown = JSON.parse(reply.body.toString('utf8'))
      replies = [...(Array.isArray(parsed) ? parsed : [parsed]), ...replies]
    } catch (error) {
      return answerUpstreamFailure(proxy, res, error)
    }
  }
  const text = JSON.stringify(split.batch ? replies : replies[0])
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function count(stats: RpcFaultStats, methods: string[], update: (counters: RpcFaultCounters) => void) {
  update(stats)
  for (const method of new Set(methods.length > 0 ? methods : ['(unparsed)'])) {
    stats.byMethod[method] ??= emptyCounters()
    update(stats.byMethod[method])
  }
}

/** A delay that {@link stopProxy} can cancel: its timer stays in `timers` until it fires. */
function sleep(timers: Set<NodeJS.Timeout>, ms: number) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      resolve()
    }, ms)
    timers.add(timer)
  })
}

/** Listens on 127.0.0.1:`port` (0: a free one) and returns the port. */
async function listenOnLoopback(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new RpcFaultProxyError(`rpcFaultProxy cannot listen on 127.0.0.1:${port}: ${error.message}`, {
          code: 'RPC_FAULT_PROXY_LISTEN_FAILED',
          remedy: 'choose a free port, or 0 to let the system pick one',
          cause: error,
        }),
      ),
    )
    server.listen(port, '127.0.0.1', () => resolve())
  })
  return (server.address() as AddressInfo).port
}

/** The {@link RpcFaultProxy} a caller holds. */
function proxyHandle(proxy: ProxyState, server: Server, port: number): RpcFaultProxy {
  return {
    url: `http://127.0.0.1:${port}`,
    setFaults(faults) {
      proxy.active = validateFaults(faults)
    },
    withholdTransactions(filter) {
      proxy.withhold = filter
    },
    faults: () => ({ ...proxy.active }),
    stats: () => ({
      ...proxy.stats,
      byMethod: Object.fromEntries(Object.entries(proxy.stats.byMethod).map(([m, c]) => [m, { ...c }])),
    }),
    stop: () => stopProxy(proxy, server),
  }
}

/** Closes the server and every open connection, abandoning delayed requests; idempotent. */
function stopProxy(proxy: ProxyState, server: Server): Promise<void> {
  proxy.stopping ??= new Promise<void>((resolve) => {
    proxy.stopped = true
    for (const timer of proxy.timers) clearTimeout(timer)
    proxy.timers.clear()
    server.close(() => resolve())
    for (const socket of proxy.sockets) socket.destroy()
    proxy.agent.destroy()
  })
  return proxy.stopping
}

type Fault = 'none' | 'drop' | 'cut' | 'error'

type JsonRpcCall = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown }
type WithheldSplit = { batch: boolean; withheld: unknown[]; rest: JsonRpcCall[] }

/** The `eth_sendRawTransaction` calls of a body that `filter` withholds (with their replies), and the rest. */
function withheldCalls(
  body: Buffer,
  filter: (tx: SentTransactionView) => boolean,
): WithheldSplit | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
  const batch = Array.isArray(parsed)
  const calls = (batch ? parsed : [parsed]) as JsonRpcCall[]
  const split: WithheldSplit = { batch, withheld: [], rest: [] }
  for (const call of calls) {
    const raw =
      call?.method === 'eth_sendRawTransaction' && Array.isArray(call.params) ? call.params[0] : undefined
    const view = typeof raw === 'string' ? viewOf(raw as Hex) : undefined
    if (view && filter(view)) split.withheld.push({ jsonrpc: '2.0', id: call.id, result: view.hash })
    else split.rest.push(call)
  }
  return split
}

function viewOf(raw: Hex): SentTransactionView | undefined {
  try {
    const tx = parseTransaction(raw)
    return { hash: keccak256(raw), to: tx.to ?? undefined, nonce: tx.nonce ?? 0, data: tx.data }
  } catch {
    return undefined
  }
}

function pickFault(faults: RpcFaults, draw: number): Fault {
  let bound = faults.errorRate ?? 0
  if (draw < bound) return 'error'
  bound += faults.dropRate ?? 0
  if (draw < bound) return 'drop'
  bound += faults.cutRate ?? 0
  if (draw < bound) return 'cut'
  return 'none'
}

function delayOf(delayMs: RpcFaults['delayMs'], draw: number): number {
  if (delayMs === undefined) return 0
  if (typeof delayMs === 'number') return delayMs
  const [min, max] = delayMs
  return Math.round(min + (max - min) * draw)
}

/** The JSON-RPC methods a body calls: one for a call, each member's for a batch; [] when not JSON-RPC. */
function methodsOf(body: Buffer): string[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return []
  }
  const calls = Array.isArray(parsed) ? parsed : [parsed]
  return calls.flatMap((call) =>
    typeof call === 'object' && call !== null && typeof (call as { method?: unknown }).method === 'string'
      ? [(call as { method: string }).method]
      : [],
  )
}

function validateFaults(faults: RpcFaults): RpcFaults {
  const rate = (name: 'delayRate' | 'dropRate' | 'cutRate' | 'errorRate') => {
    const value = faults[name]
    if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= 1))
      throw new RpcFaultProxyError(`${name} must be a probability from 0 to 1, got ${String(value)}`)
    return value ?? 0
  }
  rate('delayRate')
  const total = rate('dropRate') + rate('cutRate') + rate('errorRate')
  if (total > 1 + 1e-9)
    throw new RpcFaultProxyError(
      `dropRate + cutRate + errorRate must not exceed 1 (a request gets at most one of them), got ${total}`,
    )
  const { delayMs } = faults
  const range = delayMs === undefined ? [] : typeof delayMs === 'number' ? [delayMs, delayMs] : delayMs
  const [min, max] = range
  if (delayMs !== undefined && !(range.length === 2 && isDelay(min) && isDelay(max) && min <= max))
    throw new RpcFaultProxyError(
      `delayMs must be a number of ms or a [min, max] range with 0 <= min <= max <= 600000, got ${JSON.stringify(delayMs)}`,
    )
  if (faults.methods !== undefined && !faults.methods.every((m) => typeof m === 'string' && m.length > 0))
    throw new RpcFaultProxyError(
      'methods must be a list of JSON-RPC method names, e.g. ["eth_sendRawTransaction"]',
    )
  return { ...faults, ...(faults.methods ? { methods: [...faults.methods] } : {}) }
}

function isDelay(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0 && value <= 600_000
}

function parseUpstream(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new RpcFaultProxyError(
      `upstream must be an http URL such as http://127.0.0.1:8545, got ${JSON.stringify(text)}`,
    )
  }
  if (url.protocol !== 'http:')
    throw new RpcFaultProxyError(
      `upstream must be an http URL (the proxy speaks plain HTTP), got ${url.protocol}`,
    )
  return url
}

function emptyCounters(): RpcFaultCounters {
  return { requests: 0, eligible: 0, delayed: 0, dropped: 0, cut: 0, errored: 0 }
}
