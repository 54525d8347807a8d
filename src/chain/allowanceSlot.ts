import {
  type Address,
  BaseError,
  type Client,
  concat,
  ExecutionRevertedError,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  pad,
  toHex,
} from 'viem'
import { createAccessList, readContract } from 'viem/actions'
import { ChainRpcError } from './errors.js'
import { isTransportFailure } from './isTransportFailure.js'
import { abortable, type ChainCallOptions } from './rpcCall.js'

// Where a token keeps its allowances, so that a simulation can give the taker the allowance an
// approval not yet sent will give it (a state override of one storage slot) instead of waiting for
// that approval to be mined.

/**
 * Where a token stores `allowance(owner, spender)`: the nested mapping's declared slot and the
 * compiler's hashing order.
 * - `solidity`: `mapping(address owner => mapping(address spender => uint256))` at `mappingSlot`:
 *   `keccak256(abi.encode(spender, keccak256(abi.encode(owner, mappingSlot))))`.
 * - `vyper`: `HashMap[address, HashMap[address, uint256]]` at `mappingSlot` (slot first, then key):
 *   `keccak256(abi.encode(keccak256(abi.encode(mappingSlot, owner)), spender))`.
 */
export type AllowanceLayout = {
  kind: 'solidity' | 'vyper'
  mappingSlot: bigint
}

/** Declared slots tried against the access list, for each layout: 0 to 63. */
const accessListSlots = 64n
/** Declared slots tried one `eth_call` each when the access list does not help (solidity only): 0 to 15. */
const fallbackSlots = 16n
/** Written into a candidate slot by the probe: full width, so a packed or transformed value does not pass. */
const probeValue = keccak256(toHex('stockroute/allowance-slot-probe'))

/**
 * The storage slot of `owner`'s allowance to `spender` in a token with `layout`. Pure.
 *
 * @example
 * // OpenZeppelin's ERC20 (v5) keeps `_allowances` at slot 1:
 * const slot = allowanceSlotOf({ kind: 'solidity', mappingSlot: 1n }, taker, router) // '0x…' (32 bytes)
 */
export function allowanceSlotOf(layout: AllowanceLayout, owner: Address, spender: Address): Hex {
  const slot = toHex(layout.mappingSlot, { size: 32 })
  const ownerWord = pad(getAddress(owner))
  const spenderWord = pad(getAddress(spender))
  if (layout.kind === 'solidity')
    return keccak256(concat([spenderWord, keccak256(concat([ownerWord, slot]))]))
  return keccak256(concat([keccak256(concat([slot, ownerWord])), spenderWord]))
}

/**
 * Finds where `token` stores allowances. One `eth_createAccessList` of `allowance(owner, spender)`
 * gives the storage keys the token reads; they are matched against the allowance slot of each
 * layout for declared slots 0 to 63, and a match is verified with one `eth_call` of
 * `allowance(owner, spender)` whose state override writes a distinctive value into that slot: the
 * call must return it. When the node cannot make an access list, or nothing in it matches and
 * verifies, solidity slots 0 to 15 are verified one `eth_call` each. Proxies work the same: the
 * storage is the proxy's, at the token address.
 *
 * Returns `undefined` when no layout is found: the token's `allowance` reverts (not a token, such as
 * an executor), reads no slot that can be overridden, or the node does not apply state overrides.
 * Throws {@link ChainRpcError} only when the chain gives no answer (a transport failure), so that a
 * later attempt can still find the layout.
 *
 * @example
 * const layout = await findAllowanceLayout(publicClient, { token: usdc, owner: taker, spender: router })
 * layout // { kind: 'solidity', mappingSlot: 1n } for an OpenZeppelin ERC20
 * if (layout) simulateExecute(publicClient, { ...request, allowance: { token: usdc, slot: allowanceSlotOf(layout, taker, router), amount } })
 */
export async function findAllowanceLayout(
  client: Client,
  parameters: { token: Address; owner: Address; spender: Address },
  options: ChainCallOptions = {},
): Promise<AllowanceLayout | undefined> {
  const token = getAddress(parameters.token)
  const owner = getAddress(parameters.owner)
  const spender = getAddress(parameters.spender)
  const { signal } = options
  const action = `allowance storage layout of token ${token}`
  signal?.throwIfAborted()
  const probe = { client, token, owner, spender, action, signal }

  const tried = new Set<Hex>()
  const keys = await accessListKeys(probe)
  if (keys === 'reverted') return undefined
  if (keys) {
    for (const layout of candidateLayouts(accessListSlots, ['solidity', 'vyper'])) {
      const slot = allowanceSlotOf(layout, owner, spender)
      if (!keys.has(slot)) continue
      tried.add(slot)
      if (await overrideChangesAllowance(probe, slot)) return layout
    }
  }
  for (const layout of candidateLayouts(fallbackSlots, ['solidity'])) {
    const slot = allowanceSlotOf(layout, owner, spender)
    if (tried.has(slot)) continue
    if (await overrideChangesAllowance(probe, slot)) return layout
  }
  return undefined
}

/** Finds each token's allowance layout once; see {@link createAllowanceLayouts}. */
export type AllowanceLayouts = {
  /**
   * `token`'s layout ({@link findAllowanceLayout}), looked up on the first call for the token and
   * remembered, `undefined` included; `owner` and `spender` are the pair the first lookup probes with.
   */
  layoutOf(
    token: Address,
    owner: Address,
    spender: Address,
    options?: ChainCallOptions,
  ): Promise<AllowanceLayout | undefined>
}

/**
 * A per-process cache of token allowance layouts over one chain's client: each token is looked up
 * once, and a token with no usable layout is remembered as `undefined` (no override possible, so
 * the caller approves first). Concurrent callers for the same token share one lookup, which runs
 * without any one caller's signal; each caller waits with its own. A lookup that fails (the chain
 * gave no answer) is not remembered: the next call looks again.
 *
 * @example
 * const layouts = createAllowanceLayouts(publicClient) // once per chain, kept for the process
 * const layout = await layouts.layoutOf(usdc, taker, router, { signal })
 * const allowance = layout && { token: usdc, slot: allowanceSlotOf(layout, taker, router), amount: quote.amountIn }
 */
export function createAllowanceLayouts(client: Client): AllowanceLayouts {
  const lookups = new Map<Address, Promise<AllowanceLayout | undefined>>()
  return {
    layoutOf(token, owner, spender, options = {}) {
      options.signal?.throwIfAborted()
      const key = getAddress(token)
      let lookup = lookups.get(key)
      if (!lookup) {
        const fresh = findAllowanceLayout(client, { token: key, owner, spender })
        lookups.set(key, fresh)
        fresh.catch(() => {
          if (lookups.get(key) === fresh) lookups.delete(key)
        })
        lookup = fresh
      }
      return abortable(lookup, options.signal)
    },
  }
}

type Probe = {
  client: Client
  token: Address
  owner: Address
  spender: Address
  action: string
  signal: AbortSignal | undefined
}

function* candidateLayouts(count: bigint, kinds: readonly AllowanceLayout['kind'][]) {
  for (let mappingSlot = 0n; mappingSlot < count; mappingSlot++)
    for (const kind of kinds) yield { kind, mappingSlot } satisfies AllowanceLayout
}

/**
 * The storage keys read on the token by `allowance(owner, spender)`, lower-cased; `reverted` when
 * the call reverts; `undefined` when the node cannot make an access list (the caller falls back).
 */
async function accessListKeys(probe: Probe): Promise<Set<Hex> | 'reverted' | undefined> {
  const { client, token, owner, spender } = probe
  const result = await attempt(probe, 'access list', () =>
    createAccessList(client, {
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
    }),
  )
  if (!result.ok) {
    const reverted =
      result.error instanceof BaseError &&
      result.error.walk((cause) => cause instanceof ExecutionRevertedError) !== null
    return reverted ? 'reverted' : undefined
  }
  const entry = result.value.accessList.find((item) => item.address.toLowerCase() === token.toLowerCase())
  return new Set((entry?.storageKeys ?? []).map((key) => key.toLowerCase() as Hex))
}

/** Whether `allowance(owner, spender)` returns the probe value once `slot` holds it. */
async function overrideChangesAllowance(probe: Probe, slot: Hex): Promise<boolean> {
  const { client, token, owner, spender } = probe
  const result = await attempt(probe, `probe of slot ${slot}`, () =>
    readContract(client, {
      address: token,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [owner, spender],
      stateOverride: [{ address: token, stateDiff: [{ slot, value: probeValue }] }],
    }),
  )
  return result.ok && result.value === BigInt(probeValue)
}

/**
 * Runs one call of the lookup. The node's answers, errors and reverts included, come back as a
 * result; only a transport failure (no answer) throws, as {@link ChainRpcError}.
 */
async function attempt<T>(
  probe: Probe,
  step: string,
  run: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  const { client, action, signal } = probe
  signal?.throwIfAborted()
  try {
    return { ok: true, value: await abortable(run(), signal) }
  } catch (error) {
    if (signal?.aborted && error === signal.reason) throw error
    if (isTransportFailure(error))
      throw new ChainRpcError({ chainId: client.chain?.id, action: `${action} (${step})`, cause: error })
    return { ok: false, error }
  }
}
