import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** Stable codes of {@link ClusterError}. */
export type ClusterErrorCode = 'REDIS_UNREACHABLE' | 'LEASE_LOST' | 'NO_OWNER' | 'FORWARD_FAILED'

/**
 * Cluster mode cannot go on: Redis does not answer, another daemon holds a lease this one held, no
 * daemon of the cluster holds a wallet on a swap's chain, or the daemon that owns a swap did not
 * answer its forward.
 *
 * @example
 * if (error instanceof ClusterError && error.code === 'LEASE_LOST') stop()
 */
export class ClusterError extends StockrouteError {
  override name = 'ClusterError'
  override readonly code: ClusterErrorCode
  constructor(parameters: {
    code: ClusterErrorCode
    shortMessage: string
    remedy?: string | undefined
    details: Readonly<Record<string, unknown>>
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
  }
}
