import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { marketCodes } from '@stockroute/client/domain/markets.js'
import { plural } from '@stockroute/client/domain/plural.js'
import { localCurrencyPrice } from '@stockroute/client/domain/priceInMarketCurrency.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { defaultFxRates, effectivePricePerShare, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { type ChainRuntime, type EngineHookFunctions, isDryRunEnd } from '../engine/index.js'
import type { ExecutionRecord, ExecutionState } from '../store/executions.js'
import type { FillRecord } from '../store/fills.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionManagerEvent } from '../transactions/types.js'

/** What the operator reads on stdout: one line per finished execution and a periodic summary. */
export type ActivityPrinter = {
  hooks: Pick<EngineHookFunctions, 'onTransition'>
  /** One summary line of the executions finished since start. */
  summary(extra: string[]): string
  counts(): Readonly<Record<ExecutionState, number>>
}

const terminal: readonly ExecutionState[] = ['confirmed', 'failed', 'expired', 'rejected']

/**
 * Prints a readable line for every execution that ends: side, quantity and ticker, the asset paid
 * or received (at most 6 decimals), the price per share (for HK and KR stocks also in HKD or KRW,
 * at `fxRates`), the chain, the time from intent to end, the execute's hash; or the reason it
 * stopped (a dry run says so rather than "rejected"). Values that came from a request or the
 * service (the ticker, the reason, the asset's symbol) are shown as data (`printable`): a reason
 * with a line break in it never prints a line of its own.
 *
 * @example
 * const activity = createActivityPrinter({ ledger, chains: engine.chains, write: (line) => process.stdout.write(`${line}\n`) })
 * // 13:58:02 ✓ buy  4 AAPL for 914.67 USDC @ 228.6675 USDC  chain 31337  312 ms  tx 0x5c1e…9a0b
 * // 13:58:04 ✓ sell 100 0700 for 5350.9456 USDT @ 53.509456 USDT (416.416 HKD)  chain 31338  184 ms  tx 0xdd43…8c9b
 */
export function createActivityPrinter(parameters: {
  ledger: Ledger
  chains: ReadonlyMap<number, ChainRuntime>
  write: (line: string) => void
  now?: (() => number) | undefined
  /** The engine's FX rates (`engine.settings.fxRates`), for HK and KR prices in their currency; default the engine's defaults. */
  fxRates?: FxRates | undefined
}): ActivityPrinter {
  const { ledger, chains, write, now = Date.now, fxRates = defaultFxRates } = parameters
  const startedAt = now()
  const counts: Record<ExecutionState, number> = {
    intent: 0,
    quoting: 0,
    quoted: 0,
    approving: 0,
    submitted: 0,
    confirmed: 0,
    failed: 0,
    expired: 0,
    rejected: 0,
  }
  return {
    hooks: {
      onTransition(event, execution) {
        if (!terminal.includes(event.to)) return
        counts[event.to] += 1
        write(lineOf(ledger, chains, fxRates, execution))
      },
    },
    counts: () => counts,
    summary(extra) {
      const ended = terminal.reduce((sum, state) => sum + counts[state], 0)
      const byState = terminal
        .filter((state) => counts[state] > 0)
        .map((state) => `${counts[state]} ${state}`)
      const minutes = ((now() - startedAt) / 60_000).toFixed(1)
      return [
        `${clock(now())} summary: ${plural(ended, 'execution')} in ${minutes} min${byState.length ? ` (${byState.join(', ')})` : ''}`,
        ...extra,
      ].join(' | ')
    },
  }
}

function lineOf(
  ledger: Ledger,
  chains: ReadonlyMap<number, ChainRuntime>,
  fxRates: FxRates,
  execution: ExecutionRecord,
): string {
  const elapsed = `${Math.max(0, execution.updatedAtMs - execution.createdAtMs)} ms`
  const where = `chain ${execution.chainId}`
  if (execution.state !== 'confirmed') {
    // A dry run that got to its end is not a failure: it says so, without the ✗.
    const dryRun = isDryRunEnd(execution)
    const mark = `${clock(execution.updatedAtMs)} ${dryRun ? '·' : '✗'} ${execution.side.padEnd(4)}`
    return `${mark} ${printable(execution.ticker)} ${dryRun ? 'dry run' : execution.state}: ${printable(execution.reason)}  ${where}  ${elapsed}`
  }
  const fill = ledger.fills.listFills({ executionId: execution.id })[0]
  const symbol = chains.get(execution.chainId)?.asset.symbol ?? 'asset'
  return settledLine(execution, fill, symbol, fxRates)
}

/**
 * The line of a confirmed execution from its fill: quantity and ticker, asset, price per share.
 *
 * @example
 * settledLine(execution, fill, 'USDC', defaultFxRates) // '14:01:04 ✓ sell 1 AAPL for 229.14063 USDC @ 229.14063 USDC  chain 31337  62 ms  tx 0x1984…bdd5'
 */
export function settledLine(
  execution: ExecutionRecord,
  fill: FillRecord | undefined,
  symbol: string,
  fxRates: FxRates,
): string {
  const elapsed = `${Math.max(0, execution.updatedAtMs - execution.createdAtMs)} ms`
  const where = `chain ${execution.chainId}`
  const mark = `${clock(execution.updatedAtMs)} ✓ ${execution.side.padEnd(4)}`
  const ticker = printable(execution.ticker)
  const asset = printable(symbol)
  if (!fill) return `${mark} ${ticker} confirmed  ${where}  ${elapsed}`
  const shares = formatTokenAmount(fill.stockAmount, fill.tokenKind === 'share' ? 18 : 0)
  const paid = formatTokenAmount(fill.assetAmount, fill.assetDecimals)
  const price = effectivePricePerShare({
    assetAmount: fill.assetAmount,
    stockAmount: fill.stockAmount,
    tokenKind: fill.tokenKind,
    direction: fill.isBuy ? 'up' : 'down',
  })
  const local = localCurrencyPrice({
    assetPrice: price,
    assetDecimals: fill.assetDecimals,
    market: marketCodes[fill.exchange],
    fxRates,
  })
  const hash = `${fill.txHash.slice(0, 6)}…${fill.txHash.slice(-4)}`
  return `${mark} ${shares} ${ticker} for ${paid} ${asset} @ ${formatTokenAmount(price, fill.assetDecimals)} ${asset}${local ? ` (${local})` : ''}  ${where}  ${elapsed}  tx ${hash}`
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19)
}

/** One operator line for what a transaction manager did on its own (its reasons and errors shown as data). */
export function transactionEventLine(
  chainId: number,
  event: Exclude<TransactionManagerEvent, { kind: 'recovery' }>,
): string {
  switch (event.kind) {
    case 'gap-filled':
      return `chain ${chainId}: nonce gap at ${event.nonce} filled with a self-transfer ${event.hash}`
    case 'replaced':
      return `chain ${chainId}: nonce ${event.nonce} ${event.hash} replaces ${event.replaces}: ${printable(event.reason)}`
    case 'rebroadcast':
      return `chain ${chainId}: nonce ${event.nonce} sent again: ${printable(event.reason)}`
    case 'reorg':
      return `chain ${chainId}: reorg above block ${event.forkNumber} (${event.removed} block(s) replaced)${event.beyondWindow ? ': deeper than the window, trading halted' : ''}`
    case 'error':
      return `chain ${chainId}: ${printable(event.message)}`
  }
}
