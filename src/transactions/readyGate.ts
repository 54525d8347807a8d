/** A gate that opens once (a wallet's recovery done) and is waited on by every send. */
export type ReadyGate = {
  open(): void
  isOpen(): boolean
  /** Resolves once open; rejects if `signal` aborts first (no listener is left behind either way). */
  wait(signal?: AbortSignal): Promise<void>
}

/**
 * @example
 * const gate = createReadyGate()
 * recoverWallet(core).then(() => gate.open())
 * await gate.wait(signal)
 */
export function createReadyGate(): ReadyGate {
  let opened = false
  let open: () => void = () => {}
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return {
    open() {
      opened = true
      open()
    },
    isOpen: () => opened,
    wait(signal) {
      // Once open, no listener: every execution asks, with the daemon's long-lived signal.
      if (!signal || opened) return promise
      return new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        const abort = () => reject(signal.reason)
        signal.addEventListener('abort', abort, { once: true })
        promise.then(() => {
          signal.removeEventListener('abort', abort)
          resolve()
        })
      })
    },
  }
}
