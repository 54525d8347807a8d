import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import type { Hex } from 'viem'
import {
  balancesSchema,
  type ExecutionView,
  executionPageSchema,
  type SwapExecutionView,
  swapAcceptedSchema,
  swapExecutionSchema,
} from '../../daemon/controlApi/contract.js'
import { type ExecutionRecord, terminalExecutionStates } from '../../store/index.js'
import { describeSwap, swapResult } from '../commands/swapResult.js'
import { exitCodes } from '../exitCodes.js'
import { assertSameTrade } from '../intentReuse.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import type { DaemonClient } from './createDaemonClient.js'
import { DaemonClientError } from './daemonClientError.js'
import { swapOutcomeOfView } from './swapOutcomeOfView.js'

/** How often the CLI asks the daemon how a swap it handed over is doing, ms. */
const pollIntervalMs = 250

/** The trade a `stockroute swap` names, as it goes to `POST /v1/swaps`. */
export type DaemonSwap = {
  chain: number
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  amount: string
  amountType?: 'stablecoin' | 'stocktoken' | undefined
  limitPrice?: Price | undefined
  intentId?: string | undefined
  json?: boolean | undefined
}

/** How far the hand-over got when Ctrl-C came: what the CLI can say of the swap. */
type Handover = { kind: 'nothing sent' } | { kind: 'sent' } | { kind: 'recorded'; executionId: number }

/**
 * `stockroute swap` while a daemon owns the ledger: hands the trade to the daemon (`POST /v1/swaps`,
 * the intent id as `Idempotency-Key`, recorded by the daemon as intent `api:<key>`), shows each
 * state change on stderr while it runs (`GET /v1/swaps/:id`, polled), then prints the outcome as the
 * direct path does, from the last reply: the execution, its quote, transactions and fills. Nothing
 * is read from the daemon's ledger file; `context.ledgerPath` only names it in the result. An intent
 * id the ledger already holds (a swap made without the daemon, found with `GET
 * /v1/executions?intentId=`) is not sent again. Ctrl-C stops waiting, not the swap: the daemon
 * carries it on. A daemon lost mid-swap is an error naming the execution and how to see it to its
 * end. Exit code 0 when confirmed, 1 otherwise.
 *
 * @example
 * await swapThroughDaemon(client, { chain: 31337, ticker: 'AAPL', exchange: 0, side: 'buy', amount: '1000' }, { ledgerPath, dryRun: false })
 */
export async function swapThroughDaemon(
  client: DaemonClient,
  swap: DaemonSwap,
  context: { ledgerPath: string; dryRun: boolean },
): Promise<void> {
  const startedAt = performance.now()
  const elapsedMs = () => Math.round(performance.now() - startedAt)
  const key = swap.intentId ?? `cli-${randomUUID()}`
  if (!/^[A-Za-z0-9._:-]{1,200}$/.test(key))
    throw new DaemonClientError({
      code: 'DAEMON_REFUSED',
      shortMessage: `--intent-id ${JSON.stringify(key)} cannot go to the daemon: its swap API takes intent ids of letters, digits and . _ : - only (it is the Idempotency-Key). Choose such an id, e.g. buy-aapl-2026-11-22.`,
    })
  // Assigned inside the call below; `as` keeps TypeScript from narrowing it to its first value.
  let handover = { kind: 'nothing sent' } as Handover
  const ended = await withInterrupt(async (signal) => {
    const earlier = await executionOfIntent(client, key, signal)
    if (earlier) {
      assertSameTrade(key, { ...swap, chainId: swap.chain, amountIn: swap.amount }, recordedTrade(earlier))
      process.stderr.write(
        `intent ${key} has execution ${earlier.executionId} already (${earlier.state}): it is not executed again\n`,
      )
      handover = { kind: 'recorded', executionId: earlier.executionId }
      const view = await readSwap(client, earlier.executionId, signal)
      const wait = { key, elapsedMs, signal }
      return { view: isTerminal(view) ? view : await waitUntilFinished(client, view, wait), replay: true }
    }
    handover = { kind: 'sent' }
    const reply = await client.request('POST', '/v1/swaps', {
      headers: { 'idempotency-key': key },
      body: {
        chainId: swap.chain,
        ticker: swap.ticker,
        exchange: swap.exchange,
        side: swap.side,
        amountIn: swap.amount,
        ...(swap.amountType ? { amountType: swap.amountType } : {}),
        ...(swap.limitPrice === undefined ? {} : { limitPrice: formatPrice(swap.limitPrice) }),
      },
      schema: swapAcceptedSchema,
      signal,
    })
    handover = { kind: 'recorded', executionId: reply.executionId }
    process.stderr.write(
      `[+${elapsedMs()} ms] execution ${reply.executionId} (intent ${reply.intentId}) handed to the daemon: ${reply.state}\n`,
    )
    return { view: await waitUntilFinished(client, reply, { key, elapsedMs, signal }), replay: false }
  }).catch((error: unknown) => {
    if (error instanceof Error && (error.message === 'interrupted' || error.name === 'AbortError'))
      return undefined
    throw error
  })
  if (ended === undefined) {
    process.stderr.write(`${interruptedNote(handover, key)}\n`)
    process.exitCode = exitCodes.interrupted
    return
  }
  const { view, replay } = ended
  const outcome = swapOutcomeOfView(view)
  const asset = await assetOf(client, view)
  const result = swapResult(outcome, {
    asset,
    dryRun: context.dryRun,
    ledgerPath: context.ledgerPath,
    elapsedMs: elapsedMs(),
    via: { kind: 'daemon', pid: client.pid, url: client.url },
    replay,
  })
  printResult(swap.json, result, () => describeSwap(result, outcome.execution))
  if (!result.done) process.exitCode = exitCodes.refused
}

/** What Ctrl-C leaves: nothing sent, a swap the daemon may have, or one it carries on. */
function interruptedNote(handover: Handover, key: string): string {
  if (handover.kind === 'nothing sent') return 'stopped: nothing was sent to the daemon'
  if (handover.kind === 'sent')
    return `stopped: the daemon may have recorded the swap; run the command again with --intent-id ${key} to see it (it is never executed twice)`
  return `stopped waiting: the daemon carries the swap on; follow it with \`stockroute executions show ${handover.executionId}\``
}

const isTerminal = (view: { state: string }) =>
  (terminalExecutionStates as readonly string[]).includes(view.state)

/** The execution the ledger holds for intent `key` exactly (one made without the daemon), if any. */
async function executionOfIntent(
  client: DaemonClient,
  key: string,
  signal: AbortSignal,
): Promise<ExecutionView | undefined> {
  const page = await client.request('GET', '/v1/executions', {
    query: { intentId: key, limit: 1 },
    schema: executionPageSchema,
    signal,
  })
  return page.executions[0]
}

/** `GET /v1/swaps/:id`: the execution with its quote, transactions and fills. */
function readSwap(
  client: DaemonClient,
  executionId: number,
  signal: AbortSignal,
): Promise<SwapExecutionView> {
  return client.request('GET', `/v1/swaps/${executionId}`, { schema: swapExecutionSchema, signal })
}

/**
 * Polls `GET /v1/swaps/:id` until the execution is terminal, one stderr line per state change, and
 * returns the last reply. Losing the daemon on the way is an error that names the execution and
 * says how to see it to its end.
 */
async function waitUntilFinished(
  client: DaemonClient,
  execution: { executionId: number; intentId: string },
  options: { key: string; elapsedMs: () => number; signal: AbortSignal },
): Promise<SwapExecutionView> {
  const { executionId } = execution
  let last = ''
  for (;;) {
    let view: SwapExecutionView
    try {
      view = await readSwap(client, executionId, options.signal)
    } catch (error) {
      throw lostMidSwap(error, execution, options.key)
    }
    const seen = `${view.state}\n${view.reason}`
    if (seen !== last) {
      process.stderr.write(
        `[+${options.elapsedMs()} ms] execution ${executionId} ${view.state}: ${printable(view.reason)}\n`,
      )
      last = seen
    }
    if (isTerminal(view)) return view
    await sleep(pollIntervalMs, undefined, { signal: options.signal })
  }
}

/** A daemon that stopped answering while it ran the swap: what became of it, what to do. */
function lostMidSwap(
  error: unknown,
  execution: { executionId: number; intentId: string },
  key: string,
): unknown {
  if (
    !(error instanceof DaemonClientError) ||
    (error.code !== 'DAEMON_NOT_ANSWERING' && error.code !== 'DAEMON_TIMEOUT')
  )
    return error
  const { executionId, intentId } = execution
  return new DaemonClientError({
    code: error.code,
    shortMessage: `Lost the daemon while it ran execution ${executionId} (intent ${intentId}), before its end: ${error.shortMessage}`,
    remedy: `the swap is recorded and is not lost: run the same \`stockroute swap\` again with --intent-id ${key}; it shows execution ${executionId} to its end (through a daemon, or on the ledger directly when none runs) and never executes it twice. \`stockroute executions show ${executionId}\` shows where it is now.`,
    details: { ...error.details, executionId, intentId },
    cause: error,
  })
}

/**
 * The trade recorded under an intent, as {@link assertSameTrade} compares it with the command's
 * (it reads the trade's fields, the id and the state). The control API does not show the ledger's
 * bookkeeping (version, notional, market price): they are left empty, and nothing reads them.
 */
function recordedTrade(view: ExecutionView): ExecutionRecord {
  return {
    id: view.executionId,
    intentId: view.intentId,
    chainId: view.chainId,
    ticker: view.ticker,
    exchange: view.exchange,
    side: view.side,
    amountIn: view.amountIn,
    amountType: view.amountType,
    limitPrice: view.limitPrice === null ? null : parsePrice(view.limitPrice),
    strategy: view.strategy,
    quoteId: view.quoteId === null ? null : (view.quoteId as Hex),
    state: view.state,
    reason: view.reason,
    createdAtMs: Date.parse(view.createdAt),
    updatedAtMs: Date.parse(view.updatedAt),
    quote: null,
    notional: null,
    marketPrice: null,
    version: 0,
  }
}

/** The chain's asset (symbol, decimals) from `GET /v1/balances`; the fill's decimals if it cannot say. */
async function assetOf(
  client: DaemonClient,
  view: SwapExecutionView,
): Promise<{ symbol: string; decimals: number }> {
  const fallback = {
    symbol: 'asset',
    decimals: view.fills[0]?.assetDecimals ?? view.quote?.assetDecimals ?? 0,
  }
  try {
    const balances = await client.request('GET', '/v1/balances', {
      schema: balancesSchema,
      timeoutMs: 3_000,
    })
    const asset = balances.chains.find((chain) => chain.chainId === view.chainId)?.wallets[0]?.asset
    return asset ? { symbol: asset.symbol, decimals: asset.decimals } : fallback
  } catch {
    return fallback
  }
}
