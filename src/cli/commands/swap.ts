import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Command } from 'commander'
import { formatUnits } from 'viem'
import { decimalsOfTokenKind } from '../../api/tokenQuantity.js'
import { dryRunLedgerFileName } from '../../daemon/ledgerPath.js'
import { effectivePricePerShare } from '../../domain/quotePrice.js'
import type { Price } from '../../domain/units.js'
import type { ExecutionOutcome, SwapIntent } from '../../engine/index.js'
import type { ExecutionEvent, ExecutionRecord } from '../../store/index.js'
import { announcePath, findDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { swapThroughDaemon } from '../daemon/swapThroughDaemon.js'
import { openConfiguredEngine } from '../engineFromConfig.js'
import { withInterrupt } from '../interrupt.js'
import { printResult, serviceClientFromConfig, withServiceOptions } from '../serviceClient.js'
import {
  checkTradeOptions,
  parseIntentId,
  parseLimitPrice,
  type TradeOptions,
  withTradeOptions,
} from '../tradeOptions.js'

type SwapOptions = TradeOptions & {
  config: string
  json?: boolean
  limitPrice?: Price
  intentId?: string
  /** true: --dry-run; false: --no-dry-run; undefined: the configuration decides. */
  dryRun?: boolean
}

/**
 * `stockroute swap --chain ID --ticker T --exchange N --side buy|sell --amount X
 * [--amount-type stablecoin|stocktoken] [--limit-price P] [--intent-id ID] [--dry-run] [--json]`:
 * executes one trade with the engine (recovering anything a previous run left unfinished first),
 * shows each state change on stderr, and prints the outcome. While a daemon owns the ledger, the
 * trade goes through its control API instead ({@link swapThroughDaemon}); stderr says which. Exit code 0 when confirmed (or when a
 * dry run got to its end), 1 otherwise.
 *
 * @example
 * registerSwapCommand(program)
 * // stockroute swap --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000
 */
export function registerSwapCommand(program: Command) {
  withTradeOptions(
    withServiceOptions(
      program
        .command('swap')
        .description(
          "execute one trade: quote, guard, approve, execute, settle, record (the chain's default asset)",
        ),
    ),
  )
    .option(
      '--limit-price <price>',
      "worst acceptable price per share in the market's currency (USD, HKD, KRW): a buy pays at most it, a sell gets at least it",
      parseLimitPrice,
    )
    .option(
      '--intent-id <id>',
      'idempotency key: an intent id executed before is not executed again (default: a new cli-<uuid>)',
      parseIntentId,
    )
    .option(
      '--dry-run',
      'sign and simulate, never broadcast (ledger: DATA/stockroute.dry-run.sqlite); overrides the config',
    )
    .option('--no-dry-run', "trade for real even if the config's execution.dryRun is true")
    .action(async (options: SwapOptions, command: Command) => {
      checkTradeOptions(options, command)
      // A daemon that owns the ledger (the dry-run one for dry runs) takes the swap: the ledger has one writer.
      const target = readLedgerTarget(options.config, { dryRun: options.dryRun })
      const found = findDaemon(target)
      // The path taken: on stderr for the daemon (and a stale runtime file); the result's `via` for both.
      if (found.kind === 'daemon' || found.staleNote) announcePath(found)
      if (found.kind === 'daemon')
        await swapThroughDaemon(found.client, options, {
          ledgerPath: target.ledgerPath,
          dryRun: target.ledgerPath.endsWith(dryRunLedgerFileName),
        })
      else await runSwap(options)
    })
}

async function runSwap(options: SwapOptions) {
  const startedAt = performance.now()
  const elapsedMs = () => Math.round(performance.now() - startedAt)
  const { client, config } = serviceClientFromConfig(options.config)
  const intent: SwapIntent = {
    intentId: options.intentId ?? `cli-${randomUUID()}`,
    chainId: options.chain,
    ticker: options.ticker,
    exchange: options.exchange,
    side: options.side,
    amountIn: options.amount,
    amountType: options.amountType,
    limitPrice: options.limitPrice,
  }
  const status = createStatusPrinter(process.stderr, elapsedMs, intent.intentId)
  await withInterrupt(async (signal) => {
    const configured = await openConfiguredEngine(config, client, {
      dryRun: options.dryRun,
      hooks: { onTransition: status.transition },
      signal,
    })
    const { engine, ledger, dryRun } = configured
    let outcome: ExecutionOutcome
    try {
      const recovery = await engine.recover({ signal })
      status.end()
      if (recovery.executions.length > 0)
        process.stderr.write(
          `recovered ${recovery.executions.length} unfinished execution(s) of a previous run before this swap\n`,
        )
      // A dry-run ledger never holds the live trades: their settlements are not worth a warning there.
      if (recovery.unattributedFills > 0 && !dryRun)
        process.stderr.write(
          `warning: ${recovery.unattributedFills} settlement(s) of this wallet are not in ${ledger.path}: another program may trade from it\n`,
        )
      // The same --intent-id sent through a daemon earlier is recorded as api:<id>: follow that one.
      const throughDaemon = ledger.executions.getExecutionByIntent(`api:${intent.intentId}`)
      const earlier = throughDaemon ?? ledger.executions.getExecutionByIntent(intent.intentId)
      if (earlier)
        process.stderr.write(
          `intent ${intent.intentId} has execution ${earlier.id} already (${earlier.state}): it is not executed again\n`,
        )
      outcome = await engine.execute(
        throughDaemon ? { ...intent, intentId: throughDaemon.intentId } : intent,
        {
          signal,
        },
      )
    } finally {
      status.end()
      await configured.close()
    }
    const chain = engine.chains.get(outcome.execution.chainId)
    const asset = chain
      ? { symbol: chain.asset.symbol, decimals: chain.asset.decimals }
      : { symbol: 'asset', decimals: 0 }
    const result = swapResult(outcome, {
      asset,
      dryRun,
      ledgerPath: ledger.path,
      elapsedMs: elapsedMs(),
      via: { kind: 'ledger' },
    })
    printResult(options.json, result, () => describeSwap(result, outcome.execution))
    if (!result.done) process.exitCode = 1
  })
}

/** What `--json` prints. */
export type SwapResult = ReturnType<typeof swapResult>

/**
 * What `stockroute swap` prints of an outcome (`--json` as it is; the text from it): amounts
 * formatted in the asset's and the stock's units, the price per share, the transactions.
 *
 * @example
 * swapResult(outcome, { asset: { symbol: 'USDC', decimals: 6 }, dryRun: false, ledgerPath, elapsedMs: 812, via: { kind: 'ledger' } }).done // true
 */
export function swapResult(
  outcome: ExecutionOutcome,
  context: {
    asset: { symbol: string; decimals: number }
    dryRun: boolean
    ledgerPath: string
    elapsedMs: number
    /** Who executed it: this process on the ledger, or the daemon that owns the ledger. */
    via: { kind: 'ledger' } | { kind: 'daemon'; pid: number; url: string }
  },
) {
  const { execution, transactions, fills } = outcome
  const { asset } = context
  const ofAsset = (amount: bigint) => `${formatUnits(amount, asset.decimals)} ${asset.symbol}`
  const dryRunDone =
    context.dryRun && execution.state === 'rejected' && execution.reason.startsWith('dry run:')
  return {
    executionId: execution.id,
    intentId: execution.intentId,
    state: execution.state,
    reason: execution.reason,
    /** Confirmed, or a dry run that got to its end (signed, simulated, not sent). */
    done: execution.state === 'confirmed' || dryRunDone,
    dryRun: context.dryRun,
    quoteId: execution.quoteId,
    chainId: execution.chainId,
    ticker: execution.ticker,
    exchange: execution.exchange,
    side: execution.side,
    amountIn: execution.amountIn,
    amountType: execution.amountType,
    asset,
    transactions: transactions.map((tx) => ({
      kind: tx.kind,
      hash: tx.hash,
      nonce: tx.nonce,
      status: tx.status,
      receiptStatus: tx.receiptStatus,
    })),
    fills: fills.map((fill) => {
      const ofStock = (amount: bigint) =>
        `${formatUnits(amount, decimalsOfTokenKind(fill.tokenKind))} ${fill.ticker}`
      const price = effectivePricePerShare({
        assetAmount: fill.assetAmount,
        stockAmount: fill.stockAmount,
        tokenKind: fill.tokenKind,
        direction: fill.isBuy ? 'up' : 'down',
      })
      return {
        txHash: fill.txHash,
        logIndex: fill.logIndex,
        amountIn: fill.amountIn.toString(),
        amountOut: fill.amountOut.toString(),
        feeAmount: fill.feeAmount.toString(),
        formatted: {
          amountIn: fill.isBuy ? ofAsset(fill.amountIn) : ofStock(fill.amountIn),
          amountOut: fill.isBuy ? ofStock(fill.amountOut) : ofAsset(fill.amountOut),
          feeAmount: ofAsset(fill.feeAmount),
          /** Per whole share, fee included (buy: paid; sell: received net of the fee). */
          price: ofAsset(price),
        },
      }
    }),
    ledgerPath: context.ledgerPath,
    via: context.via.kind,
    ...(context.via.kind === 'daemon' ? { daemonPid: context.via.pid, daemonUrl: context.via.url } : {}),
    elapsedMs: context.elapsedMs,
  }
}

/**
 * The text `stockroute swap` prints of a {@link swapResult}.
 *
 * @example
 * describeSwap(result, outcome.execution) // 'confirmed: buy AAPL on chain 31337 (execution 4, intent cli-…)\n  asked …'
 */
export function describeSwap(result: SwapResult, execution: ExecutionRecord): string {
  const row = (label: string, value: string) => `  ${label.padEnd(10)}${value}`
  const asked =
    execution.amountType === 'stablecoin'
      ? `${execution.amountIn} ${result.asset.symbol}`
      : `${execution.amountIn} ${execution.ticker}`
  const headline =
    result.dryRun && result.done
      ? 'dry run ok, nothing sent'
      : `${result.state}${result.dryRun ? ' (dry run)' : ''}`
  const lines = [
    `${headline}: ${result.side} ${result.ticker} on chain ${result.chainId} (execution ${result.executionId}, intent ${result.intentId})`,
    row('asked', asked),
  ]
  for (const fill of result.fills) {
    if (execution.side === 'buy') {
      lines.push(row('paid', `${fill.formatted.amountIn} (fee ${fill.formatted.feeAmount} included)`))
      lines.push(row('received', fill.formatted.amountOut))
    } else {
      lines.push(row('delivered', fill.formatted.amountIn))
      lines.push(row('received', `${fill.formatted.amountOut} (net of fee ${fill.formatted.feeAmount})`))
    }
    lines.push(row('price', `${fill.formatted.price} per share, fee included`))
  }
  for (const tx of result.transactions)
    lines.push(row(tx.kind, `${tx.hash} (nonce ${tx.nonce}, ${tx.status})`))
  if (result.state !== 'confirmed') lines.push(row(result.done ? 'outcome' : 'reason', result.reason))
  lines.push(
    row(
      'via',
      'daemonPid' in result
        ? `daemon pid ${result.daemonPid} at ${result.daemonUrl}`
        : 'this process, on the ledger',
    ),
  )
  lines.push(row('elapsed', `${result.elapsedMs} ms`))
  return lines.join('\n')
}

/** Where the live status goes: stderr, or anything shaped like it. */
export type StatusStream = {
  isTTY?: boolean | undefined
  columns?: number | undefined
  write(text: string): unknown
}

/**
 * Shows each transition of an execution as it happens: on a terminal, one status line rewritten in
 * place (state, reason shortened to the width, elapsed ms) and ended with a newline by `end()`;
 * elsewhere (a pipe, a log file), one full line per transition. Transitions of other intents
 * (recovered at start) are named by their intent.
 *
 * @example
 * const status = createStatusPrinter(process.stderr, () => 12, 'cli-1')
 * status.transition(event, execution) // "[+12 ms] execution 4 quoting: executor free: requesting a router quote"
 */
export function createStatusPrinter(stream: StatusStream, elapsedMs: () => number, intentId: string) {
  let open = false
  const label = (execution: ExecutionRecord) =>
    execution.intentId === intentId
      ? `execution ${execution.id}`
      : `execution ${execution.id} (intent ${execution.intentId}, recovered)`
  return {
    transition(event: ExecutionEvent, execution: ExecutionRecord) {
      const head = `[+${elapsedMs()} ms] ${label(execution)} ${event.to}`
      if (!stream.isTTY) {
        stream.write(`${head}: ${event.reason}\n`)
        return
      }
      const width = Math.max(40, (stream.columns || 80) - 1)
      const room = width - head.length - 2
      // Hashes and addresses shortened (0x8dc6cd…248a), then the reason cut to the terminal's width.
      const short = event.reason.replace(/0x([0-9a-fA-F]{6})[0-9a-fA-F]{30,}([0-9a-fA-F]{4})\b/g, '0x$1…$2')
      const reason = room <= 1 ? '' : short.length > room ? `${short.slice(0, room - 1)}…` : short
      stream.write(`\r\x1b[2K${head}${reason ? `: ${reason}` : ''}`)
      open = true
    },
    /** Ends the status line (a newline), if one is showing. */
    end() {
      if (open) stream.write('\n')
      open = false
    },
  }
}
