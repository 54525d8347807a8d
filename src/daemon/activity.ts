import { formatUnits } from 'viem'
import { effectivePricePerShare } from '../domain/quotePrice.js'
import type { ChainRuntime } from '../engine/chainRuntime.js'
import type { EngineHookFunctions } from '../engine/context.js'
import type { ExecutionRecord, ExecutionState } from '../store/executions.js'
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
 * Prints a readable line for every execution that ends: side, ticker, amounts in natural units,
 * the price paid or received per share, the chain, the time from intent to end, the execute's hash;
 * or the reason it stopped.
 *
 * @example
 * const activity = createActivityPrinter({ ledger, chains: engine.chains, write: (line) => process.stdout.write(`${line}\n`) })
 * // 13:58:02 ✓ buy  AAPL 4 for 914.67 USDC @ 228.667 USDC  chain 31337  312 ms  tx 0x5c1e…9a0b
 */
export function createActivityPrinter(parameters: {
  ledger: Ledger
  chains: ReadonlyMap<number, ChainRuntime>
  write: (line: string) => void
  now?: (() => number) | undefined
}): ActivityPrinter {
  const { ledger, chains, write, now = Date.now } = parameters
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
        write(lineOf(ledger, chains, execution))
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
        `${clock(now())} summary: ${ended} executions in ${minutes} min${byState.length ? ` (${byState.join(', ')})` : ''}`,
        ...extra,
      ].join(' | ')
    },
  }
}

function lineOf(
  ledger: Ledger,
  chains: ReadonlyMap<number, ChainRuntime>,
  execution: ExecutionRecord,
): string {
  const elapsed = `${Math.max(0, execution.updatedAtMs - execution.createdAtMs)} ms`
  const where = `chain ${execution.chainId}`
  const head = `${clock(execution.updatedAtMs)} ${execution.state === 'confirmed' ? '✓' : '✗'} ${execution.side.padEnd(4)} ${execution.ticker}`
  if (execution.state !== 'confirmed')
    return `${head} ${execution.state}: ${execution.reason}  ${where}  ${elapsed}`
  const fills = ledger.fills.listFills({ executionId: execution.id })
  const fill = fills[0]
  const symbol = chains.get(execution.chainId)?.asset.symbol ?? 'asset'
  if (!fill) return `${head} confirmed  ${where}  ${elapsed}`
  const decimals = fill.tokenKind === 'share' ? 18 : 0
  const shares = formatUnits(fill.stockAmount, decimals)
  const asset = formatUnits(fill.assetAmount, fill.assetDecimals)
  const price = effectivePricePerShare({
    assetAmount: fill.assetAmount,
    stockAmount: fill.stockAmount,
    tokenKind: fill.tokenKind,
    direction: fill.isBuy ? 'up' : 'down',
  })
  const hash = `${fill.txHash.slice(0, 6)}…${fill.txHash.slice(-4)}`
  return `${head} ${shares} ${fill.isBuy ? 'for' : 'fetched'} ${asset} ${symbol} @ ${roundedForDisplay(formatUnits(price, fill.assetDecimals))} ${symbol}  ${where}  ${elapsed}  tx ${hash}`
}

/** A price for the eye: at most 6 decimals (the exact amounts are in the ledger). */
function roundedForDisplay(decimal: string): string {
  const [whole, fraction = ''] = decimal.split('.')
  const kept = fraction.slice(0, 6).replace(/0+$/, '')
  return kept ? `${whole}.${kept}` : `${whole}`
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19)
}

/** One operator line for what a transaction manager did on its own. */
export function transactionEventLine(
  chainId: number,
  event: Exclude<TransactionManagerEvent, { kind: 'recovery' }>,
): string {
  switch (event.kind) {
    case 'gap-filled':
      return `chain ${chainId}: nonce gap at ${event.nonce} filled with a self-transfer ${event.hash}`
    case 'replaced':
      return `chain ${chainId}: nonce ${event.nonce} ${event.hash} replaces ${event.replaces}: ${event.reason}`
    case 'rebroadcast':
      return `chain ${chainId}: nonce ${event.nonce} sent again: ${event.reason}`
    case 'reorg':
      return `chain ${chainId}: reorg above block ${event.forkNumber} (${event.removed} block(s) replaced)${event.beyondWindow ? ': deeper than the window, trading halted' : ''}`
    case 'error':
      return `chain ${chainId}: ${event.message}`
  }
}
