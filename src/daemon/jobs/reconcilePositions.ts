import { type Address, erc20Abi, getAddress, isAddressEqual } from 'viem'
import { getBlockNumber, readContract } from 'viem/actions'
import { iteratePositions } from '../../api/actions/getPositions.js'
import type { ServiceClient } from '../../api/createServiceClient.js'
import { rpcCall } from '../../chain/rpcCall.js'
import type { Ledger } from '../../store/index.js'
import { type JobChain, type JobLogger, messageOf } from './jobTypes.js'

// Cron job: the ledger's positions against the chain (the truth) and the service's view of them.
// The ledger's positions are the bot's across all wallets of a chain, so they are compared with the
// sum of the wallets' balances; the service's are the maker's (the main wallet) only, so they are
// compared with its balance alone. Reads only: a discrepancy is reported and logged for a human (or the corporate-actions job) to
// resolve, never "fixed" by writing the chain's number into the ledger.

/** Which source disagrees with the chain. */
export type PositionDiscrepancyKind = 'ledger-differs' | 'service-differs' | 'both-differ'

/** One token whose balances do not all agree. Balances are in the token's base units. */
export type PositionDiscrepancy = {
  chainId: number
  ticker: string
  tokenAddress: Address
  /** The ledger's balance (0 when the ledger has no position in the token). */
  ledger: bigint
  /** The chain's wallets together: the sum of their `balanceOf` at `blockNumber` (compared with `ledger`). */
  chain: bigint
  /**
   * The service's balance of the maker (0 when it lists no position); null when the service could
   * not be read. Compared with the maker's own balance (`owner`, in `wallets`).
   */
  service: bigint | null
  /** Each wallet's `balanceOf` at `blockNumber`: the maker (`owner`) first, then the chain's other wallets. */
  wallets: { address: Address; balance: bigint }[]
  kind: PositionDiscrepancyKind
  blockNumber: bigint
  /**
   * Unfinished executions of the ledger on this chain and ticker: when above 0, the difference may
   * be a trade in flight, gone by the next run.
   */
  unfinishedExecutions: number
}

export type ReconcilePositionsParameters = {
  ledger: Ledger
  /** A client for the maker `owner` (`makerAddress`, or its wallet login). */
  service: ServiceClient
  /** The configured chains, each with its wallets (`owners`; default: `owner` alone). */
  chains: readonly JobChain[]
  /** The maker: the main wallet, whose positions the service lists (it trades on every chain). */
  owner: Address
  logger?: JobLogger | undefined
  signal?: AbortSignal | undefined
}

export type ReconcilePositionsReport = {
  /** Tokens compared (ledger positions and service positions of the configured chains, once each). */
  checked: number
  discrepancies: PositionDiscrepancy[]
  counts: Record<PositionDiscrepancyKind, number> & { total: number }
  /** What could not be read: a chain, the service's positions of a chain, one token's balance. */
  errors: { chainId: number; tokenAddress?: Address; why: string }[]
}

type Candidate = { tokenAddress: Address; ticker: string; ledger: bigint; service: bigint | null }

/**
 * For each ledger position and each service position of the configured chains, compares the
 * ledger's balance with the sum of `balanceOf` over the chain's wallets, and the service's
 * `/positions` balance with the maker's (`owner`) `balanceOf`; every balance of a chain is read at
 * one block. Each discrepancy is logged at warn and reported; nothing is
 * written. Never throws for one token or one chain: what cannot be read goes to `errors`.
 *
 * @example
 * const report = await reconcilePositions({ ledger, service, chains: [{ chainId, publicClient, owners: [main, extra] }], owner: main, logger })
 * if (report.counts.total > 0) alert(report.discrepancies)
 */
export async function reconcilePositions(
  parameters: ReconcilePositionsParameters,
): Promise<ReconcilePositionsReport> {
  const { ledger, service, chains, owner, logger, signal } = parameters
  const report: ReconcilePositionsReport = {
    checked: 0,
    discrepancies: [],
    counts: { 'ledger-differs': 0, 'service-differs': 0, 'both-differ': 0, total: 0 },
    errors: [],
  }
  const options = signal ? { signal } : {}

  for (const { chainId, publicClient, owners } of chains) {
    signal?.throwIfAborted()
    // The maker first, then the chain's other wallets, each once.
    const wallets = [owner, ...(owners ?? []).filter((address) => !isAddressEqual(address, owner))]
    const makerCounts = owners === undefined || owners.some((address) => isAddressEqual(address, owner))
    const candidates = new Map<string, Candidate>()
    for (const position of ledger.positions.listPositions({ chainId }))
      candidates.set(position.tokenAddress.toLowerCase(), {
        tokenAddress: position.tokenAddress,
        ticker: position.ticker,
        ledger: position.balance,
        service: 0n,
      })

    let serviceRead = true
    const listed = new Map<string, bigint>()
    try {
      for await (const position of iteratePositions(service, { chainId }, options)) {
        const key = position.tokenAddress.toLowerCase()
        listed.set(key, position.balance)
        if (!candidates.has(key))
          candidates.set(key, {
            tokenAddress: getAddress(position.tokenAddress),
            ticker: position.ticker,
            ledger: 0n,
            service: 0n,
          })
      }
    } catch (error) {
      signal?.throwIfAborted()
      serviceRead = false
      const why = `the service's positions: ${messageOf(error)}`
      report.errors.push({ chainId, why })
      logger?.warn({ chainId, err: why }, 'reconcile: cannot read the service positions of a chain')
    }
    for (const [key, candidate] of candidates)
      candidate.service = serviceRead ? (listed.get(key) ?? 0n) : null

    let blockNumber: bigint
    try {
      blockNumber = await rpcCall(
        publicClient,
        `block number of chain ${chainId}`,
        () => getBlockNumber(publicClient, { cacheTime: 0 }),
        options,
      )
    } catch (error) {
      signal?.throwIfAborted()
      const why = messageOf(error)
      report.errors.push({ chainId, why })
      logger?.warn({ chainId, err: why }, 'reconcile: cannot read a chain')
      continue
    }

    const unfinished = ledger.executions.listUnfinishedExecutions({ chainId })
    const balances = await Promise.all(
      [...candidates.values()].map(async (candidate) => {
        try {
          const perWallet = await Promise.all(
            wallets.map(async (address) => ({
              address,
              balance: await rpcCall(
                publicClient,
                `balanceOf(${address}) of token ${candidate.tokenAddress} at block ${blockNumber}`,
                () =>
                  readContract(publicClient, {
                    address: candidate.tokenAddress,
                    abi: erc20Abi,
                    functionName: 'balanceOf',
                    args: [address],
                    blockNumber,
                  }),
                options,
              ),
            })),
          )
          return { candidate, perWallet, why: undefined }
        } catch (error) {
          signal?.throwIfAborted()
          return { candidate, perWallet: undefined, why: messageOf(error) }
        }
      }),
    )

    for (const { candidate, perWallet, why } of balances) {
      if (perWallet === undefined) {
        report.errors.push({ chainId, tokenAddress: candidate.tokenAddress, why: why ?? 'unknown' })
        logger?.warn(
          { chainId, ticker: candidate.ticker, tokenAddress: candidate.tokenAddress, err: why },
          'reconcile: cannot read a balance',
        )
        continue
      }
      report.checked += 1
      const maker = perWallet[0]?.balance ?? 0n
      // The ledger holds the chain's wallets (the maker only when it trades on this chain).
      const chain = perWallet.reduce(
        (sum, wallet, index) => (index === 0 && !makerCounts ? sum : sum + wallet.balance),
        0n,
      )
      const ledgerDiffers = candidate.ledger !== chain
      const serviceDiffers = candidate.service !== null && candidate.service !== maker
      if (!ledgerDiffers && !serviceDiffers) continue
      const kind: PositionDiscrepancyKind =
        ledgerDiffers && serviceDiffers ? 'both-differ' : ledgerDiffers ? 'ledger-differs' : 'service-differs'
      const discrepancy: PositionDiscrepancy = {
        chainId,
        ticker: candidate.ticker,
        tokenAddress: candidate.tokenAddress,
        ledger: candidate.ledger,
        chain,
        service: candidate.service,
        wallets: perWallet,
        kind,
        blockNumber,
        unfinishedExecutions: unfinished.filter((execution) => execution.ticker === candidate.ticker).length,
      }
      report.discrepancies.push(discrepancy)
      report.counts[kind] += 1
      report.counts.total += 1
      logger?.warn(
        {
          chainId,
          ticker: candidate.ticker,
          tokenAddress: candidate.tokenAddress,
          ledger: discrepancy.ledger.toString(),
          chain: chain.toString(),
          service: discrepancy.service?.toString() ?? null,
          wallets: Object.fromEntries(perWallet.map((wallet) => [wallet.address, wallet.balance.toString()])),
          kind,
          blockNumber: blockNumber.toString(),
          unfinishedExecutions: discrepancy.unfinishedExecutions,
        },
        'reconcile: position discrepancy',
      )
    }
  }
  return report
}
