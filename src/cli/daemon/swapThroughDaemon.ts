import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { balancesSchema, executionViewSchema, swapAcceptedSchema } from '../../daemon/swapApi/index.js'
import type { ExchangeCode } from '../../domain/markets.js'
import { formatPrice } from '../../domain/unitStrings.js'
import type { Price } from '../../domain/units.js'
import type { ExecutionOutcome } from '../../engine/index.js'
import { type ExecutionRecord, openLedger, terminalExecutionStates } from '../../store/index.js'
import { describeSwap, swapResult } from '../commands/swapResult.js'
import { assertSameTrade } from '../intentReuse.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../serviceClient.js'
import type { DaemonClient } from './createDaemonClient.js'
import { DaemonClientError } from './daemonClientError.js'

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

/**
 * `stockroute swap` while a daemon owns the ledger: hands the trade to the daemon (`POST /v1/swaps`,
 * the intent id as `Idempotency-Key`, recorded by the daemon as intent `api:<key>`), shows each
 * state change on stderr while it runs, then prints the outcome as the direct path does (the
 * execution, its transactions and fills, read from the ledger read-only). An intent id the ledger
 * already holds (a swap made without the daemon) is not sent again. Ctrl-C stops waiting, not the
 * swap: the daemon carries it on. Exit code 0 when confirmed, 1 otherwise.
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
  const earlier = readOutcome(context.ledgerPath, { intentId: key })
  const executionId = await withInterrupt(async (signal) => {
    if (earlier) {
      assertSameTrade(key, { ...swap, chainId: swap.chain, amountIn: swap.amount }, earlier.execution)
      process.stderr.write(
        `intent ${key} has execution ${earlier.execution.id} already (${earlier.execution.state}): it is not executed again\n`,
      )
      return earlier.execution.id
    }
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
    process.stderr.write(
      `[+${elapsedMs()} ms] execution ${reply.executionId} (intent ${reply.intentId}) handed to the daemon: ${reply.state}\n`,
    )
    await waitUntilFinished(client, reply.executionId, elapsedMs, signal)
    return reply.executionId
  }).catch((error: unknown) => {
    if (error instanceof Error && (error.message === 'interrupted' || error.name === 'AbortError'))
      return undefined
    throw error
  })
  if (executionId === undefined) {
    process.stderr.write(
      'stopped waiting: the daemon carries the swap on; follow it with `stockroute executions show <id>`\n',
    )
    process.exitCode = 130
    return
  }
  const outcome = readOutcome(context.ledgerPath, { executionId })
  if (!outcome)
    throw new DaemonClientError({
      code: 'DAEMON_BAD_REPLY',
      shortMessage: `The daemon named execution ${executionId}, which the ledger ${context.ledgerPath} does not hold: is the daemon on another ledger? Check its --config.`,
    })
  const asset = await assetOf(client, outcome)
  const result = swapResult(outcome, {
    asset,
    dryRun: context.dryRun,
    ledgerPath: context.ledgerPath,
    elapsedMs: elapsedMs(),
    via: { kind: 'daemon', pid: client.pid, url: client.url },
    replay: earlier !== undefined,
  })
  printResult(swap.json, result, () => describeSwap(result, outcome.execution))
  if (!result.done) process.exitCode = 1
}

/** Polls `GET /v1/swaps/:id` until the execution is terminal, one stderr line per state change. */
async function waitUntilFinished(
  client: DaemonClient,
  executionId: number,
  elapsedMs: () => number,
  signal: AbortSignal,
): Promise<void> {
  const terminal: readonly string[] = terminalExecutionStates
  let last = ''
  for (;;) {
    const view = await client.request('GET', `/v1/swaps/${executionId}`, {
      schema: executionViewSchema,
      signal,
    })
    const seen = `${view.state}\n${view.reason}`
    if (seen !== last) {
      process.stderr.write(`[+${elapsedMs()} ms] execution ${executionId} ${view.state}: ${view.reason}\n`)
      last = seen
    }
    if (terminal.includes(view.state)) return
    await sleep(pollIntervalMs, undefined, { signal })
  }
}

/** An execution, its transactions and live fills, from the ledger read-only (beside the daemon). */
function readOutcome(
  ledgerPath: string,
  which: { intentId: string } | { executionId: number },
): ExecutionOutcome | undefined {
  let ledger: ReturnType<typeof openLedger>
  try {
    ledger = openLedger({ path: ledgerPath, readonly: true })
  } catch {
    return undefined // no ledger yet: nothing executed before
  }
  try {
    const execution: ExecutionRecord | undefined =
      'intentId' in which
        ? ledger.executions.getExecutionByIntent(which.intentId)
        : ledger.executions.getExecution(which.executionId)
    if (!execution) return undefined
    return {
      execution,
      transactions: ledger.transactions.listTransactionsForExecution(execution.id),
      fills: ledger.fills.listFills({ executionId: execution.id }),
    }
  } finally {
    ledger.close()
  }
}

/** The chain's asset (symbol, decimals) from `GET /v1/balances`; the fill's decimals if it cannot say. */
async function assetOf(
  client: DaemonClient,
  outcome: ExecutionOutcome,
): Promise<{ symbol: string; decimals: number }> {
  const fallback = { symbol: 'asset', decimals: outcome.fills[0]?.assetDecimals ?? 0 }
  try {
    const balances = await client.request('GET', '/v1/balances', {
      schema: balancesSchema,
      timeoutMs: 3_000,
    })
    const asset = balances.chains.find((chain) => chain.chainId === outcome.execution.chainId)?.wallets[0]
      ?.asset
    return asset ? { symbol: asset.symbol, decimals: asset.decimals } : fallback
  } catch {
    return fallback
  }
}
