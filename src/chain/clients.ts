import PQueue from 'p-queue'
import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type HttpTransport,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem'
import { createBatchingFetch } from './batchingFetch.js'
import { createNodeFetch } from './nodeFetch.js'

export type DefineRpcChainParameters = {
  chainId: number
  rpcUrl: string
  /** Shown in viem's errors; default `Chain <id>`. */
  name?: string | undefined
}

/**
 * A viem chain for any chain id and RPC URL (the service's chains need not be in viem's list).
 * The native currency is taken to be 18-decimal ETH; stockroute never prices anything in it.
 *
 * @example
 * const chain = defineRpcChain({ chainId: 31337, rpcUrl: 'http://127.0.0.1:8545' })
 * chain.id // 31337
 */
export function defineRpcChain(parameters: DefineRpcChainParameters): Chain {
  const { chainId, rpcUrl, name = `Chain ${chainId}` } = parameters
  if (!Number.isSafeInteger(chainId) || chainId <= 0)
    throw new RangeError(`chainId ${chainId} is not a positive integer: use the chain's EIP-155 id`)
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

export type CreateChainClientsParameters<account extends Account | undefined = Account | undefined> = {
  chainId: number
  /** HTTP(S) JSON-RPC endpoint. */
  rpcUrl: string
  /** The taker's account (a local account signs in process). Without it, no wallet client. */
  account?: account
  name?: string | undefined
  /** Per-request timeout, ms. Default 10 000. */
  timeoutMs?: number | undefined
  /** Automatic retries of the public client's reads (idempotent). Default 2. Sends never retry. */
  readRetryCount?: number | undefined
  /** Base delay of the read retries' exponential backoff, ms. Default 150. */
  readRetryDelayMs?: number | undefined
  /**
   * Most RPC requests of the public client in flight at once; the rest wait in a queue (p-queue),
   * so a burst of reads cannot flood the node. Default 8. Sends are not queued here.
   */
  maxConcurrentReads?: number | undefined
  /**
   * Most JSON-RPC calls sent together in one batch request: the calls made in one turn of the event
   * loop share a request (see batchingFetch.ts). Default 20; 1 sends every call alone.
   */
  rpcBatchSize?: number | undefined
}

export type ChainClients<account extends Account | undefined = Account | undefined> = {
  chain: Chain
  /** Reads, simulations, logs, receipts; retries transient failures `readRetryCount` times. */
  publicClient: PublicClient<HttpTransport, Chain>
  /**
   * Signs and sends as `account`. Its transport never retries (retryCount 0), see
   * {@link createChainClients}. Present only when an account was given.
   */
  walletClient: account extends Account ? WalletClient<HttpTransport, Chain, account> : undefined
  /**
   * A wallet client for another account on the same send transport, so that the sends of all the
   * chain's wallets made in one turn share a batch request.
   */
  walletClientFor<other extends Account>(account: other): WalletClient<HttpTransport, Chain, other>
  /** Resolves once the public client's calls made so far are sent (batchingFetch.ts, `sendQueued`). */
  sendQueuedReads(): Promise<void>
}

/**
 * The viem clients of one chain, to be created once per chain and kept for the process' lifetime
 * so that their HTTP connections are reused: Node's fetch (undici) keeps connections alive and
 * pools them per origin, so every read after the first goes over an open socket.
 *
 * Retries: the public client retries reads (they are idempotent). The wallet client's transport
 * never retries anything. viem itself already sends `eth_sendRawTransaction` with no retry and
 * never re-signs; keeping the whole wallet transport at zero retries means a failed send surfaces
 * at once, with the signed transaction still in the caller's hands. A re-broadcast of that same
 * signed transaction (same hash, same nonce) is harmless and is the caller's decision, made after
 * it has stored the transaction; signing a new transaction for the same intent never is.
 *
 * @example
 * const { publicClient, walletClient } = createChainClients({
 *   chainId: 31337,
 *   rpcUrl: 'http://127.0.0.1:8545',
 *   account: privateKeyToAccount(privateKey),
 * })
 * const raw = await walletClient.signTransaction(await walletClient.prepareTransactionRequest(request))
 * // store `raw` and its hash, then:
 * await walletClient.sendRawTransaction({ serializedTransaction: raw })
 */
export function createChainClients<account extends Account | undefined = undefined>(
  parameters: CreateChainClientsParameters<account>,
): ChainClients<account> {
  const {
    chainId,
    rpcUrl,
    account,
    name,
    timeoutMs = 10_000,
    readRetryCount = 2,
    readRetryDelayMs = 150,
    maxConcurrentReads = 8,
    rpcBatchSize = 20,
  } = parameters
  const chain = defineRpcChain({ chainId, rpcUrl, name })
  const readFetch = createBatchingFetch(boundedFetch(maxConcurrentReads), { maxBatchSize: rpcBatchSize })
  const publicClient = createPublicClient({
    chain,
    transport: http(rpcUrl, {
      timeout: timeoutMs,
      retryCount: readRetryCount,
      retryDelay: readRetryDelayMs,
      fetchFn: readFetch,
    }),
  })
  const sendTransport = http(rpcUrl, {
    timeout: timeoutMs,
    retryCount: 0,
    fetchFn: createBatchingFetch(createNodeFetch(), { maxBatchSize: rpcBatchSize }),
  })
  const walletClientFor = <other extends Account>(other: other) =>
    createWalletClient({ account: other, chain, transport: sendTransport })
  const walletClient = account ? walletClientFor(account) : undefined
  return {
    chain,
    publicClient,
    walletClient,
    walletClientFor,
    sendQueuedReads: readFetch.sendQueued,
  } as ChainClients<account>
}

/** A `fetch` (Node's HTTP client, see nodeFetch.ts) with at most `concurrency` requests in flight; the others wait their turn in order. */
function boundedFetch(concurrency: number): typeof fetch {
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`maxConcurrentReads ${concurrency} must be a whole number >= 1`)
  const queue = new PQueue({ concurrency })
  const send = createNodeFetch()
  return (input, init) => queue.add(() => send(input, init))
}
