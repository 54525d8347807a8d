import { type Address, type Client, getAddress } from 'viem'
import { type AllowanceLayouts, allowanceSlotOf } from './allowanceSlot.js'
import { refusesNonZeroAllowanceChange } from './erc20.js'
import { abortable, type ChainCallOptions } from './rpcCall.js'

/** Remembers, per token, whether it refuses to change a non-zero allowance; see {@link createResetFirstTokens}. */
export type ResetFirstTokens = {
  /**
   * `true` when `token` refuses to change a non-zero allowance (an `approve(spender, 0)` must go
   * first), `false` when it does not, `undefined` when it cannot be told (its allowance slot is
   * unknown, so no simulation can set the allowance first). Asked of the chain once per token.
   */
  isResetFirst(
    token: Address,
    owner: Address,
    spender: Address,
    options?: ChainCallOptions,
  ): Promise<boolean | undefined>
}

/**
 * A per-process answer, per token of one chain, to "does it refuse to change a non-zero allowance
 * (USDT-like)?", asked even while the wallet's allowance is zero: an approval planned behind our
 * unresolved transactions cannot know the allowance it will meet, so it must know the token. Found
 * with the token's allowance layout and one simulated approve over an allowance of 1. Concurrent
 * callers share one lookup; a lookup that fails is not remembered.
 *
 * @example
 * const resets = createResetFirstTokens(publicClient, createAllowanceLayouts(publicClient))
 * await resets.isResetFirst(usdt, owner, router, { signal }) // true
 */
export function createResetFirstTokens(client: Client, layouts: AllowanceLayouts): ResetFirstTokens {
  const lookups = new Map<Address, Promise<boolean | undefined>>()
  const lookUp = async (token: Address, owner: Address, spender: Address) => {
    const layout = await layouts.layoutOf(token, owner, spender)
    if (!layout) return undefined
    return refusesNonZeroAllowanceChange(client, {
      token,
      owner,
      spender,
      allowanceSlot: allowanceSlotOf(layout, owner, spender),
    })
  }
  return {
    isResetFirst(token, owner, spender, options = {}) {
      options.signal?.throwIfAborted()
      const key = getAddress(token)
      let lookup = lookups.get(key)
      if (!lookup) {
        const fresh = lookUp(key, owner, spender)
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
