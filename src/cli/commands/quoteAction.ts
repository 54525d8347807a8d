import { getChains } from '@stockroute/client/api/actions/getChains.js'
import {
  type GetRouterQuoteReturnType,
  getRouterQuote,
} from '@stockroute/client/api/actions/getRouterQuote.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { decimalsOfTokenKind } from '@stockroute/client/api/tokenQuantity.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { formatTokenAmount } from '@stockroute/client/domain/formatTokenAmount.js'
import { printable } from '@stockroute/client/domain/printable.js'
import { assetDecimalsOf } from '@stockroute/client/domain/units.js'
import { type Address, createPublicClient, erc20Abi, formatUnits, http } from 'viem'
import { ChainRpcError } from '../../chain/errors.js'
import type { StockrouteConfig } from '../../config/config.js'
import type { QuotePreview, SwapIntent } from '../../engine/index.js'
import { openConfiguredEngine } from '../engineFromConfig.js'
import { formatLabelledRows, type LabelledRow } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { serviceClientFromConfig } from '../serviceClient.js'
import type { TradeOptions } from '../tradeOptions.js'

/** The options of `stockroute quote`, as commander parsed them. */
export type QuoteOptions = TradeOptions & {
  config: string
  json?: boolean
}

/**
 * What `stockroute quote` runs (its options: ./quoteCommand.ts): a signed router quote, with the
 * engine's view of it (`engine.preview`).
 */
export async function runQuote(options: QuoteOptions) {
  const { client, config } = serviceClientFromConfig(options.config)
  await withInterrupt(async (signal) => {
    const { chains } = await getChains(client, {}, { signal })
    const chain = chains.find((candidate) => candidate.chainId === options.chain)
    if (!chain) {
      throw new StockrouteError({
        code: 'UNKNOWN_CHAIN',
        shortMessage: `chain ${options.chain} is not served by ${client.baseUrl}; chains: ${chains.map((c) => c.chainId).join(', ')}`,
        remedy: 'pass --chain with one of the chains served (`stockroute chains` lists them)',
      })
    }
    const asset = chain.defaultAssetAddress
    if (!asset) {
      throw new Error(
        `chain ${chain.chainId} names default asset ${chain.defaultAsset} but lists no address for it`,
      )
    }
    // The reply carries no decimals: the asset's are read from the chain (configured RPC first).
    const rpcUrl = config.chains.find((c) => c.chainId === chain.chainId)?.rpcUrl ?? chain.rpcUrl
    const decimalsOf = (token: Address) => readDecimals(rpcUrl, chain.chainId, token, signal)
    const [previewed, defaultAssetDecimals] = await Promise.all([
      previewQuote(config, client, options, signal),
      decimalsOf(asset),
    ])
    // The quote shown is the one the guard judged; without a preview, a quote of its own.
    const result =
      previewed.preview?.reply ??
      (await getRouterQuote(
        client,
        {
          ticker: options.ticker,
          exchange: options.exchange,
          isBuy: options.side === 'buy',
          chainId: chain.chainId,
          asset,
          amountIn: options.amount,
          amountType: options.amountType,
        },
        { signal },
      ))
    const { quote } = result
    const assetDecimals =
      quote.assetToken === asset ? defaultAssetDecimals : await decimalsOf(quote.assetToken)
    const assetSymbol =
      Object.entries(chain.assets).find(([, address]) => address === quote.assetToken)?.[0] ??
      quote.assetToken
    const expiresInSeconds = quote.expiresAt - Math.floor(client.clock.now() / 1000)
    const view = describeQuote(result, { symbol: assetSymbol, decimals: assetDecimals })
    const guard = describeGuard(previewed, result, { symbol: assetSymbol, decimals: assetDecimals })
    printResult(
      options.json,
      {
        ...result,
        asset: { symbol: assetSymbol, address: quote.assetToken, decimals: assetDecimals },
        tokenDecimals: decimalsOfTokenKind(quote.tokenKind),
        expiresInSeconds,
        formatted: view.formatted,
        guard: guard.json,
      },
      () =>
        [
          printable(view.headline),
          ...formatLabelledRows([...view.rows(expiresInSeconds), ...guard.rows]),
        ].join('\n'),
    )
  })
}

/** The intent id of a preview: never recorded, only named in the engine's messages. */
const previewIntentId = 'stockroute-quote'

type Previewed = { preview: QuotePreview; problem?: undefined } | { preview?: undefined; problem: string }

/**
 * What the engine would make of the trade now (`engine.preview`: a quote, the guard, risk, kill
 * switch, approvals), over the configuration's ledger (created if missing). When the engine cannot
 * judge it (an intent that breaks a market rule, a chain not configured, pins the service
 * contradicts), the reason why, and the caller quotes without the engine.
 */
async function previewQuote(
  config: StockrouteConfig,
  client: ServiceClient,
  options: QuoteOptions,
  signal: AbortSignal,
): Promise<Previewed> {
  const intent: SwapIntent = {
    intentId: previewIntentId,
    chainId: options.chain,
    ticker: options.ticker,
    exchange: options.exchange,
    side: options.side,
    amountIn: options.amount,
    amountType: options.amountType,
  }
  const unjudged = (error: unknown): Previewed => {
    signal.throwIfAborted()
    // A running daemon owns the ledger the guard reads (risk totals, kill switch): it judges swaps.
    if (error instanceof StockrouteError && error.code === 'LEDGER_IN_USE')
      return {
        problem: `the daemon (pid ${String(error.details.pid)}) owns the ledger; it runs the guard on each swap it takes`,
      }
    const message =
      error instanceof StockrouteError
        ? error.shortMessage
        : error instanceof Error
          ? (error.message.split('\n')[0] ?? '')
          : String(error)
    return { problem: message.replace(`Intent ${JSON.stringify(previewIntentId)}: `, '') }
  }
  let configured: Awaited<ReturnType<typeof openConfiguredEngine>>
  try {
    configured = await openConfiguredEngine(config, client, { signal })
  } catch (error) {
    return unjudged(error)
  }
  try {
    return { preview: await configured.engine.preview(intent, { signal }) }
  } catch (error) {
    return unjudged(error)
  } finally {
    await configured.close()
  }
}

/** The engine's view of the quote: `guard` in the JSON, and labelled rows for humans. */
function describeGuard(
  previewed: Previewed,
  result: GetRouterQuoteReturnType,
  asset: { symbol: string; decimals: number },
) {
  const row = (label: string, value: string): LabelledRow => [label, value]
  if (!previewed.preview)
    return {
      json: { evaluated: false as const, problem: previewed.problem },
      rows: [row('guard', `not evaluated: ${previewed.problem}`)],
    }
  const { verdict, riskProblem, halted, approvals, minValidityMs } = previewed.preview
  const { quote } = result
  // The JSON's `formatted` amounts are exact; the rows a person reads are rounded (formatTokenAmount).
  const assetWith = (format: AmountFormat) => (amount: bigint) =>
    `${format(amount, asset.decimals)} ${asset.symbol}`
  const givenWith = (format: AmountFormat) => (amount: bigint) =>
    quote.isBuy
      ? assetWith(format)(amount)
      : `${format(amount, decimalsOfTokenKind(quote.tokenKind))} ${quote.ticker}`
  const ofAsset = assetWith(formatUnits)
  const ofGiven = givenWith(formatUnits)
  const readAsset = assetWith(formatTokenAmount)
  const readGiven = givenWith(formatTokenAmount)
  const refusal = !verdict.ok
    ? `guard ${verdict.rule}`
    : riskProblem
      ? 'risk limit'
      : halted !== undefined
        ? 'kill switch'
        : undefined
  const json = {
    evaluated: true as const,
    wouldExecute: refusal === undefined,
    verdict: verdict.ok
      ? {
          ...verdict,
          formatted: {
            effectivePrice: ofAsset(verdict.effectivePrice),
            marketPrice: ofAsset(verdict.marketPrice),
          },
        }
      : verdict,
    riskProblem: riskProblem ?? null,
    halted: halted ?? null,
    approvals: {
      currentAllowance: approvals.currentAllowance,
      target: approvals.target,
      approvals: approvals.approvals.map(({ token, spender, amount }) => ({ token, spender, amount })),
      formatted: {
        currentAllowance: ofGiven(approvals.currentAllowance),
        approvals: approvals.approvals.map((approval) => ofGiven(approval.amount)),
      },
    },
    minValidityMs,
  }
  const approvalText =
    approvals.approvals.length === 0
      ? `${readGiven(approvals.currentAllowance)} allowed: enough, nothing to approve`
      : `${readGiven(approvals.currentAllowance)} allowed: would approve ${approvals.approvals.map((approval) => readGiven(approval.amount)).join(' then ')} to ${approvals.approvals[0]?.spender}`
  const rows = [
    row(
      'guard',
      verdict.ok
        ? `ok: ${readAsset(verdict.effectivePrice)} per share, fee included, vs market ${readAsset(verdict.marketPrice)} (${verdict.deviationBps} bps); ${verdict.remainingMs} ms left, ${minValidityMs} ms needed${verdict.marketNote === undefined ? '' : `; ${verdict.marketNote}`}`
        : `refused (${verdict.rule}): ${verdict.message}`,
    ),
    row('risk', riskProblem ?? 'within limits'),
    row('halted', halted === undefined ? 'no' : `yes: ${halted}`),
    row('allowance', approvalText),
    row('swap', refusal === undefined ? 'would execute now' : `would be refused (${refusal})`),
  ]
  return { json, rows }
}

/** How an amount of base units is written with its decimals: exactly (formatUnits) or for people (formatTokenAmount). */
type AmountFormat = (amount: bigint, decimals: number) => string

/** The quote's amounts in natural units, and its human rendering. */
function describeQuote(result: GetRouterQuoteReturnType, asset: { symbol: string; decimals: number }) {
  const { quote, signature, requiredApprovals } = result
  const tokenDecimals = decimalsOfTokenKind(quote.tokenKind)
  // The JSON's `formatted` amounts are exact; the lines a person reads are rounded by the rule of
  // every report (formatTokenAmount: at most 6 fraction digits).
  const amountsWith = (format: AmountFormat) => {
    const ofAsset = (amount: bigint) => `${format(amount, asset.decimals)} ${asset.symbol}`
    const ofStock = (amount: bigint) => `${format(amount, tokenDecimals)} ${quote.ticker}`
    const amounts = quote.isBuy
      ? {
          amountIn: quote.amountType === 'stablecoin_in' ? ofAsset(quote.amountIn) : ofStock(quote.amountIn),
          amountInUsed: ofAsset(quote.amountInUsed),
          amountOut: ofStock(quote.amountOut),
          feeAmount: ofAsset(quote.feeAmount),
          price: ofAsset(quote.price),
        }
      : {
          amountIn: ofStock(quote.amountIn),
          amountInUsed: ofStock(quote.amountInUsed),
          amountOut: ofAsset(quote.amountOut),
          feeAmount: ofAsset(quote.feeAmount),
          price: ofAsset(quote.price),
        }
    return { amounts, ofAsset, ofStock }
  }
  const formatted = amountsWith(formatUnits).amounts
  const { amounts: shown, ofAsset, ofStock } = amountsWith(formatTokenAmount)
  const kind = quote.tokenKind === 'stock' ? 'StockToken, whole shares' : 'ShareToken, 18 decimals'
  const row = (label: string, value: string): LabelledRow => [label, value]
  const approvalText = (approval: (typeof requiredApprovals)[number]) => {
    const amount =
      approval.tokenAddress === quote.assetToken
        ? ofAsset(approval.amount)
        : approval.tokenAddress === quote.stockToken
          ? ofStock(approval.amount)
          : `${approval.amount} base units of ${approval.tokenAddress}`
    return `${amount} to spender ${approval.spender}`
  }
  const headline = `${quote.isBuy ? 'buy' : 'sell'} ${quote.ticker} (exchange ${quote.exchange}, ${kind}) on chain ${quote.chainId}`
  const rows = (expiresInSeconds: number) => [
    ...(quote.isBuy
      ? [
          row('receive', shown.amountOut),
          row('pay', `${shown.amountInUsed} (fee ${shown.feeAmount} included)`),
          ...(quote.amountType === 'stablecoin_in' ? [row('offered', shown.amountIn)] : []),
        ]
      : [
          row('deliver', shown.amountInUsed),
          row('receive', `${shown.amountOut} (net of fee ${shown.feeAmount})`),
        ]),
    row('price', `${shown.price} per share`),
    ...requiredApprovals.map((approval) => row('approve', approvalText(approval))),
    row('quote id', quote.quoteId),
    row('signature', signature),
    row(
      'expires',
      expiresInSeconds > 0
        ? `in ${expiresInSeconds} s (${new Date(quote.expiresAt * 1000).toISOString()})`
        : `already expired (${new Date(quote.expiresAt * 1000).toISOString()}): request a new quote`,
    ),
  ]
  return { formatted, headline, rows }
}

/**
 * The ERC-20 decimals of `token`, read from the chain. A failed read is a {@link ChainRpcError},
 * whose message leaves the RPC URL out (it often carries a provider key).
 */
async function readDecimals(
  rpcUrl: string,
  chainId: number,
  token: Address,
  signal: AbortSignal,
): Promise<number> {
  const client = createPublicClient({ transport: http(rpcUrl, { fetchOptions: { signal }, retryCount: 1 }) })
  let decimals: number
  try {
    decimals = await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })
  } catch (error) {
    throw new ChainRpcError({ chainId, action: `reading the decimals of asset ${token}`, cause: error })
  }
  return assetDecimalsOf(decimals)
}
