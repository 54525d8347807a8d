import { randomUUID } from 'node:crypto'
import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import { type Address, BaseError } from 'viem'
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

/** What the corporate actions of one service hold: the actions by id, and how to reach the chains. */
type ActionBook = {
  context: () => SandboxContext
  chainOf: (chainId: number) => CorporateActionChain | undefined
  actions: Map<string, CorporateAction>
}

export function createCorporateActions(parameters: {
  context: () => SandboxContext
  chainOf: (chainId: number) => CorporateActionChain | undefined
}): CorporateActions {
  const book: ActionBook = { ...parameters, actions: new Map() }
  const { actions } = book
  return {
    trigger: (input) => triggerAction(book, input),
    process: (id) => processAction(book, id),
    get: (id) => actions.get(id.toLowerCase()),
    list: () => [...actions.values()].sort((a, b) => b.createdAtMs - a.createdAtMs),
    ...corporateActionQueries(() => [...actions.values()].flatMap((action) => action.records)),
  }
}

/** Records a new action on a listed, active token: one `triggered` record per holder, the token paused if asked. */
async function triggerAction(book: ActionBook, input: CorporateActionInput): Promise<CorporateAction> {
  const ctx = book.context()
  const { exchange, chain, served, listing } = targetOf(book, ctx, input)
  const params = paramsOf(input, listing)
  validateAgainstListings(ctx, chain.chainId, listing, params)

  const id = randomUUID()
  const createdAtMs = ctx.clock.now()
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
    exchange,
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
  book.actions.set(id, action)
  return action
}

/** The served chain and the active listing an action names; a 400 or 404 otherwise. */
function targetOf(book: ActionBook, ctx: SandboxContext, input: CorporateActionInput) {
  if (!isExchangeCode(input.exchange)) throw badRequest('exchange: must be 0 (US), 1 (HK) or 3 (KR)')
  const chain = findChain(ctx, input.chain_id)
  const served = book.chainOf(input.chain_id)
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
  return { exchange: input.exchange, chain, served, listing }
}

/** Applies a triggered action on chain, then marks it and its records processed (or their remark). */
async function processAction(book: ActionBook, id: string): Promise<CorporateAction> {
  const action = book.actions.get(id)
  if (!action) throw notFound(`no corporate action ${id}; list them with GET /sandbox/v1/corporate-actions`)
  if (action.status === 'processed')
    throw httpError(409, 'Already processed', `corporate action ${id} was processed`)
  if (action.busy) throw httpError(409, 'Being processed', `corporate action ${id} is being processed now`)
  const served = book.chainOf(action.chainId)
  if (!served) throw badRequest(`chain ${action.chainId} is no longer served`)
  const now = () => book.context().clock.now()
  action.busy = true
  try {
    await applyCorporateAction(served, action, book.context, now)
    markProcessed(action, now())
    if (action.lockTokens && !stillLocked(book, action)) await releaseLock(served, action.tokenAddress)
    return action
  } catch (error) {
    const remark = messageOf(error)
    markFailed(action, remark, now())
    throw httpError(500, 'Corporate action failed', `corporate action ${id}: ${remark}`)
  } finally {
    action.busy = false
  }
}

function markProcessed(action: CorporateAction, processedAtMs: number) {
  for (const record of action.records) {
    record.status = 'processed'
    record.processedAtMs = processedAtMs
    record.updatedAtMs = processedAtMs
    record.remark = null
  }
  action.status = 'processed'
  action.processedAtMs = processedAtMs
  action.remark = null
}

/** The failure's remark on the action and on each record not processed yet. */
function markFailed(action: CorporateAction, remark: string, at: number) {
  action.remark = remark
  for (const record of action.records) {
    if (record.status === 'processed') continue
    record.remark = remark
    record.updatedAtMs = at
  }
}

/** Whether another triggered action still holds the same token locked. */
function stillLocked(book: ActionBook, action: CorporateAction): boolean {
  return [...book.actions.values()].some(
    (other) =>
      other !== action &&
      other.status === 'triggered' &&
      other.lockTokens &&
      other.chainId === action.chainId &&
      other.tokenAddress.toLowerCase() === action.tokenAddress.toLowerCase(),
  )
}

function messageOf(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
