/** The wallet's one critical section: nonce, signature and ledger commit never interleave. */
export type WalletLock = {
  /** Runs `work` once every earlier holder has let go (whether its work threw or not). */
  run<T>(work: () => Promise<T>): Promise<T>
  /**
   * Resolves, once every earlier holder has let go, with the function that lets go of it; the
   * caller holds the section until then (a wallet turn held by the engine).
   */
  acquire(): Promise<() => void>
  /** Resolves once the holders queued so far have let go. */
  idle(): Promise<void>
}

/**
 * @example
 * const lock = createWalletLock()
 * const records = await lock.run(async () => signAndStore(input))
 */
export function createWalletLock(): WalletLock {
  let last: Promise<unknown> = Promise.resolve()
  const acquire = () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const turn = last.then(() => release)
    last = held
    return turn
  }
  return {
    async run(work) {
      const release = await acquire()
      try {
        return await work()
      } finally {
        release()
      }
    },
    acquire,
    idle: () => last.then(() => undefined),
  }
}
