import { formatAssetAmount, formatStockQuantity } from '@stockroute/client/domain/formatTokenAmount.js'
import { type ExchangeCode, marketCodes, type TokenKind } from '@stockroute/client/domain/markets.js'
import { localCurrencyPrice } from '@stockroute/client/domain/priceInMarketCurrency.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { defaultFxRates, effectivePricePerShare, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { isDryRunEnd } from '../../engine/index.js'
import type { ExecutionRecord } from '../../store/index.js'
import { formatLabelledRows, type LabelledRow } from '../formatTable.js'
import { dryRunPlanOf } from './swapDryRunPlan.js'
import type { SwapOutcome } from './swapOutcome.js'

/** The chain's asset as the result names amounts in it. */
export type ResultAsset = { symbol: string; decimals: number }

/** What `--json` prints. */
export type SwapResult = ReturnType<typeof swapResult>

/**
 * What `stockroute swap` prints of an outcome (`--json` as it is; the text from it): amounts in the
 * asset's and the stock's units (trimmed to 6 decimals at most), the price per share (with its
 * value in HKD or KRW for HK and KR stocks, at the engine's FX rates), the transactions; a dry run's
 * plan (what would have been sent); `replay: true` when the intent id had this execution already.
 *
 * @example
 * swapResult(swapOutcomeOf(outcome), { asset: { symbol: 'USDC', decimals: 6 }, dryRun: false, ledgerPath, elapsedMs: 812, via: { kind: 'ledger' } }).done // true
 */
export function swapResult(
  outcome: SwapOutcome,
  context: {
    asset: ResultAsset
    dryRun: boolean
    ledgerPath: string
    elapsedMs: number
    /** Who executed it: this process on the ledger, or the daemon that owns the ledger. */
    via: { kind: 'ledger' } | { kind: 'daemon'; pid: number; url: string }
    /** The engine's FX rates (config `execution.fxRates`); default the engine's defaults. */
    fxRates?: FxRates | undefined
    /** The intent id had this execution already: nothing new was traded. */
    replay?: boolean | undefined
  },
) {
  const { execution, transactions, fills } = outcome
  const { asset } = context
  const fxRates = context.fxRates ?? defaultFxRates
  const dryRunDone = context.dryRun && isDryRunEnd(execution)
  const stored = outcome.quote
  const pricing = { asset, exchange: execution.exchange, fxRates }
  return {
    executionId: execution.id,
    intentId: execution.intentId,
    /** The ledger's state, except a dry run that got to its end: `dry-run` (signed, simulated, not sent). */
    state: dryRunDone ? ('dry-run' as const) : execution.state,
    reason: execution.reason,
    /** Confirmed, or a dry run that got to its end (signed, simulated, not sent). */
    done: execution.state === 'confirmed' || dryRunDone,
    dryRun: context.dryRun,
    /** True when the intent id had this execution already (nothing new was traded). */
    replay: context.replay ?? false,
    quoteId: execution.quoteId,
    chainId: execution.chainId,
    ticker: execution.ticker,
    exchange: execution.exchange,
    side: execution.side,
    amountIn: execution.amountIn,
    amountType: execution.amountType,
    asset,
    /** The current quote: quantity, asset side, fee and price per share (base units, and formatted). */
    quote: stored
      ? {
          quantity: (stored.isBuy ? stored.amountOut : stored.amountIn).toString(),
          assetAmount: (stored.isBuy ? stored.amountInUsed : stored.amountOut).toString(),
          feeAmount: stored.feeAmount.toString(),
          formatted: {
            quantity: formatStockQuantity(stored.isBuy ? stored.amountOut : stored.amountIn, stored),
            assetAmount: formatAssetAmount(stored.isBuy ? stored.amountInUsed : stored.amountOut, asset),
            feeAmount: formatAssetAmount(stored.feeAmount, asset),
            ...pricePerShare(
              {
                assetAmount: stored.isBuy ? stored.amountInUsed : stored.amountOut,
                stockAmount: stored.isBuy ? stored.amountOut : stored.amountIn,
                tokenKind: stored.tokenKind,
                isBuy: stored.isBuy,
              },
              pricing,
            ),
          },
        }
      : null,
    transactions: transactions.map((tx) => ({
      kind: tx.kind,
      hash: tx.hash,
      nonce: tx.nonce,
      // A dry run's transactions are stored as failed to free their nonces: they were never sent.
      status: dryRunDone && tx.status === 'failed' ? ('not-sent' as const) : tx.status,
      receiptStatus: tx.receiptStatus,
    })),
    dryRunPlan: dryRunDone ? dryRunPlanOf(outcome, asset) : null,
    fills: fills.map((fill) => {
      const ofStock = (amount: bigint) => formatStockQuantity(amount, fill)
      return {
        txHash: fill.txHash,
        logIndex: fill.logIndex,
        amountIn: fill.amountIn.toString(),
        amountOut: fill.amountOut.toString(),
        feeAmount: fill.feeAmount.toString(),
        formatted: {
          amountIn: fill.isBuy ? formatAssetAmount(fill.amountIn, asset) : ofStock(fill.amountIn),
          amountOut: fill.isBuy ? ofStock(fill.amountOut) : formatAssetAmount(fill.amountOut, asset),
          feeAmount: formatAssetAmount(fill.feeAmount, asset),
          ...pricePerShare(
            {
              assetAmount: fill.assetAmount,
              stockAmount: fill.stockAmount,
              tokenKind: fill.tokenKind,
              isBuy: fill.isBuy,
            },
            pricing,
          ),
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
 * Per whole share: paid fee included on a buy, received net of the fee on a sell; for HK and KR
 * stocks also in the market's currency at the engine's FX rate (as the fills report shows it).
 */
function pricePerShare(
  amounts: { assetAmount: bigint; stockAmount: bigint; tokenKind: TokenKind; isBuy: boolean },
  pricing: { asset: ResultAsset; exchange: ExchangeCode; fxRates: FxRates },
): { price: string; priceBasis: 'fee included' | 'net of fee'; priceInCurrency?: string } {
  const price = effectivePricePerShare({
    assetAmount: toAssetAmount(amounts.assetAmount),
    stockAmount: amounts.stockAmount,
    tokenKind: amounts.tokenKind,
    direction: amounts.isBuy ? 'up' : 'down',
  })
  const local = localCurrencyPrice({
    assetPrice: price,
    assetDecimals: pricing.asset.decimals,
    market: marketCodes[pricing.exchange],
    fxRates: pricing.fxRates,
  })
  return {
    price: formatAssetAmount(price, pricing.asset),
    priceBasis: amounts.isBuy ? 'fee included' : 'net of fee',
    ...(local ? { priceInCurrency: local } : {}),
  }
}

/**
 * The text `stockroute swap` prints of a {@link swapResult}.
 *
 * @example
 * describeSwap(result, outcome.execution) // 'confirmed: buy AAPL on chain 31337 (execution 4, intent cli-…)\n  asked …'
 */
export function describeSwap(
  result: SwapResult,
  execution: Pick<ExecutionRecord, 'amountType' | 'amountIn' | 'ticker' | 'side'>,
): string {
  const row = (label: string, value: string): LabelledRow => [label, value]
  const asked =
    execution.amountType === 'stablecoin'
      ? `${execution.amountIn} ${result.asset.symbol}`
      : `${execution.amountIn} ${execution.ticker}`
  const state =
    result.dryRun && result.done
      ? 'dry run ok, nothing sent'
      : `${result.state}${result.dryRun ? ' (dry run)' : ''}`
  const headline = result.replay
    ? `replay of execution ${result.executionId}, nothing new traded: ${state}`
    : state
  const rows: LabelledRow[] = [row('asked', asked)]
  const priceText = (formatted: { price: string; priceBasis: string; priceInCurrency?: string }) =>
    `${formatted.price} per share, ${formatted.priceBasis}${formatted.priceInCurrency ? ` (${formatted.priceInCurrency})` : ''}`
  const plan = result.dryRunPlan
  if (plan && result.quote) {
    const { formatted } = result.quote
    rows.push(row('quantity', formatted.quantity))
    rows.push(
      execution.side === 'buy'
        ? row('would pay', `${formatted.assetAmount} (fee ${formatted.feeAmount} included)`)
        : row('would get', `${formatted.assetAmount} (net of fee ${formatted.feeAmount})`),
    )
    rows.push(row('price', priceText(formatted)))
    for (const approval of plan.approvals)
      rows.push(
        row(
          'approve',
          `${approval.formatted} to the executor ${approval.spender} (tx ${approval.hash}, nonce ${approval.nonce}, signed, not sent)`,
        ),
      )
    if (plan.approvals.length === 0) rows.push(row('approve', 'none needed: the allowance covers it'))
    if (plan.execute)
      rows.push(
        row(
          'execute',
          `${plan.execute.hash} (nonce ${plan.execute.nonce}, gas limit ${plan.execute.gasLimit ?? 'unknown'}, signed, not sent)`,
        ),
      )
    rows.push(
      row('gas', plan.gasEstimate ? `${plan.gasEstimate} estimated by the simulation` : 'not estimated'),
    )
    if (plan.simulation) rows.push(row('simulation', plan.simulation))
    rows.push(row('outcome', 'dry run: not broadcast, nothing on chain'))
  } else {
    for (const fill of result.fills) {
      if (execution.side === 'buy') {
        rows.push(row('paid', `${fill.formatted.amountIn} (fee ${fill.formatted.feeAmount} included)`))
        rows.push(row('received', fill.formatted.amountOut))
      } else {
        rows.push(row('delivered', fill.formatted.amountIn))
        rows.push(row('received', `${fill.formatted.amountOut} (net of fee ${fill.formatted.feeAmount})`))
      }
      rows.push(row('price', priceText(fill.formatted)))
    }
    for (const tx of result.transactions)
      rows.push(row(tx.kind, `${tx.hash} (nonce ${tx.nonce}, ${tx.status})`))
    if (result.state !== 'confirmed') rows.push(row('reason', result.reason))
  }
  rows.push(
    row(
      'via',
      'daemonPid' in result
        ? `daemon pid ${result.daemonPid} at ${result.daemonUrl}`
        : 'this process, on the ledger',
    ),
  )
  rows.push(row('elapsed', `${result.elapsedMs} ms`))
  // One column for all the labels: the longest (`simulation`) still gets a space before its value.
  return [
    printable(
      `${headline}: ${result.side} ${result.ticker} on chain ${result.chainId} (execution ${result.executionId}, intent ${result.intentId})`,
    ),
    ...formatLabelledRows(rows),
  ].join('\n')
}
