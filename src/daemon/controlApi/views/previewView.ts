import type { QuotePreview } from '../../../engine/index.js'
import type { PreviewView } from '../contract.js'

/**
 * The public view of `engine.preview`: the quote, the guard's verdict, risk, kill switch and the
 * approvals an execution would send. Nothing in it can be executed by the caller.
 *
 * @example
 * toPreviewView(await engine.preview(intent)).verdict
 * // { ok: false, rule: 'limit-price', message: 'the quote pays … above the limit of …', details: {…} }
 */
export function toPreviewView(preview: QuotePreview): PreviewView {
  const { quote } = preview.reply
  const { verdict, approvals } = preview
  return {
    quote: {
      quoteId: quote.quoteId,
      chainId: quote.chainId,
      ticker: quote.ticker,
      exchange: quote.exchange,
      tokenKind: quote.tokenKind,
      side: quote.isBuy ? 'buy' : 'sell',
      amountType: quote.amountType,
      stockToken: quote.stockToken,
      assetToken: quote.assetToken,
      amountIn: quote.amountIn.toString(),
      amountInUsed: quote.amountInUsed.toString(),
      amountOut: quote.amountOut.toString(),
      feeAmount: quote.feeAmount.toString(),
      price: quote.price.toString(),
      expiresAt: quote.expiresAt,
    },
    verdict: verdict.ok
      ? {
          ok: true,
          remainingMs: verdict.remainingMs,
          effectivePrice: verdict.effectivePrice.toString(),
          marketPrice: verdict.marketPrice.toString(),
          deviationBps: verdict.deviationBps.toString(),
          ...(verdict.marketNote === undefined ? {} : { marketNote: verdict.marketNote }),
        }
      : { ok: false, rule: verdict.rule, message: verdict.message, details: verdict.details },
    riskProblem: preview.riskProblem ?? null,
    halted: preview.halted ?? null,
    approvals: {
      currentAllowance: approvals.currentAllowance.toString(),
      target: approvals.target.toString(),
      count: approvals.approvals.length,
    },
    minValidityMs: preview.minValidityMs,
  }
}
