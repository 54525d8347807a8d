import {
  type Address,
  type Client,
  getAbiItem,
  getAddress,
  type Hash,
  type Hex,
  isAddressEqual,
  type Log,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem'
import { getChainId, getLogs } from 'viem/actions'
import { ChainInputError } from './errors.js'
import { executorAbi } from './executorAbi.js'
import { type ChainCallOptions, rpcCall } from './rpcCall.js'

/**
 * One settled quote, from the executor's `QuoteExecuted` event: everything a fill record needs.
 * Unique by (`chainId`, `txHash`, `logIndex`). Amounts are base units: on a buy `amountIn` is the
 * asset paid (fee included) and `amountOut` the stock received; on a sell `amountIn` is the stock
 * delivered and `amountOut` the asset received, net of the fee.
 */
export type SettlementFill = {
  chainId: number
  txHash: Hash
  logIndex: number
  blockNumber: bigint
  blockHash: Hash
  /** The contract that emitted the event (one of the executors asked for). */
  executor: Address
  quoteId: Hex
  taker: Address
  stockToken: Address
  assetToken: Address
  isBuy: boolean
  amountIn: bigint
  amountOut: bigint
  feeAmount: bigint
}

const quoteExecutedEvent = getAbiItem({ abi: executorAbi, name: 'QuoteExecuted' })

/**
 * The fills a transaction produced: its `QuoteExecuted` events emitted by one of `executors`.
 * Events of the same shape from any other contract are ignored (anyone can emit them), as are
 * the logs of a reverted transaction. Pure.
 *
 * @example
 * const receipt = await publicClient.waitForTransactionReceipt({ hash })
 * const [fill] = fillsFromReceipt(receipt, { chainId: 31337, executors: [chain.executorAddress] })
 * fill?.amountOut // 3n
 */
export function fillsFromReceipt(
  receipt: Pick<TransactionReceipt, 'status' | 'logs'>,
  parameters: { chainId: number; executors: readonly Address[] },
): SettlementFill[] {
  if (receipt.status !== 'success') return []
  return fillsFromLogs(receipt.logs, parameters)
}

export type ReadSettlementLogsParameters = {
  /** The executors whose fills to read; at least one (an empty list would match every contract). */
  executors: readonly Address[]
  fromBlock: bigint
  /** Inclusive. */
  toBlock: bigint
  /** Blocks per `eth_getLogs` request (providers cap the range). Default 1 000. */
  maxBlockRange?: bigint | undefined
}

/**
 * Every fill of `executors` in blocks `fromBlock` to `toBlock` (inclusive), read with `eth_getLogs`
 * in consecutive ranges of at most `maxBlockRange` blocks, one at a time, in block and log order.
 * Throws {@link ChainInputError} for a backward range or no executor, {@link ChainRpcError} when a
 * range cannot be read (no partial result: read again from `fromBlock`).
 *
 * @example
 * const fills = await readSettlementLogs(publicClient, {
 *   executors: [chain.executorAddress],
 *   fromBlock: checkpoint + 1n,
 *   toBlock: await publicClient.getBlockNumber(),
 * })
 */
export async function readSettlementLogs(
  client: Client,
  parameters: ReadSettlementLogsParameters,
  options: ChainCallOptions = {},
): Promise<SettlementFill[]> {
  const { executors, fromBlock, toBlock, maxBlockRange = 1_000n } = parameters
  if (executors.length === 0)
    throw new ChainInputError('executors', '[]', 'is empty: name the executor contracts whose fills to read')
  if (fromBlock < 0n)
    throw new ChainInputError('fromBlock', fromBlock, 'is negative: block numbers start at 0')
  if (fromBlock > toBlock)
    throw new ChainInputError('fromBlock', fromBlock, `is after toBlock ${toBlock}: give an ascending range`)
  if (maxBlockRange < 1n)
    throw new ChainInputError('maxBlockRange', maxBlockRange, 'must be at least 1 block')
  const addresses = executors.map((executor) => getAddress(executor))
  const chainId =
    client.chain?.id ?? (await rpcCall(client, 'eth_chainId', () => getChainId(client), options))
  const fills: SettlementFill[] = []
  for (let start = fromBlock; start <= toBlock; start += maxBlockRange) {
    const end = start + maxBlockRange - 1n < toBlock ? start + maxBlockRange - 1n : toBlock
    const logs = await rpcCall(
      client,
      `eth_getLogs QuoteExecuted of ${addresses.join(', ')} in blocks ${start}-${end}`,
      () =>
        getLogs(client, { address: addresses, event: quoteExecutedEvent, fromBlock: start, toBlock: end }),
      options,
    )
    fills.push(...fillsFromLogs(logs, { chainId, executors: addresses }))
  }
  return fills.sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
}

function fillsFromLogs(
  logs: readonly Log[],
  parameters: { chainId: number; executors: readonly Address[] },
): SettlementFill[] {
  const { chainId, executors } = parameters
  const fromExecutors = logs.filter(
    (log) => !log.removed && executors.some((executor) => isAddressEqual(executor, log.address)),
  )
  const decoded = parseEventLogs({
    abi: [quoteExecutedEvent],
    eventName: 'QuoteExecuted',
    logs: fromExecutors as Log[],
    strict: true,
  })
  const fills: SettlementFill[] = []
  for (const log of decoded) {
    if (
      log.blockNumber === null ||
      log.blockHash === null ||
      log.transactionHash === null ||
      log.logIndex === null
    )
      continue // pending: not a fill yet
    fills.push({
      chainId,
      txHash: log.transactionHash,
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      executor: getAddress(log.address),
      quoteId: log.args.quoteId,
      taker: getAddress(log.args.taker),
      stockToken: getAddress(log.args.stockToken),
      assetToken: getAddress(log.args.assetToken),
      isBuy: log.args.isBuy,
      amountIn: log.args.amountIn,
      amountOut: log.args.amountOut,
      feeAmount: log.args.feeAmount,
    })
  }
  return fills
}
