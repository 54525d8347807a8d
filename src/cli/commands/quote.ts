import { type Command, InvalidArgumentError } from 'commander'
import { type Address, createPublicClient, erc20Abi, formatUnits, http } from 'viem'
import { getChains } from '../../api/actions/getChains.js'
import {
  checkNaturalAmount,
  type GetRouterQuoteReturnType,
  getRouterQuote,
  RouterQuoteParameterError,
} from '../../api/actions/getRouterQuote.js'
import { decimalsOfTokenKind } from '../../api/tokenQuantity.js'
import { type ExchangeCode, isExchangeCode } from '../../domain/markets.js'
import { assetDecimalsOf } from '../../domain/units.js'
import { withInterrupt } from '../interrupt.js'
import { printResult, serviceClientFromConfig, withServiceOptions } from '../serviceClient.js'

type QuoteOptions = {
  config: string
  json?: boolean
  chain: number
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  amount: string
  amountType?: 'stablecoin' | 'stocktoken'
}

/**
 * `stockroute quote --chain ID --ticker T --exchange N --side buy|sell --amount X
 * [--amount-type stablecoin|stocktoken] [--json]`: asks the service for a signed router quote in the
 * chain's default asset and prints it with its amounts in natural units and the seconds it has left.
 * It executes nothing.
 *
 * @example
 * registerQuoteCommand(program)
 * // stockroute quote --chain 31337 --ticker AAPL --exchange 0 --side buy --amount 1000
 */
export function registerQuoteCommand(program: Command) {
  withServiceOptions(
    program
      .command('quote')
      .description("get a signed router quote (valid 10 s) in the chain's default asset; executes nothing"),
  )
    .requiredOption('--chain <id>', 'chain id (list them with GET /api/v1/chains)', parseChainId)
    .requiredOption(
      '--ticker <ticker>',
      'StockToken ticker, or ShareToken ticker with the s suffix (AAPLs)',
      parseTicker,
    )
    .requiredOption('--exchange <code>', 'exchange code: 0 (US), 1 (HK) or 3 (KR)', parseExchange)
    .requiredOption('--side <side>', 'buy or sell', parseSide)
    .requiredOption(
      '--amount <amount>',
      'natural units: the asset to spend on a stablecoin buy, else the share quantity (e.g. 1000, 0.5)',
      parseAmount,
    )
    .option(
      '--amount-type <type>',
      'buys only: stablecoin (--amount is asset, the default) or stocktoken (--amount is shares)',
      parseAmountType,
    )
    .action(async (options: QuoteOptions, command: Command) => {
      if (options.side === 'sell' && options.amountType === 'stablecoin') {
        command.error(
          "error: --amount-type stablecoin applies to buys only: a sell's --amount is a share quantity (omit --amount-type)",
        )
      }
      await runQuote(options)
    })
}

async function runQuote(options: QuoteOptions) {
  const { client, config } = serviceClientFromConfig(options.config)
  await withInterrupt(async (signal) => {
    const { chains } = await getChains(client, {}, { signal })
    const chain = chains.find((candidate) => candidate.chainId === options.chain)
    if (!chain) {
      throw new Error(
        `chain ${options.chain} is not served by ${client.baseUrl}; chains: ${chains.map((c) => c.chainId).join(', ')}`,
      )
    }
    const asset = chain.defaultAssetAddress
    if (!asset) {
      throw new Error(
        `chain ${chain.chainId} names default asset ${chain.defaultAsset} but lists no address for it`,
      )
    }
    // The reply carries no decimals: the asset's are read from the chain (configured RPC first).
    const rpcUrl = config.chains.find((c) => c.chainId === chain.chainId)?.rpcUrl ?? chain.rpcUrl
    const decimalsOf = (token: Address) => readDecimals(rpcUrl, token, signal)
    const [result, defaultAssetDecimals] = await Promise.all([
      getRouterQuote(
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
      ),
      decimalsOf(asset),
    ])
    const { quote } = result
    const assetDecimals =
      quote.assetToken === asset ? defaultAssetDecimals : await decimalsOf(quote.assetToken)
    const assetSymbol =
      Object.entries(chain.assets).find(([, address]) => address === quote.assetToken)?.[0] ??
      quote.assetToken
    const expiresInSeconds = quote.expiresAt - Math.floor(client.clock.now() / 1000)
    const view = describeQuote(result, { symbol: assetSymbol, decimals: assetDecimals })
    printResult(
      options.json,
      {
        ...result,
        asset: { symbol: assetSymbol, address: quote.assetToken, decimals: assetDecimals },
        tokenDecimals: decimalsOfTokenKind(quote.tokenKind),
        expiresInSeconds,
        formatted: view.formatted,
      },
      () => view.lines(expiresInSeconds).join('\n'),
    )
  })
}

/** The quote's amounts in natural units, and its human rendering. */
function describeQuote(result: GetRouterQuoteReturnType, asset: { symbol: string; decimals: number }) {
  const { quote, signature, requiredApprovals } = result
  const tokenDecimals = decimalsOfTokenKind(quote.tokenKind)
  const ofAsset = (amount: bigint) => `${formatUnits(amount, asset.decimals)} ${asset.symbol}`
  const ofStock = (amount: bigint) => `${formatUnits(amount, tokenDecimals)} ${quote.ticker}`
  const formatted = quote.isBuy
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
  const kind = quote.tokenKind === 'stock' ? 'StockToken, whole shares' : 'ShareToken, 18 decimals'
  const row = (label: string, value: string) => `  ${label.padEnd(10)}${value}`
  const approvalText = (approval: (typeof requiredApprovals)[number]) => {
    const amount =
      approval.tokenAddress === quote.assetToken
        ? ofAsset(approval.amount)
        : approval.tokenAddress === quote.stockToken
          ? ofStock(approval.amount)
          : `${approval.amount} base units of ${approval.tokenAddress}`
    return `${amount} to spender ${approval.spender}`
  }
  const lines = (expiresInSeconds: number) => [
    `${quote.isBuy ? 'buy' : 'sell'} ${quote.ticker} (exchange ${quote.exchange}, ${kind}) on chain ${quote.chainId}`,
    ...(quote.isBuy
      ? [
          row('receive', formatted.amountOut),
          row('pay', `${formatted.amountInUsed} (fee ${formatted.feeAmount} included)`),
          ...(quote.amountType === 'stablecoin_in' ? [row('offered', formatted.amountIn)] : []),
        ]
      : [
          row('deliver', formatted.amountInUsed),
          row('receive', `${formatted.amountOut} (net of fee ${formatted.feeAmount})`),
        ]),
    row('price', `${formatted.price} per share`),
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
  return { formatted, lines }
}

/** The ERC-20 decimals of `token`, read from the chain. */
async function readDecimals(rpcUrl: string, token: Address, signal: AbortSignal): Promise<number> {
  const client = createPublicClient({ transport: http(rpcUrl, { fetchOptions: { signal }, retryCount: 1 }) })
  try {
    const decimals = await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })
    return assetDecimalsOf(decimals)
  } catch (error) {
    throw new Error(
      `could not read the decimals of asset ${token} from ${rpcUrl}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      { cause: error },
    )
  }
}

function parseChainId(text: string): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) === 0) {
    throw new InvalidArgumentError('must be a chain id: a positive whole number such as 31337')
  }
  return Number(text)
}

function parseTicker(text: string): string {
  if (text.trim() === '' || text.trim() !== text) {
    throw new InvalidArgumentError('must be a ticker such as AAPL, AAPLs or 0700, without spaces')
  }
  return text
}

function parseExchange(text: string): ExchangeCode {
  const code = /^\d$/.test(text) ? Number(text) : Number.NaN
  if (!isExchangeCode(code))
    throw new InvalidArgumentError('must be an exchange code: 0 (US), 1 (HK) or 3 (KR)')
  return code
}

function parseSide(text: string): 'buy' | 'sell' {
  if (text !== 'buy' && text !== 'sell') throw new InvalidArgumentError('must be buy or sell')
  return text
}

function parseAmount(text: string): string {
  try {
    return checkNaturalAmount(text, '--amount')
  } catch (error) {
    if (error instanceof RouterQuoteParameterError) throw new InvalidArgumentError(`It ${error.problem}.`)
    throw error
  }
}

function parseAmountType(text: string): 'stablecoin' | 'stocktoken' {
  if (text !== 'stablecoin' && text !== 'stocktoken') {
    throw new InvalidArgumentError(
      'must be stablecoin (--amount is asset) or stocktoken (--amount is shares)',
    )
  }
  return text
}
