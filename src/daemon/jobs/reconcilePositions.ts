import { iteratePositions } from '@stockroute/client/api/actions/getPositions.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { type Address, type Client, erc20Abi, getAddress, isAddressEqual } from 'viem'
import { getBlockNumber, readContract } from 'viem/actions'
import { abortable, rpcCall } from '../../chain/rpcCall.js'
import type { Ledger } from '../../store/index.js'
import { type JobChain, type JobLogger, messageOf } from './jobTypes.js'

// Cron job: the ledger's positions against the chain (the truth) and the service's view of them.
// The ledger's positions are the bot's across all wallets of a chain, so they are compared with the
// sum of the wallets' balances; the service's are the maker's (the main wallet) only, so they are
// compared with its balance alone. Reads only: a discrepancy is reported and logged for a human (or the corporate-actions job) to
// resolve, never "fixed" by writing the chain's number into the ledger.
//
// A trade settling while the job runs is not a discrepancy. The ledger and the chain cannot be read
// at one instant, so a token is compared only when its ledger balance was the same just before and
// just after the chain was read, with no execution of it unfinished at either moment: then every
// trade the chain's block holds had already been recorded, and the ledger had nothing newer. A token
// that moved meanwhile is compared again once its executions have ended (a fill is committed in the
// same ledger transaction that ends its execution). Comparing "the ledger as of the block" instead
// would still count a trade mined at the block whose fill is not committed yet, and skipping busy
// tokens outright would hide a real difference of a token that trades all the time.

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
  /** Ends the run at once (its reads included); it then resolves with `aborted: true`. */
  signal?: AbortSignal | undefined
  /** How long a token that moved during the comparison may wait for its trades to settle. Default 30 s. */
  settleTimeoutMs?: number | undefined
  /** Called as each chain's comparison starts, so the daemon can say what it is waiting for. */
  onChain?: ((chainId: number) => void) | undefined
  /**
   * Test hook: awaited once per chain after the ledger is read and before the chain is, so that a
   * test can settle a trade exactly in between.
   */
  beforeChainRead?: ((chainId: number) => Promise<void>) | undefined
}

/** A token not compared because its trades were still in flight after `settleTimeoutMs`; the next run compares it. */
export type UnsettledToken = {
  chainId: number
  ticker: string
  tokenAddress: Address
  unfinishedExecutions: number
}

export type ReconcilePositionsReport = {
  /** Tokens compared (ledger positions and service positions of the configured chains, once each). */
  checked: number
  discrepancies: PositionDiscrepancy[]
  counts: Record<PositionDiscrepancyKind, number> & { total: number }
  /** What could not be read: a chain, the service's positions of a chain, one token's balance. */
  errors: { chainId: number; tokenAddress?: Address; why: string }[]
  /** Tokens whose trades did not settle in time: neither checked nor counted this run. */
  unsettled: UnsettledToken[]
  /** True when `signal` ended the run: the report holds what was compared before. */
  aborted: boolean
}

type Candidate = { tokenAddress: Address; ticker: string }

/** Rounds of "compare, and wait for the trades of the tokens that moved": the last one reports them unsettled. */
const compareRounds = 3
const settlePollMs = 200

/**
 * For each ledger position and each service position of the configured chains, compares the
 * ledger's balance with the sum of `balanceOf` over the chain's wallets, and the service's
 * `/positions` balance with the maker's (`owner`) `balanceOf`; every balance of a chain is read at
 * one block. A token whose ledger balance or executions changed while its chain was read is
 * compared again after its executions end (see the top of this file). Each discrepancy is logged at
 * warn and reported; nothing is written. Never throws for one token or one chain: what cannot be
 * read goes to `errors`; an abort resolves with `aborted: true`.
 *
 * @example
 * const report = await reconcilePositions({ ledger, service, chains: [{ chainId, publicClient, owners: [main, extra] }], owner: main, logger })
 * if (report.counts.total > 0) alert(report.discrepancies)
 */
export async function reconcilePositions(
  parameters: ReconcilePositionsParameters,
): Promise<ReconcilePositionsReport> {
  const { ledger, chains, signal } = parameters
  const report: ReconcilePositionsReport = {
    checked: 0,
    discrepancies: [],
    counts: { 'ledger-differs': 0, 'service-differs': 0, 'both-differ': 0, total: 0 },
    errors: [],
    unsettled: [],
    aborted: false,
  }
  try {
    for (const chain of chains) {
      signal?.throwIfAborted()
      parameters.onChain?.(chain.chainId)
      const candidates = new Map<string, Candidate>()
      for (const position of ledger.positions.listPositions({ chainId: chain.chainId }))
        candidates.set(position.tokenAddress.toLowerCase(), {
          tokenAddress: position.tokenAddress,
          ticker: position.ticker,
        })
      await reconcileChain(parameters, chain, candidates, report)
    }
  } catch (error) {
    if (!signal?.aborted) throw error
    report.aborted = true
  }
  return report
}

/** One chain: its tokens compared, those that moved meanwhile compared again after they settle. */
async function reconcileChain(
  parameters: ReconcilePositionsParameters,
  { chainId, publicClient, owners }: JobChain,
  candidates: Map<string, Candidate>,
  report: ReconcilePositionsReport,
) {
  const { ledger, owner, logger, signal } = parameters
  // The maker first, then the chain's other wallets, each once.
  const wallets = [owner, ...(owners ?? []).filter((address) => !isAddressEqual(address, owner))]
  const makerCounts = owners === undefined || owners.some((address) => isAddressEqual(address, owner))
  let pending = candidates
  for (let round = 1; ; round += 1) {
    const service = await readServicePositions(parameters, chainId, report)
    if (round === 1 && service)
      for (const position of service.tokens.values())
        if (!pending.has(position.tokenAddress.toLowerCase()))
          pending.set(position.tokenAddress.toLowerCase(), position)

    const before = ledgerSnapshot(ledger, chainId)
    if (round === 1) await parameters.beforeChainRead?.(chainId)
    let blockNumber: bigint
    try {
      blockNumber = await rpcCall(
        publicClient,
        `block number of chain ${chainId}`,
        () => getBlockNumber(publicClient, { cacheTime: 0 }),
        signal ? { signal } : {},
      )
    } catch (error) {
      signal?.throwIfAborted()
      const why = messageOf(error)
      report.errors.push({ chainId, why })
      logger?.warn({ chainId, err: why }, 'reconcile: cannot read a chain')
      return
    }
    const balances = await readBalances(publicClient, [...pending.values()], wallets, blockNumber, signal)
    const after = ledgerSnapshot(ledger, chainId)

    const moved = new Map<string, Candidate>()
    for (const { candidate, perWallet, why } of balances) {
      if (perWallet === undefined) {
        report.errors.push({ chainId, tokenAddress: candidate.tokenAddress, why: why ?? 'unknown' })
        logger?.warn(
          { chainId, ticker: candidate.ticker, tokenAddress: candidate.tokenAddress, err: why },
          'reconcile: cannot read a balance',
        )
        continue
      }
      const key = candidate.tokenAddress.toLowerCase()
      const maker = perWallet[0]?.balance ?? 0n
      // The ledger holds the chain's wallets (the maker only when it trades on this chain).
      const onChain = perWallet.reduce(
        (sum, wallet, index) => (index === 0 && !makerCounts ? sum : sum + wallet.balance),
        0n,
      )
      const held = after.balances.get(key) ?? 0n
      const serviceHeld = service ? (service.balances.get(key) ?? 0n) : null
      const ledgerDiffers = held !== onChain
      const serviceDiffers = serviceHeld !== null && serviceHeld !== maker
      const unfinished = after.unfinished(candidate.ticker)
      const settled =
        (before.balances.get(key) ?? 0n) === held &&
        before.unfinished(candidate.ticker) === 0 &&
        unfinished === 0
      if ((ledgerDiffers || serviceDiffers) && !settled) {
        if (round < compareRounds) moved.set(key, candidate)
        else {
          report.unsettled.push({
            chainId,
            ticker: candidate.ticker,
            tokenAddress: candidate.tokenAddress,
            unfinishedExecutions: unfinished,
          })
          logger?.info(
            { chainId, ticker: candidate.ticker, unfinishedExecutions: unfinished },
            'reconcile: trades still in flight, compared next run',
          )
        }
        continue
      }
      report.checked += 1
      if (!ledgerDiffers && !serviceDiffers) continue
      const kind: PositionDiscrepancyKind =
        ledgerDiffers && serviceDiffers ? 'both-differ' : ledgerDiffers ? 'ledger-differs' : 'service-differs'
      recordDiscrepancy(report, logger, {
        chainId,
        ticker: candidate.ticker,
        tokenAddress: candidate.tokenAddress,
        ledger: held,
        chain: onChain,
        service: serviceHeld,
        wallets: perWallet,
        kind,
        blockNumber,
        unfinishedExecutions: unfinished,
      })
    }
    if (moved.size === 0) return
    const tickers = new Set([...moved.values()].map((candidate) => candidate.ticker))
    await waitForSettlement(ledger, chainId, tickers, parameters.settleTimeoutMs ?? 30_000, signal)
    pending = moved
  }
}

/** The service's positions of the maker on a chain; null (and an error of the report) when unreadable. */
async function readServicePositions(
  { service, logger, signal }: ReconcilePositionsParameters,
  chainId: number,
  report: ReconcilePositionsReport,
): Promise<{ balances: Map<string, bigint>; tokens: Map<string, Candidate> } | null> {
  const balances = new Map<string, bigint>()
  const tokens = new Map<string, Candidate>()
  try {
    for await (const position of iteratePositions(service, { chainId }, signal ? { signal } : {})) {
      const key = position.tokenAddress.toLowerCase()
      balances.set(key, position.balance)
      tokens.set(key, { tokenAddress: getAddress(position.tokenAddress), ticker: position.ticker })
    }
    return { balances, tokens }
  } catch (error) {
    signal?.throwIfAborted()
    const why = `the service's positions: ${messageOf(error)}`
    report.errors.push({ chainId, why })
    logger?.warn({ chainId, err: why }, 'reconcile: cannot read the service positions of a chain')
    return null
  }
}

/** The ledger's side of a chain at one moment: balances by token, unfinished executions by ticker. */
function ledgerSnapshot(ledger: Ledger, chainId: number) {
  const balances = new Map(
    ledger.positions
      .listPositions({ chainId })
      .map((position) => [position.tokenAddress.toLowerCase(), position.balance] as const),
  )
  const executions = ledger.executions.listUnfinishedExecutions({ chainId })
  return {
    balances,
    unfinished: (ticker: string) => executions.filter((execution) => execution.ticker === ticker).length,
  }
}

/** Each candidate's `balanceOf` for every wallet at `blockNumber`, or why it could not be read. */
function readBalances(
  publicClient: Client,
  candidates: Candidate[],
  wallets: Address[],
  blockNumber: bigint,
  signal: AbortSignal | undefined,
) {
  return Promise.all(
    candidates.map(async (candidate) => {
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
              signal ? { signal } : {},
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
}

/** Resolves once no execution of `tickers` on the chain is unfinished, or after `timeoutMs`. */
async function waitForSettlement(
  ledger: Ledger,
  chainId: number,
  tickers: ReadonlySet<string>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
) {
  const deadline = Date.now() + timeoutMs
  while (
    ledger.executions
      .listUnfinishedExecutions({ chainId })
      .some((execution) => tickers.has(execution.ticker)) &&
    Date.now() < deadline
  ) {
    signal?.throwIfAborted()
    await abortable(new Promise((resolve) => setTimeout(resolve, settlePollMs)), signal)
  }
}

function recordDiscrepancy(
  report: ReconcilePositionsReport,
  logger: JobLogger | undefined,
  discrepancy: PositionDiscrepancy,
) {
  report.discrepancies.push(discrepancy)
  report.counts[discrepancy.kind] += 1
  report.counts.total += 1
  logger?.warn(
    {
      chainId: discrepancy.chainId,
      ticker: discrepancy.ticker,
      tokenAddress: discrepancy.tokenAddress,
      ledger: discrepancy.ledger.toString(),
      chain: discrepancy.chain.toString(),
      service: discrepancy.service?.toString() ?? null,
      wallets: Object.fromEntries(
        discrepancy.wallets.map((wallet) => [wallet.address, wallet.balance.toString()]),
      ),
      kind: discrepancy.kind,
      blockNumber: discrepancy.blockNumber.toString(),
      unfinishedExecutions: discrepancy.unfinishedExecutions,
    },
    'reconcile: position discrepancy',
  )
}
