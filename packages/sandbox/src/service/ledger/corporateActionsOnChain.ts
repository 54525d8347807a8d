import { type Address, encodeFunctionData, type Hex, parseEventLogs, type TransactionReceipt } from 'viem'
import { stockTokenManagerAbi } from '../../contracts/artifacts/index.js'
import type { CorporateActionChain, CorporateActionRecord } from './corporateActionTypes.js'
import { createBalanceReader, recipientsOf } from './holdings.js'

// The on-chain half of corporate actions: holders from Transfer events, StockTokenManager calls
// signed by the chain's deployer, and records updated from the manager's HoldingAdjusted events.

/** The holders of record: every recipient of the token still holding some, except the payer (the service's inventory). */
export async function holdersOf(served: CorporateActionChain, token: Address) {
  const { client, chain } = served
  const head = await client.getBlockNumber({ cacheTime: 0 })
  const candidates = (await recipientsOf(client, token, head)).filter(
    (address) => address.toLowerCase() !== chain.payerAddress.toLowerCase(),
  )
  const balances = await createBalanceReader(client)(
    head,
    candidates.map((owner) => ({ token, owner })),
  )
  return candidates
    .map((address, index) => ({ address, balance: balances[index] ?? 0n }))
    .filter((holder) => holder.balance > 0n)
}

/** Sends a StockTokenManager call (encoded with `managerCall`) as the chain's deployer. */
export function manage(served: CorporateActionChain, data: Hex): Promise<TransactionReceipt> {
  return served.writer.send(served.chain.managerAddress, data)
}

export const managerCall = {
  pauseToken: (token: Address) =>
    encodeFunctionData({ abi: stockTokenManagerAbi, functionName: 'pauseToken', args: [token] }),
  unpauseToken: (token: Address) =>
    encodeFunctionData({ abi: stockTokenManagerAbi, functionName: 'unpauseToken', args: [token] }),
  applySplit: (
    actionId: Hex,
    token: Address,
    holders: readonly Address[],
    numerator: bigint,
    denominator: bigint,
  ) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'applySplit',
      args: [actionId, token, holders, numerator, denominator],
    }),
  delist: (actionId: Hex, token: Address, holders: readonly Address[]) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'delist',
      args: [actionId, token, holders],
    }),
  changeTicker: (actionId: Hex, token: Address, newSymbol: string) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'changeTicker',
      args: [actionId, token, newSymbol],
    }),
  declareDividend: (actionId: Hex, token: Address, asset: Address, amountPerShare: bigint) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'declareDividend',
      args: [actionId, token, asset, amountPerShare],
    }),
}

export function releaseLock(served: CorporateActionChain, token: Address) {
  return manage(served, managerCall.unpauseToken(token))
}

/** Updates records from the manager's HoldingAdjusted events: the chain's numbers are the truth. */
export function applyHoldingAdjustments(
  receipt: TransactionReceipt,
  records: readonly CorporateActionRecord[],
) {
  const events = parseEventLogs({
    abi: stockTokenManagerAbi,
    logs: receipt.logs,
    eventName: 'HoldingAdjusted',
  })
  for (const record of records) {
    const event = events.find((e) => e.args.holder.toLowerCase() === record.maker.toLowerCase())
    setProcessedAt(record, receipt, event?.logIndex ?? 0)
    if (!event) continue
    record.holdingQty = event.args.balanceBefore
    record.actionQty = event.args.balanceAfter
    if (record.compensationE18 !== null) record.compensationE18 = event.args.compensationE18
  }
}

export function setProcessedAt(record: CorporateActionRecord, receipt: TransactionReceipt, logIndex: number) {
  record.processedHash = receipt.transactionHash
  record.processedBlock = receipt.blockNumber
  record.processedLogIndex = logIndex
}

export function markProcessed(records: readonly CorporateActionRecord[], atMs: number) {
  for (const record of records) {
    record.status = 'processed'
    record.processedAtMs = atMs
    record.updatedAtMs = atMs
  }
}
