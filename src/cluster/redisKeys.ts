import { createHash } from 'node:crypto'

/**
 * Where the cluster keeps what it shares in Redis, under `<name>:` (docs/scale-out.md):
 * - `lease:<chainId>:<wallet>`: `<nodeId>|<token>` with the lease's time to live;
 * - `fence:<chainId>:<wallet>`: the wallet's last fencing token, which only grows;
 * - `node:<nodeId>`: a daemon's card (JSON), renewed with its leases; `nodes`: the set of their ids;
 * - `intent:<idempotency key>`: the wallet (`<chainId>:<wallet>`) whose daemon executes the swap;
 * - `budget:<key id>`: the API key's request budget (rate-limiter-flexible's keys).
 */
export type ClusterKeys = ReturnType<typeof clusterKeysOf>

/** @example const keys = clusterKeysOf('stockroute'); keys.lease(31337, '0xabc…') */
export function clusterKeysOf(name: string) {
  return {
    lease: (chainId: number, wallet: string) => `${name}:lease:${chainId}:${wallet.toLowerCase()}`,
    leasePattern: `${name}:lease:*`,
    fence: (chainId: number, wallet: string) => `${name}:fence:${chainId}:${wallet.toLowerCase()}`,
    node: (nodeId: string) => `${name}:node:${nodeId}`,
    nodes: `${name}:nodes`,
    intent: (idempotencyKey: string) => `${name}:intent:${idempotencyKey}`,
    budgetPrefix: `${name}:budget`,
  }
}

/** The API key as the budget's Redis key names it: a digest, never the key itself. */
export const apiKeyIdOf = (apiKey: string): string =>
  createHash('sha256').update(apiKey).digest('hex').slice(0, 16)
