import { findChain } from '../context.js'
import type { SandboxContext } from '../contextTypes.js'
import { badRequest } from '../errors.js'

/**
 * One page of `items` (1-based). `total_pages` is ceil(total / page_size), so 0 for an empty list;
 * a page past the end is an empty page, not an error.
 */
export function paginate<Item>(items: readonly Item[], page: number, pageSize: number) {
  return {
    total: items.length,
    page,
    page_size: pageSize,
    total_pages: Math.ceil(items.length / pageSize),
    items: items.slice((page - 1) * pageSize, page * pageSize),
  }
}

/** Throws a 400 naming the served chains when `chainId` is not one of them. */
export function assertServedChain(context: SandboxContext, chainId: number, parameter = 'chain_id') {
  if (findChain(context, chainId)) return
  const known = context.chains.map((chain) => chain.chainId).join(', ')
  throw badRequest(`${parameter}: chain ${chainId} is not served; chains: ${known}`)
}
