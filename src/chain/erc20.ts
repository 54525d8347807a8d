import {
  type Address,
  type Client,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type StateOverride,
  toHex,
} from 'viem'
import { readContract, simulateContract } from 'viem/actions'
import { decodeRevert } from './decodeRevert.js'
import { ChainRpcError } from './errors.js'
import { abortable, type ChainCallOptions, rpcCall } from './rpcCall.js'
import { erc20ErrorsAbi, serviceTokenErrorsAbi } from './tokenErrorsAbis.js'

// ERC-20 helpers: reads of allowance, balance and decimals, the approve call, and the detection of
// USDT-like tokens that refuse to change a non-zero allowance to another non-zero value.

/** `approve` plus the errors an approve can revert with, so that reverts decode by name. */
const approveAbi = [...erc20Abi, ...erc20ErrorsAbi, ...serviceTokenErrorsAbi] as const

/**
 * `owner`'s allowance to `spender` on `token`, in the token's base units.
 *
 * @example
 * await readAllowance(publicClient, { token: usdc, owner: taker, spender: router }) // 1500000n
 */
export function readAllowance(
  client: Client,
  parameters: {
    token: Address
    owner: Address
    spender: Address
    /** Read at this block (default: the latest). */
    blockNumber?: bigint | undefined
  },
  options: ChainCallOptions = {},
): Promise<bigint> {
  const { token, owner, spender, blockNumber } = parameters
  return rpcCall(
    client,
    `allowance(${owner}, ${spender}) of token ${token}`,
    () =>
      readContract(client, {
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner, spender],
        ...(blockNumber === undefined ? {} : { blockNumber }),
      }),
    options,
  )
}

/**
 * `owner`'s balance of `token`, in the token's base units.
 *
 * @example
 * await readBalance(publicClient, { token: aapl, owner: taker }) // 12n (whole shares)
 */
export function readBalance(
  client: Client,
  parameters: { token: Address; owner: Address },
  options: ChainCallOptions = {},
): Promise<bigint> {
  const { token, owner } = parameters
  return rpcCall(
    client,
    `balanceOf(${owner}) of token ${token}`,
    () => readContract(client, { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    options,
  )
}

const decimalsCache = new WeakMap<Client, Map<Address, Promise<number>>>()

/**
 * `token`'s `decimals()`, read once per client and token and cached (a token's decimals never
 * change; a failed read is not cached).
 *
 * @example
 * await readDecimals(publicClient, usdc) // 6
 */
export async function readDecimals(
  client: Client,
  token: Address,
  options: ChainCallOptions = {},
): Promise<number> {
  options.signal?.throwIfAborted()
  const key = getAddress(token)
  let perClient = decimalsCache.get(client)
  if (!perClient) {
    perClient = new Map()
    decimalsCache.set(client, perClient)
  }
  let read = perClient.get(key)
  if (!read) {
    const entries = perClient
    const fresh = rpcCall(client, `decimals() of token ${key}`, () =>
      readContract(client, { address: key, abi: erc20Abi, functionName: 'decimals' }),
    )
    entries.set(key, fresh)
    fresh.catch(() => {
      if (entries.get(key) === fresh) entries.delete(key)
    })
    read = fresh
  }
  return abortable(read, options.signal)
}

/** An `approve(spender, amount)` call on `token`, ready to be prepared, signed and sent. */
export type ApproveRequest = {
  /** The transaction's `to`: the token. */
  to: Address
  /** ABI-encoded `approve(spender, amount)`. */
  data: Hex
  token: Address
  spender: Address
  /** Base units of `token`. */
  amount: bigint
}

/**
 * Builds the `approve(spender, amount)` call on `token`. It checks nothing about the spender:
 * the guard decides which spenders and amounts are allowed before calling this.
 *
 * @example
 * const approval = buildApproveRequest({ token: usdc, spender: router, amount: 1_500_000n })
 * await walletClient.signTransaction(await walletClient.prepareTransactionRequest({ to: approval.to, data: approval.data, nonce }))
 */
export function buildApproveRequest(parameters: {
  token: Address
  spender: Address
  amount: bigint
}): ApproveRequest {
  const { token, spender, amount } = parameters
  if (amount < 0n || amount >= 2n ** 256n)
    throw new RangeError(`approve amount ${amount} is outside uint256: give base units from 0 to 2^256 - 1`)
  return {
    to: getAddress(token),
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [getAddress(spender), amount] }),
    token: getAddress(token),
    spender: getAddress(spender),
    amount,
  }
}

/** Why {@link needsZeroAllowanceFirst} answered as it did. */
export type ZeroAllowanceFirstReason =
  /** The current allowance is zero: any approve is a change from zero. */
  | 'allowance-is-zero'
  /** The new amount is zero: setting zero is always allowed. */
  | 'new-amount-is-zero'
  /** The current allowance already equals the new amount: nothing to send. */
  | 'allowance-unchanged'
  /** Approving the new amount over the current non-zero allowance succeeds in simulation. */
  | 'approve-succeeds'
  /** Approving the new amount over the current non-zero allowance reverts: set zero first. */
  | 'approve-reverts'

export type NeedsZeroAllowanceFirstReturnType = {
  /** Send `approve(spender, 0)` before `approve(spender, amount)`. */
  needed: boolean
  reason: ZeroAllowanceFirstReason
  currentAllowance: bigint
  /** The decoded revert of the simulated approve (e.g. `AllowanceNotZero`), when it reverted. */
  revert?: { errorName: string; message: string } | undefined
}

/**
 * Whether changing `owner`'s allowance to `spender` to `amount` needs a reset to zero first, as
 * USDT and tokens like it require. When the current allowance is non-zero and differs from
 * `amount`, the approve is simulated from `owner` (an `eth_call`, nothing is sent): if it reverts
 * (with `AllowanceNotZero`, a bare revert, or anything else), a reset to zero is needed. Throws
 * {@link ChainRpcError} when the chain cannot be read.
 *
 * @example
 * const { needed } = await needsZeroAllowanceFirst(publicClient, { token: usdt, owner, spender, amount })
 * if (needed) approvals.push(buildApproveRequest({ token: usdt, spender, amount: 0n }))
 * approvals.push(buildApproveRequest({ token: usdt, spender, amount }))
 */
export async function needsZeroAllowanceFirst(
  client: Client,
  parameters: {
    token: Address
    owner: Address
    spender: Address
    amount: bigint
    /** The allowance on chain when the caller has just read it; read here otherwise. */
    currentAllowance?: bigint | undefined
  },
  options: ChainCallOptions = {},
): Promise<NeedsZeroAllowanceFirstReturnType> {
  const { token, owner, spender, amount } = parameters
  const currentAllowance =
    parameters.currentAllowance ?? (await readAllowance(client, { token, owner, spender }, options))
  if (currentAllowance === 0n) return { needed: false, reason: 'allowance-is-zero', currentAllowance }
  if (amount === 0n) return { needed: false, reason: 'new-amount-is-zero', currentAllowance }
  if (amount === currentAllowance) return { needed: false, reason: 'allowance-unchanged', currentAllowance }
  const revert = await simulateApprove(client, { token, owner, spender, amount }, options)
  if (!revert) return { needed: false, reason: 'approve-succeeds', currentAllowance }
  return { needed: true, reason: 'approve-reverts', currentAllowance, revert }
}

/**
 * Whether `token` refuses to change a non-zero allowance to another non-zero one (USDT-like), asked
 * of the token whatever the allowance is now: `approve(spender, 2)` is simulated from `owner` with
 * the allowance's storage slot set to 1 (a state override; `allowanceSlotOf` gives the slot). A
 * revert means it refuses. Throws {@link ChainRpcError} when the chain cannot be read.
 *
 * @example
 * const slot = allowanceSlotOf(await layouts.layoutOf(usdt, owner, router), owner, router)
 * await refusesNonZeroAllowanceChange(publicClient, { token: usdt, owner, spender: router, allowanceSlot: slot }) // true
 */
export async function refusesNonZeroAllowanceChange(
  client: Client,
  parameters: { token: Address; owner: Address; spender: Address; allowanceSlot: Hex },
  options: ChainCallOptions = {},
): Promise<boolean> {
  const { token, owner, spender, allowanceSlot } = parameters
  const revert = await simulateApprove(
    client,
    {
      token,
      owner,
      spender,
      amount: 2n,
      stateOverride: [
        { address: token, stateDiff: [{ slot: allowanceSlot, value: toHex(1n, { size: 32 }) }] },
      ],
    },
    options,
  )
  return revert !== undefined
}

/** Simulates `approve(spender, amount)` from `owner`: its decoded revert, or undefined when it succeeds. */
async function simulateApprove(
  client: Client,
  parameters: {
    token: Address
    owner: Address
    spender: Address
    amount: bigint
    stateOverride?: StateOverride | undefined
  },
  options: ChainCallOptions,
): Promise<{ errorName: string; message: string } | undefined> {
  const { token, owner, spender, amount, stateOverride } = parameters
  const action = `simulated approve(${spender}, ${amount}) from ${owner} on token ${token}`
  options.signal?.throwIfAborted()
  try {
    await abortable(
      simulateContract(client, {
        account: owner,
        address: token,
        abi: approveAbi,
        functionName: 'approve',
        args: [spender, amount],
        ...(stateOverride ? { stateOverride } : {}),
      }),
      options.signal,
    )
    return undefined
  } catch (error) {
    if (options.signal?.aborted && error === options.signal.reason) throw error
    const revert = decodeRevert(error)
    if (!revert) throw new ChainRpcError({ chainId: client.chain?.id, action, cause: error })
    return { errorName: revert.errorName, message: revert.message }
  }
}
