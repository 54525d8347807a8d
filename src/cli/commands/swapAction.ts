import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { printable } from '@stockroute/client/domain/printable.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { dryRunLedgerFileName } from '../../config/ledgerPath.js'
import type { ExecutionOutcome, SwapIntent } from '../../engine/index.js'
import { isDryRunEnd } from '../../engine/index.js'
import type { ExecutionEvent, ExecutionRecord } from '../../store/index.js'
import { announcePath, findDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { swapThroughDaemon } from '../daemon/swapThroughDaemon.js'
import { openConfiguredEngine } from '../engineFromConfig.js'
import { exitCodes } from '../exitCodes.js'
import { assertSameTrade } from '../intentReuse.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { serviceClientFromConfig } from '../serviceClient.js'
import type { TradeOptions } from '../tradeOptions.js'
import { swapOutcomeOf } from './swapOutcome.js'
import { describeSwap, swapResult } from './swapResult.js'

/** The options of `stockroute swap`, as commander parsed them. */
export type SwapOptions = TradeOptions & {
  config: string
  json?: boolean
  limitPrice?: Price
  intentId?: string
  /** true: --dry-run; false: --no-dry-run; undefined: the configuration decides. */
  dryRun?: boolean
}

/**
 * What `stockroute swap` runs (its options: ./swapCommand.ts): through the daemon that owns the
 * ledger when one runs ({@link swapThroughDaemon}), else with an engine in this process.
 */
export async function runSwapCommand(options: SwapOptions) {
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
    let replay = false
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
      if (earlier) {
        // Another trade under the same id is refused, as the control API answers 409.
        assertSameTrade(intent.intentId, intent, earlier)
        replay = true
        process.stderr.write(
          `intent ${intent.intentId} has execution ${earlier.id} already (${earlier.state}): a replay, it is not executed again\n`,
        )
      }
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
    const result = swapResult(swapOutcomeOf(outcome), {
      asset,
      dryRun,
      ledgerPath: ledger.path,
      elapsedMs: elapsedMs(),
      via: { kind: 'ledger' },
      fxRates: engine.settings.fxRates,
      replay,
    })
    printResult(options.json, result, () => describeSwap(result, outcome.execution))
    if (!result.done) process.exitCode = exitCodes.refused
  })
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
      // A dry run ends `rejected` in the ledger (it has no state for "signed, simulated, not sent"):
      // it reads as what it is, never as a refusal.
      const state = isDryRunEnd({ state: event.to, reason: event.reason }) ? 'dry run done' : event.to
      const head = printable(`[+${elapsedMs()} ms] ${label(execution)} ${state}`)
      const shown = printable(event.reason)
      if (!stream.isTTY) {
        stream.write(`${head}: ${shown}\n`)
        return
      }
      const width = Math.max(40, (stream.columns || 80) - 1)
      const room = width - head.length - 2
      // Hashes and addresses shortened (0x8dc6cd…248a), then the reason cut to the terminal's width.
      const short = shown.replace(/0x([0-9a-fA-F]{6})[0-9a-fA-F]{30,}([0-9a-fA-F]{4})\b/g, '0x$1…$2')
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
