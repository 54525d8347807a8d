import { randomUUID } from 'node:crypto'
import { type Address, BaseError } from 'viem'
import { isExchangeCode } from '../../../domain/markets.js'
import { findChain, findListing } from '../context.js'
import type { SandboxContext } from '../contextTypes.js'
import { badRequest, httpError, notFound } from '../errors.js'
import { underlyingTicker } from './corporateActionListings.js'
import { applyCorporateAction } from './corporateActionProcessing.js'
import { corporateActionQueries } from './corporateActionQueries.js'
import { holdersOf, manage, managerCall, releaseLock } from './corporateActionsOnChain.js'
import { newRecord, paramsOf, validateAgainstListings } from './corporateActionTrigger.js'
import type {
  CorporateAction,
  CorporateActionChain,
  CorporateActionInput,
  CorporateActions,
} from './corporateActionTypes.js'

// Corporate actions of the sandbox. An operator triggers an action on one token of one chain (a
// sandbox admin endpoint); the service then records one `triggered` record per holder, optionally
// pausing the token on chain, and on processing applies the action ON CHAIN with the
// StockTokenManager (signed by the chain's deployer, which holds the manager's roles), marks the
// records `processed` and unpauses. Makers read their records with
// GET /api/v1/maker/corporate-actions/actions.

export function createCorporateActions(parameters: {
  context: () => SandboxContext
  chainOf: (chainId: number) => CorporateActionChain | undefined
}): CorporateActions {
  const { context, chainOf } = parameters
  const actions = new Map<string, CorporateAction>()
  const allRecords = () => [...actions.values()].flatMap((action) => action.records)
  const now = () => context().clock.now()

  async function trigger(input: CorporateActionInput): Promise<CorporateAction> {
    const ctx = context()
    if (!isExchangeCode(input.exchange)) throw badRequest('exchange: must be 0 (US), 1 (HK) or 3 (KR)')
    const chain = findChain(ctx, input.chain_id)
    const served = chainOf(input.chain_id)
    if (!chain || !served) {
      const known = ctx.chains.map((c) => c.chainId).join(', ')
      throw badRequest(`chain_id: ${input.chain_id} is not served; chains: ${known}`)
    }
    const listing = findListing(ctx, chain.chainId, input.ticker, input.exchange)
    if (!listing) {
      throw notFound(
        `no token ${input.ticker} on exchange ${input.exchange} and chain ${chain.chainId}; list them with GET /api/v1/chains/${chain.chainId}/tokens`,
      )
    }
    if (!listing.isActive) throw badRequest(`${input.ticker} on chain ${chain.chainId} is delisted`)
    const params = paramsOf(input, listing)
    validateAgainstListings(ctx, chain.chainId, listing, params)

    const id = randomUUID()
    const createdAtMs = now()
    const lockTokens = input.lock_tokens ?? false
    const lockHash = lockTokens ? await manage(served, managerCall.pauseToken(listing.address)) : null
    let holders: { address: Address; balance: bigint }[]
    try {
      holders = await holdersOf(served, listing.address)
    } catch (error) {
      if (lockTokens) await releaseLock(served, listing.address).catch(() => undefined)
      throw error
    }

    const action: CorporateAction = {
      id,
      chainId: chain.chainId,
      tokenAddress: listing.address,
      tokenDecimals: listing.decimals,
      tokenTicker: listing.ticker,
      ticker: underlyingTicker(ctx, listing),
      exchange: input.exchange,
      actionType: input.action_type,
      params,
      lockTokens,
      status: 'triggered',
      createdAtMs,
      processedAtMs: null,
      processedHash: null,
      lockHash: lockHash?.transactionHash ?? null,
      remark: null,
      records: [],
      busy: false,
    }
    action.records = holders.map((holder) => newRecord(action, holder.address, holder.balance, chain))
    actions.set(id, action)
    return action
  }

  async function processAction(id: string): Promise<CorporateAction> {
    const action = actions.get(id)
    if (!action) throw notFound(`no corporate action ${id}; list them with GET /sandbox/v1/corporate-actions`)
    if (action.status === 'processed')
      throw httpError(409, 'Already processed', `corporate action ${id} was processed`)
    if (action.busy) throw httpError(409, 'Being processed', `corporate action ${id} is being processed now`)
    const served = chainOf(action.chainId)
    if (!served) throw badRequest(`chain ${action.chainId} is no longer served`)
    action.busy = true
    try {
      await applyCorporateAction(served, action, context, now)
      const processedAtMs = now()
      for (const record of action.records) {
        record.status = 'processed'
        record.processedAtMs = processedAtMs
        record.updatedAtMs = processedAtMs
        record.remark = null
      }
      action.status = 'processed'
      action.processedAtMs = processedAtMs
      action.remark = null
      if (action.lockTokens && !stillLocked(action)) await releaseLock(served, action.tokenAddress)
      return action
    } catch (error) {
      const remark = messageOf(error)
      const at = now()
      action.remark = remark
      for (const record of action.records) {
        if (record.status === 'processed') continue
        record.remark = remark
        record.updatedAtMs = at
      }
      throw httpError(500, 'Corporate action failed', `corporate action ${id}: ${remark}`)
    } finally {
      action.busy = false
    }
  }

  function stillLocked(action: CorporateAction): boolean {
    return [...actions.values()].some(
      (other) =>
        other !== action &&
        other.status === 'triggered' &&
        other.lockTokens &&
        other.chainId === action.chainId &&
        other.tokenAddress.toLowerCase() === action.tokenAddress.toLowerCase(),
    )
  }

  return {
    trigger,
    process: processAction,
    get: (id) => actions.get(id.toLowerCase()),
    list: () => [...actions.values()].sort((a, b) => b.createdAtMs - a.createdAtMs),
    ...corporateActionQueries(allRecords),
  }
}

function messageOf(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
