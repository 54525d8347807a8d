/** The wallet's one critical section: nonce, signature and ledger commit never interleave. */
export type WalletLock = {
  /** Runs `work` once every earlier `work` has ended (whether it threw or not). */
  run<T>(work: () => Promise<T>): Promise<T>
  /** Resolves once the work queued so far has ended. */
  idle(): Promise<void>
}

/**
 * @example
 * const lock = createWalletLock()
 * const records = await lock.run(async () => signAndStore(input))
 */
export function createWalletLock(): WalletLock {
  let last: Promise<unknown> = Promise.resolve()
  return {
    run(work) {
      const run = last.then(work, work)
      last = run.catch(() => undefined)
      return run
    },
    idle: () => last.then(() => undefined),
  }
}
