import { type ExchangeCode, exchangeCodes, isExchangeCode } from '@stockroute/client/domain/markets.js'
import { type Address, decodeFunctionData, erc20Abi, getAbiItem, type Hex, type PublicClient } from 'viem'
import { rfqSettlementAbi } from '../../contracts/artifacts/index.js'
import type { LocalChain } from '../../localChains.js'
import type { IssuedQuote, SandboxContext } from '../contextTypes.js'
import { fillIdOf, fillKey, orderIdOf } from './ids.js'
import type { LedgerFill, LedgerOrder } from './orderTypes.js'

/** The event both executors (RFQSettlement, PlatformRouter) emit for every settled quote. */
export const quoteExecutedEvent = getAbiItem({ abi: rfqSettlementAbi, name: 'QuoteExecuted' })

/** Everything an order needs except its nonce, which depends on the maker's earlier orders. */
export type ResolvedExecution = Omit<LedgerOrder, 'nonce'>

/**
 * Reads the QuoteExecuted events of a chain's executors in `[fromBlock, toBlock]` and resolves each
 * into an order: ticker, exchange, price, signature and deadline from the quote the service issued
 * (context.quotes) when it knows it; else ticker and exchange from the listing of the stock token,
 * signature and deadline from the transaction's `execute(quote, signature)` input, and the price
 * from the executed amounts. Returned in execution order (block, log index).
 */
export async function readExecutions(parameters: {
  chain: LocalChain
  client: PublicClient
  context: SandboxContext
  fromBlock: bigint
  toBlock: bigint
}): Promise<ResolvedExecution[]> {
  const { chain, client, context, fromBlock, toBlock } = parameters
  const executors = executorsOf(chain)
  const logs = await client.getLogs({
    address: executors,
    event: quoteExecutedEvent,
    fromBlock,
    toBlock,
    strict: true,
  })
  logs.sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
  if (logs.length === 0) return []

  const listings = new Map(
    (context.listings.get(chain.chainId) ?? []).map((listing) => [listing.address.toLowerCase(), listing]),
  )
  const timestamps = await blockTimestamps(
    client,
    logs.map((log) => ({ blockNumber: log.blockNumber, blockTimestamp: timestampOfLog(log) })),
  )
  const tokenInfo = new Map<string, Promise<TokenInfo>>()
  const infoOf = (address: Address): Promise<TokenInfo> => {
    const key = address.toLowerCase()
    let info = tokenInfo.get(key)
    if (!info) {
      info = readTokenInfo(client, address, listings.get(key))
      tokenInfo.set(key, info)
    }
    return info
  }
  const assetDecimalsOf = async (address: Address): Promise<number> => {
    const known = chain.assets.find((asset) => asset.address.toLowerCase() === address.toLowerCase())
    return known ? known.decimals : (await infoOf(address)).decimals
  }

  return Promise.all(
    logs.map(async (log): Promise<ResolvedExecution> => {
      const { quoteId, taker, stockToken, assetToken, isBuy, amountIn, amountOut, feeAmount } = log.args
      const issued = issuedQuoteFor(context, chain.chainId, quoteId, stockToken)
      const [token, assetDecimals, input] = await Promise.all([
        infoOf(stockToken),
        assetDecimalsOf(assetToken),
        issued ? Promise.resolve(undefined) : executeInput(client, log.transactionHash, executors, quoteId),
      ])
      const quantity = isBuy ? amountOut : amountIn
      const gross = isBuy ? amountIn - feeAmount : amountOut + feeAmount
      const createdAt = timestamps.get(log.blockNumber) ?? 0
      const id = orderIdOf(chain.chainId, log.transactionHash, log.logIndex)
      const fill: LedgerFill = {
        id: fillIdOf(chain.chainId, log.transactionHash, log.logIndex),
        orderId: id,
        orderHash: quoteId,
        taker,
        fillQuantity: quantity,
        fillAmount: gross,
        feeAmount,
        incentiveAmount: 0n,
        takerIncentive: 0n,
        txHash: log.transactionHash,
        blockNumber: log.blockNumber,
        logIndex: log.logIndex,
        status: 'confirmed',
        referenceId: fillKey(chain.chainId, log.transactionHash, log.logIndex),
        createdAt,
      }
      return {
        id,
        chainId: chain.chainId,
        maker: taker,
        principal: taker,
        isBuy,
        ticker: issued?.ticker ?? token.ticker,
        exchange: issued?.exchange ?? token.exchange,
        stockToken,
        tokenDecimals: token.decimals,
        asset: assetToken,
        assetDecimals,
        price: issued?.price ?? (quantity === 0n ? 0n : (gross * 10n ** BigInt(token.decimals)) / quantity),
        quantity,
        incentive: 0n,
        deadline: issued?.expiresAt ?? input?.expiresAt ?? createdAt,
        signature: issued?.signature ?? input?.signature ?? '0x',
        orderHash: quoteId,
        status: 'filled',
        filledQuantity: quantity,
        notes: null,
        createdAt,
        updatedAt: createdAt,
        fills: [fill],
        blockNumber: log.blockNumber,
        logIndex: log.logIndex,
        txHash: log.transactionHash,
      }
    }),
  )
}

/** The contracts whose `execute` settles quotes on a chain: the settlement and, where present, the router. */
export function executorsOf(chain: LocalChain): Address[] {
  return chain.platformRouterAddress
    ? [chain.settlementAddress, chain.platformRouterAddress]
    : [chain.settlementAddress]
}

function issuedQuoteFor(
  context: SandboxContext,
  chainId: number,
  quoteId: Hex,
  stockToken: Address,
): IssuedQuote | undefined {
  const issued = context.quotes.get(quoteId) ?? context.quotes.get(quoteId.toLowerCase())
  if (!issued || issued.chainId !== chainId) return undefined
  return issued.stockToken.toLowerCase() === stockToken.toLowerCase() ? issued : undefined
}

type TokenInfo = { ticker: string; exchange: ExchangeCode; decimals: number }

/**
 * A listed token's ticker and exchange. A token the service does not list (possible only on a
 * hand-signed quote) is named by its on-chain symbol, on exchange 0, the reference's default market.
 */
async function readTokenInfo(
  client: PublicClient,
  address: Address,
  listing: { ticker: string; exchange: number; decimals: number } | undefined,
): Promise<TokenInfo> {
  if (listing && isExchangeCode(listing.exchange)) {
    return { ticker: listing.ticker, exchange: listing.exchange, decimals: listing.decimals }
  }
  const [symbol, decimals] = await Promise.all([
    client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }).catch(() => ''),
    client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }).catch(() => 0),
  ])
  return { ticker: symbol, exchange: exchangeCodes.us, decimals }
}

/** The quote struct and signature of a direct `execute` call, when the transaction is one. */
async function executeInput(
  client: PublicClient,
  hash: Hex,
  executors: readonly Address[],
  quoteId: Hex,
): Promise<{ expiresAt: number; signature: Hex } | undefined> {
  const transaction = await client.getTransaction({ hash })
  const to = transaction.to?.toLowerCase()
  if (!to || !executors.some((executor) => executor.toLowerCase() === to)) return undefined
  try {
    const decoded = decodeFunctionData({ abi: rfqSettlementAbi, data: transaction.input })
    if (decoded.functionName !== 'execute') return undefined
    const [quote, signature] = decoded.args
    if (quote.quoteId.toLowerCase() !== quoteId.toLowerCase()) return undefined
    return { expiresAt: Number(quote.expiresAt), signature }
  } catch {
    return undefined
  }
}

function timestampOfLog(log: { blockTimestamp?: unknown }): bigint | undefined {
  return typeof log.blockTimestamp === 'bigint' ? log.blockTimestamp : undefined
}

/** Unix seconds of each block; nodes that put `blockTimestamp` on logs save the block reads. */
async function blockTimestamps(
  client: PublicClient,
  blocks: readonly { blockNumber: bigint; blockTimestamp: bigint | undefined }[],
): Promise<Map<bigint, number>> {
  const result = new Map<bigint, number>()
  const missing = new Set<bigint>()
  for (const { blockNumber, blockTimestamp } of blocks) {
    if (blockTimestamp !== undefined) result.set(blockNumber, Number(blockTimestamp))
    else missing.add(blockNumber)
  }
  const read = await Promise.all(
    [...missing].map(async (blockNumber) => {
      const block = await client.getBlock({ blockNumber })
      return [blockNumber, Number(block.timestamp)] as const
    }),
  )
  for (const [blockNumber, timestamp] of read) result.set(blockNumber, timestamp)
  return result
}
