/**
 * Cluster mode's guard before every signature (docs/scale-out.md): a wallet is signed for only while
 * this daemon holds its lease, and every transaction carries the lease's fencing token, which the
 * ledger checks when it stores the transaction. Outside cluster mode there is no fence.
 */
export type SigningFence = {
  /**
   * The fencing token of the lease, when it is held and cannot have expired yet (by this process's
   * monotonic clock, which also runs while the process is frozen). Throws
   * `TransactionManagerError` `LEASE_NOT_HELD` otherwise: nothing is signed.
   *
   * @example
   * const fenceToken = fence?.tokenForSigning()
   */
  tokenForSigning(): number
}
