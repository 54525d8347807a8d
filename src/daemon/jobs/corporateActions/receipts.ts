import { type Address, type Client, erc20Abi, type Hex, parseEventLogs, type TransactionReceipt } from 'viem'
import { getTransactionReceipt } from 'viem/actions'
import { rpcCall } from '../../../chain/rpcCall.js'
import type { Ledger, PositionRecord } from '../../../store/index.js'

// What the chain says about a corporate action: the processing transaction's receipt, the
// transfers it made to the maker, and the ledger's trades mined after it.

export function readReceipt(
  client: Client,
  hash: Hex,
  signal: AbortSignal | undefined,
): Promise<TransactionReceipt> {
  return rpcCall(
    client,
    `receipt of the corporate action transaction ${hash}`,
    () => getTransactionReceipt(client, { hash }),
    signal ? { signal } : {},
  )
}

export function transfersTo(receipt: TransactionReceipt, owner: Address) {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).filter((log) =>
    sameAddress(log.args.to, owner),
  )
}

/** Net stock quantity of the ledger's fills in the position's token mined after the receipt's transaction. */
export function quantityTradedAfter(
  ledger: Ledger,
  position: PositionRecord,
  receipt: TransactionReceipt,
): bigint {
  const lastLogIndex = receipt.logs.reduce((max, log) => Math.max(max, log.logIndex ?? -1), -1)
  return ledger.fills
    .listFills({ chainId: position.chainId })
    .filter(
      (fill) =>
        sameAddress(fill.stockToken, position.tokenAddress) &&
        (fill.blockNumber > receipt.blockNumber ||
          (fill.blockNumber === receipt.blockNumber && lastLogIndex >= 0 && fill.logIndex > lastLogIndex)),
    )
    .reduce((sum, fill) => sum + (fill.isBuy ? fill.stockAmount : -fill.stockAmount), 0n)
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
