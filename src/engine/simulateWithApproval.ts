// Stage one's reads of the chain: the allowance (and, once per token, its storage slot) asked for
// while the router quote is on its way, then ONE simulation of the execute with the allowance it
// will find once its approval lands (prepareExecution.ts). The fallback for a token whose slot is
// unknown, simulating after the approvals are sent, is simulateAfterPending.ts.

import type { GetRouterQuoteReturnType } from '@stockroute/client/api/actions/getRouterQuote.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { type AllowanceLayout, allowanceSlotOf } from '../chain/allowanceSlot.js'
import { readAllowance } from '../chain/erc20.js'
import { executorAbi } from '../chain/executorAbi.js'
import { type SimulateExecuteReturnType, simulateExecute } from '../chain/simulateExecute.js'
import type { EngineContext } from './context.js'
import { givenAmountText } from './givenAmount.js'
import { type AllowanceReading, approvalTarget, readAllowanceState } from './planApprovals.js'
import type { ChainRuntime, ChainWallet } from './types.js'

/** The allowance on chain and the token's allowance slot, asked for before the quote arrives. */
export type AllowanceAhead = {
  /** The token's allowance layout when an override will be tried (simulating, overrides on, or a dry run). */
  layout: Promise<AllowanceLayout | undefined>
  onChain: Promise<bigint>
  /** The block watcher's head when the reading was asked for: the reading includes our transactions mined up to it. */
  atBlock: bigint | undefined
}

/** The execute's call data, the allowance as read, and what its one simulation said. */
export type SimulatedWithApproval = {
  allowance: AllowanceReading
  data: Hex
  /** Undefined when nothing was simulated (simulating off, or the approval goes first). */
  result: SimulateExecuteReturnType | undefined
  simulation: string
  approveFirst: boolean
}

/**
 * Starts the allowance reading for an execution whose quote is being asked for. Both promises are
 * awaited only once the quote is in hand: a quote that never comes leaves their answers (or
 * failures) unread, which is harmless (they are reads).
 *
 * @example
 * const allowanceAhead = readAllowanceAhead(context, chain, wallet, token, signal)
 */
export function readAllowanceAhead(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  token: Address,
  signal: AbortSignal | undefined,
): AllowanceAhead {
  const { settings } = context
  const owner = wallet.account.address
  const spender = chain.executorAddress
  // A dry run sends no approval to simulate after: it tries the override whatever the setting
  // (a node that refuses overrides just yields no layout).
  const layout =
    settings.simulate && (settings.allowanceOverride || settings.dryRun)
      ? chain.allowanceLayouts.layoutOf(token, owner, spender, { signal })
      : Promise.resolve(undefined)
  // Read at the block watcher's head, so that which of our transactions the reading includes is
  // known exactly (those mined after it still count as pending).
  const atBlock = wallet.transactions.head()
  const onChain = readAllowance(
    chain.publicClient,
    { token, owner, spender, blockNumber: atBlock },
    { signal },
  )
  layout.catch(() => undefined)
  onChain.catch(() => undefined)
  return { layout, onChain, atBlock }
}

/**
 * ONE simulation of the execute with the allowance it will find, beside the allowance reading
 * asked for with the quote. With the token's allowance slot known, the simulation leaves at once:
 * it overrides the slot with the amount an approval would set, which covers the quote just as the
 * allowance the execute will find does (the reading or our pending approvals cover it, or the
 * approval planned in the critical section will). Without the slot, the execute is simulated after
 * the reading, as is, or not at all when an approval is needed (it goes first then). No simulation
 * (`result` undefined) when simulating is off.
 *
 * @example
 * const simulated = simulateWithApproval(context, chain, wallet, { reply, token, allowanceAhead, signal })
 */
export async function simulateWithApproval(
  context: EngineContext,
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: {
    reply: GetRouterQuoteReturnType
    token: Address
    allowanceAhead: AllowanceAhead
    signal: AbortSignal | undefined
  },
): Promise<SimulatedWithApproval> {
  const { settings } = context
  const { reply, token, allowanceAhead, signal } = parameters
  const owner = wallet.account.address
  const spender = chain.executorAddress
  const needed = reply.quote.amountInUsed
  const target = approvalTarget(needed, settings.approvalPolicy)
  const struct = toSignedQuoteStruct(reply.quote)
  const data = encodeFunctionData({
    abi: executorAbi,
    functionName: 'execute',
    args: [struct, reply.signature],
  })
  const layout = await allowanceAhead.layout
  const simulate = executeSimulator(chain, wallet, {
    struct,
    signature: reply.signature,
    token,
    layout,
    signal,
  })
  const { atBlock } = allowanceAhead
  const early = layout ? simulate(target) : undefined
  early?.catch(() => undefined)
  const onChain = await allowanceAhead.onChain
  const allowance = await readAllowanceState(
    chain.publicClient,
    {
      token,
      owner,
      spender,
      needed,
      policy: settings.approvalPolicy,
      onChain,
      atBlock,
      resetFirstTokens: chain.resetFirstTokens,
    },
    { signal },
  )
  const needsApproval =
    wallet.transactions.allowanceOutlook(token, spender, onChain, atBlock).atLeast < needed
  const base = { allowance, data }
  if (!settings.simulate)
    return { ...base, result: undefined, simulation: 'not simulated', approveFirst: false }
  if (!early && needsApproval)
    return {
      ...base,
      result: undefined,
      simulation: settings.dryRun
        ? "not simulated: it needs its approval, the token's allowance slot is unknown (no override possible) and a dry run sends no approval"
        : 'to be simulated after its approval (no allowance override)',
      approveFirst: true,
    }
  const result = await (early ?? simulate(undefined))
  const simulation = result.ok
    ? `simulated${needsApproval ? ` with the allowance of its approval (${givenAmountText(chain.asset, reply.quote, target)})` : ''}, gas ${result.gas}`
    : `simulation failed: ${result.message}`
  return { ...base, result, simulation, approveFirst: false }
}

/**
 * The execute's simulation from the wallet, with the token's allowance slot overridden to
 * `override` when its layout is known and an override is given (as is otherwise).
 */
function executeSimulator(
  chain: ChainRuntime,
  wallet: ChainWallet,
  parameters: {
    struct: SignedQuoteStruct
    signature: Hex
    token: Address
    layout: AllowanceLayout | undefined
    signal: AbortSignal | undefined
  },
): (override: bigint | undefined) => Promise<SimulateExecuteReturnType> {
  const { struct, signature, token, layout, signal } = parameters
  const owner = wallet.account.address
  const spender = chain.executorAddress
  return (override) =>
    simulateExecute(
      chain.publicClient,
      {
        executor: spender,
        quote: struct,
        signature,
        taker: owner,
        // Our pending executes spend balances the latest block still shows.
        blockTag: wallet.transactions.status().pending > 0 ? 'pending' : 'latest',
        allowance:
          layout && override !== undefined
            ? { token, slot: allowanceSlotOf(layout, owner, spender), amount: override }
            : undefined,
      },
      { signal },
    )
}
