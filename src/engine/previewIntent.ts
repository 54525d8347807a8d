import {
  type GetRouterQuoteReturnType,
  getRouterQuote,
} from '@stockroute/client/api/actions/getRouterQuote.js'
import { toNotional } from '../store/risk.js'
import { minimumValidity } from './chainRuntime.js'
import { pickWallet } from './chainWallet.js'
import { checkRiskLimits } from './checkRiskLimits.js'
import type { EngineContext } from './context.js'
import { entryHaltProblem } from './entryHalts.js'
import { type GuardVerdict, guardQuote } from './guardQuote.js'
import { checkIntent, type SwapIntent } from './intent.js'
import { type ApprovalPlan, planApprovals } from './planApprovals.js'
import { approvalParametersOf, routerQuoteParametersOf } from './quoteRequest.js'
import type { ChainRuntime, Instrument } from './types.js'

/** What would happen to an intent now: its quote, the guard's verdict, risk, approvals. Nothing is stored or signed. */
export type QuotePreview = {
  instrument: Instrument
  reply: GetRouterQuoteReturnType
  verdict: GuardVerdict
  /** The risk limit the trade would break, if any (an entry halt in force refuses a buy). */
  riskProblem: string | undefined
  /** The kill switch's reason when trading is halted. */
  halted: string | undefined
  approvals: ApprovalPlan
  /** The validity the quote needed, ms (inclusion time plus margin). */
  minValidityMs: number
}

/**
 * Quotes and guards an intent on `chain` as an execution would, without recording or signing
 * anything (Engine.preview).
 *
 * @example
 * const { verdict, approvals } = await previewIntent(context, chain, intent)
 */
export async function previewIntent(
  context: EngineContext,
  chain: ChainRuntime,
  intent: SwapIntent,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<QuotePreview> {
  const { ledger, settings } = context
  const signal = options.signal ? { signal: options.signal } : {}
  const instrument = await context.resolveInstrument(intent, signal)
  const checked = checkIntent(intent, instrument, chain.asset.decimals)
  const [reply, marketPrice] = await Promise.all([
    getRouterQuote(context.service, routerQuoteParametersOf(checked, chain, instrument), signal),
    context.marketPrice(instrument, signal),
  ])
  const minValidityMs = minimumValidity(context, chain, context.now())
  const verdict = await guardQuote({
    intent: checked,
    instrument,
    chain,
    reply,
    marketPrice,
    marketStatus: context.marketStatus?.(instrument)?.status,
    settings,
    minValidityMs,
    now: context.now,
  })
  const notional = reply.quote.isBuy ? reply.quote.amountInUsed : reply.quote.amountOut
  const killSwitch = ledger.risk.killSwitch()
  const approvals = await planApprovals(
    chain.publicClient,
    approvalParametersOf(chain, pickWallet(chain), reply.quote, settings.approvalPolicy),
    signal,
  )
  return {
    instrument,
    reply,
    verdict,
    riskProblem:
      entryHaltProblem(ledger, chain.chainId, intent.side) ??
      checkRiskLimits(
        ledger,
        settings.risk,
        chain.chainId,
        toNotional(notional, chain.asset.decimals),
        context.now(),
        chain.asset.symbol,
      ),
    halted: killSwitch.halted ? killSwitch.reason : undefined,
    approvals,
    minValidityMs,
  }
}
