import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** Stable codes of {@link TransactionManagerError}. */
export type TransactionManagerErrorCode =
  | 'STORAGE_FAULT'
  | 'MANAGER_STOPPED'
  | 'WALLET_TURN'
  | 'LEASE_NOT_HELD'

/**
 * The transaction manager refused to sign: the ledger has a storage fault (nothing may be signed
 * that cannot be stored first), the manager is stopping, or a wallet turn was used out of order
 * (`WALLET_TURN`: a bundle sent before its commit, or after the turn ended), or, in cluster mode,
 * this daemon does not hold the wallet's lease for sure (`LEASE_NOT_HELD`, see signingFence.ts).
 *
 * @example
 * try {
 *   await manager.send(request, { executionId })
 * } catch (error) {
 *   if (error instanceof TransactionManagerError && error.code === 'STORAGE_FAULT') stopTrading()
 * }
 */
export class TransactionManagerError extends StockrouteError {
  override name = 'TransactionManagerError'
  override readonly code: TransactionManagerErrorCode
  constructor(parameters: {
    code: TransactionManagerErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details?: Readonly<Record<string, unknown>>
  }) {
    super(parameters)
    this.code = parameters.code
  }
}
