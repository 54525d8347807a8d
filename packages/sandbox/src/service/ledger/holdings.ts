import { type Address, erc20Abi, getAbiItem, type PublicClient, zeroAddress } from 'viem'

/** One token balance to read: `owner`'s balance of `token`. */
export type BalancePair = { token: Address; owner: Address }

/** Blocks per getLogs call when scanning a token's transfers. */
const transferScanRange = 50_000n

const transferEvent = getAbiItem({ abi: erc20Abi, name: 'Transfer' })

/**
 * Reads balances at a given block through a batching client (one JSON-RPC batch instead of one
 * request per balance), remembering the answers for that block: balances at a block never change,
 * so a burst of statistics requests between two blocks reads the chain once.
 */
export function createBalanceReader(client: PublicClient) {
  let cached: { blockNumber: bigint; balances: Map<string, Promise<bigint>> } | undefined
  return async (blockNumber: bigint, pairs: readonly BalancePair[]): Promise<bigint[]> => {
    if (cached?.blockNumber !== blockNumber) cached = { blockNumber, balances: new Map() }
    const { balances } = cached
    return Promise.all(
      pairs.map(({ token, owner }) => {
        const key = `${token.toLowerCase()}:${owner.toLowerCase()}`
        let balance = balances.get(key)
        if (!balance) {
          balance = client.readContract({
            address: token,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [owner],
            blockNumber,
          })
          balance.catch(() => balances.delete(key))
          balances.set(key, balance)
        }
        return balance
      }),
    )
  }
}

/**
 * Every address that ever received `token` up to `toBlock`, from its Transfer events (mints
 * included), in first-received order.
 */
export async function recipientsOf(
  client: PublicClient,
  token: Address,
  toBlock: bigint,
): Promise<Address[]> {
  const seen = new Map<string, Address>()
  for (let from = 0n; from <= toBlock; from += transferScanRange) {
    const to = from + transferScanRange - 1n < toBlock ? from + transferScanRange - 1n : toBlock
    const logs = await client.getLogs({
      address: token,
      event: transferEvent,
      fromBlock: from,
      toBlock: to,
      strict: true,
    })
    for (const log of logs) {
      const recipient = log.args.to
      if (recipient !== zeroAddress && !seen.has(recipient.toLowerCase()))
        seen.set(recipient.toLowerCase(), recipient)
    }
  }
  return [...seen.values()]
}

/** What moves a maker's average buy price, in chain order. */
export type CostEvent =
  | { kind: 'fill'; blockNumber: bigint; logIndex: number; isBuy: boolean; quantity: bigint; price: bigint }
  | { kind: 'split'; blockNumber: bigint; logIndex: number; numerator: bigint; denominator: bigint }
  | { kind: 'delisting'; blockNumber: bigint; logIndex: number }

/**
 * Average buy price (asset base units per whole share) of the shares a maker still holds from its
 * fills, by average cost: a buy adds its quantity at its price; a sell removes quantity at the
 * current average, leaving the average unchanged; a split or reverse split scales the quantity by
 * its ratio and keeps the cost, so the average moves by the inverse ratio; a delisting clears the
 * position. Quantities that did not come from fills (mints, transfers) do not count. 0 when no
 * bought quantity remains. Rounded down.
 *
 * @example
 * averageBuyPrice([buy 10 at 100, buy 10 at 200]) // 150n
 */
export function averageBuyPrice(events: readonly CostEvent[]): bigint {
  const ordered = [...events].sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
  let quantity = 0n
  let cost = 0n // Σ price × quantity: asset base units per share × token base units
  for (const event of ordered) {
    if (event.kind === 'fill') {
      if (event.isBuy) {
        quantity += event.quantity
        cost += event.price * event.quantity
      } else if (quantity > 0n) {
        const remaining = event.quantity >= quantity ? 0n : quantity - event.quantity
        cost = (cost * remaining) / quantity
        quantity = remaining
      }
    } else if (event.kind === 'split') {
      quantity = (quantity * event.numerator) / event.denominator
      if (quantity === 0n) cost = 0n
    } else {
      quantity = 0n
      cost = 0n
    }
  }
  return quantity === 0n ? 0n : cost / quantity
}
