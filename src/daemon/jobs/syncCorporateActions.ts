import { getChains } from '@stockroute/client/api/actions/getChains.js'
import {
  type CorporateActionRecord,
  iterateCorporateActions,
} from '@stockroute/client/api/actions/getCorporateActions.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { type Address, getAddress } from 'viem'
import type { Ledger } from '../../store/index.js'
import { applyRecord } from './corporateActions/applyRecord.js'
import type { Outcome, RunContext } from './corporateActions/runContext.js'
import { type JobChain, type JobLogger, messageOf } from './jobTypes.js'

// Cron job: the maker's corporate actions, applied to the ledger once each. The service's records
// say what happened; the chain says how much (the processing transaction's receipt): a split's
// ratio comes from the record, a dividend's amount from the mint to the maker in that receipt.

export { splitRatio } from './corporateActions/recordQuantities.js'

export type SyncCorporateActionsParameters = {
  ledger: Ledger
  /** A client for the maker (`makerAddress`, or a wallet login): the records read are the maker's. */
  service: ServiceClient
  /**
   * The configured chains. Records are read per chain (other chains' are never read); each client
   * reads processing receipts (a dividend's payout, a delisting's compensation, trades after a split).
   */
  chains: readonly JobChain[]
  logger?: JobLogger | undefined
  /** Stops the job between records (it then rejects with the signal's reason). */
  signal?: AbortSignal | undefined
}

/** A record that was not applied, and why; it is looked at again on the next run. */
export type SkippedCorporateAction = { id: string; why: string }

export type SyncCorporateActionsReport = {
  /** Records read, every page of every configured chain. */
  seen: number
  /** Records applied to positions by this run: splits, reverse splits, delistings, ticker changes. */
  applied: number
  /** Records applied by an earlier run (found by reference): nothing changed. */
  alreadyApplied: number
  /** Dividends recorded as income by this run. */
  income: number
  /** Records not applied: not processed yet, no position in the token, a bad record… */
  skipped: SkippedCorporateAction[]
  /** Chains whose records could not be read (the other chains' records were still applied). */
  errors: { chainId: number; why: string }[]
}

/**
 * Reads the maker's corporate action records of every configured chain (all pages) and applies
 * each `processed` one whose token the ledger holds a position in, exactly once (the record id is
 * the reference):
 *
 * - `stock_split`, `reverse_stock_split`: a `split` adjustment with the record's ratio (`params`
 *   numerator/denominator, else action_qty/holding_qty): the balance scales, the cost basis stays, so
 *   the average price scales inversely. Trades the ledger holds that were mined after the
 *   processing transaction are kept out of the scaling (the ratio applied is adjusted so that the
 *   result equals the chain's);
 * - `delisting`: a `delisting` adjustment, compensated by what the processing transaction paid the
 *   maker in the position's asset (0 when nothing);
 * - `ticker_change`: the position is renamed (`params.new_ticker`, else the record's ticker);
 * - `dividend`: income equal to the chain's mint of the default asset to the maker in the
 *   processing transaction (the service converts the net dividend at its FX rates, which the record
 *   does not carry), with gross, tax, fee and net in the market currency from the record.
 *
 * Never throws for one record: a record that cannot be applied is reported in `skipped` (and tried
 * again next run); a chain whose records cannot be read is reported in `errors`.
 *
 * @example
 * const report = await syncCorporateActions({ ledger, service, chains: [{ chainId, publicClient }], logger })
 * logger.info(report, 'corporate actions synced')
 */
export async function syncCorporateActions(
  parameters: SyncCorporateActionsParameters,
): Promise<SyncCorporateActionsReport> {
  const { ledger, service, chains, logger, signal } = parameters
  const report: SyncCorporateActionsReport = {
    seen: 0,
    applied: 0,
    alreadyApplied: 0,
    income: 0,
    skipped: [],
    errors: [],
  }
  const options = signal ? { signal } : {}

  const records: CorporateActionRecord[] = []
  for (const chain of chains) {
    try {
      for await (const record of iterateCorporateActions(service, { chainId: chain.chainId }, options))
        records.push(record)
    } catch (error) {
      signal?.throwIfAborted()
      const why = messageOf(error)
      report.errors.push({ chainId: chain.chainId, why })
      logger?.warn(
        { chainId: chain.chainId, err: why },
        'corporate actions: cannot read the records of a chain',
      )
    }
  }
  report.seen = records.length
  // Oldest first: actions on one token apply in the order they happened.
  records.sort(
    (a, b) => timeOf(a) - timeOf(b) || compareText(a.createdAt, b.createdAt) || compareText(a.id, b.id),
  )

  let chainList: Promise<Map<number, Address>> | undefined
  const context: RunContext = {
    ledger,
    service,
    clients: new Map(chains.map((chain) => [chain.chainId, chain.publicClient])),
    logger,
    signal,
    async defaultAssetOf(chainId) {
      chainList ??= getChains(service, {}, options).then(
        (reply) =>
          new Map(
            reply.chains.flatMap((chain) =>
              chain.defaultAssetAddress
                ? [[chain.chainId, getAddress(chain.defaultAssetAddress)] as const]
                : [],
            ),
          ),
      )
      try {
        return (await chainList).get(chainId)
      } catch (error) {
        chainList = undefined
        logger?.warn({ chainId, err: messageOf(error) }, 'corporate actions: cannot read the chain list')
        return undefined
      }
    },
  }

  for (const record of records) {
    signal?.throwIfAborted()
    let outcome: Outcome
    try {
      outcome = await applyRecord(record, context)
    } catch (error) {
      signal?.throwIfAborted()
      outcome = { kind: 'skipped', why: messageOf(error) }
    }
    const fields = {
      corporateActionId: record.id,
      chainId: record.chainId,
      actionType: record.actionType,
      ticker: record.ticker,
      tokenAddress: record.tokenAddress,
    }
    switch (outcome.kind) {
      case 'applied':
        report.applied += 1
        logger?.info(fields, 'corporate action applied to the ledger')
        break
      case 'income':
        report.income += 1
        logger?.info(fields, 'dividend recorded as income')
        break
      case 'already':
        report.alreadyApplied += 1
        break
      case 'skipped':
        report.skipped.push({ id: record.id, why: outcome.why })
        logger?.debug({ ...fields, why: outcome.why }, 'corporate action not applied')
        break
    }
  }
  return report
}

// ---------------------------------------------------------------------------------------------
// Helpers

function timeOf(record: CorporateActionRecord): number {
  const at = Date.parse(record.processedAt ?? record.createdAt ?? '')
  return Number.isNaN(at) ? Number.MAX_SAFE_INTEGER : at
}

function compareText(a: string | null, b: string | null): number {
  return (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0
}
