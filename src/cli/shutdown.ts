const shutdownSignals = ['SIGINT', 'SIGTERM'] as const

/** Listening for SIGINT and SIGTERM until `dispose()`; see {@link listenForShutdownSignals}. */
export type ShutdownSignals = {
  /** Resolves on the first SIGINT or SIGTERM. */
  first: Promise<NodeJS.Signals>
  /** Stops listening: a signal after this gets Node's default (the process dies of it). */
  dispose(): void
}

/**
 * Listens for SIGINT and SIGTERM and keeps listening after the first, so that a stop in progress
 * is not cut short: `npm start` forwards the terminal's Ctrl-C to its child, which has already
 * received it as a member of the terminal's process group, and without a listener that second
 * SIGINT would kill the process mid-stop (exit code 130). `onRepeat` hears every later signal.
 *
 * @example
 * const signals = listenForShutdownSignals((signal) => console.error(`${signal}: already stopping`))
 * await daemon.stop(`${await signals.first} received`)
 */
export function listenForShutdownSignals(onRepeat?: (signal: NodeJS.Signals) => void): ShutdownSignals {
  let resolveFirst: (signal: NodeJS.Signals) => void = () => {}
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve
  })
  let received = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return onRepeat?.(signal)
    received = true
    resolveFirst(signal)
  }
  for (const name of shutdownSignals) process.on(name, onSignal)
  return {
    first,
    dispose: () => {
      for (const name of shutdownSignals) process.off(name, onSignal)
    },
  }
}

/** Resolves on the first SIGINT or SIGTERM, so a long-running command can stop cleanly. */
export function waitForShutdownSignal(): Promise<NodeJS.Signals> {
  const signals = listenForShutdownSignals()
  return signals.first.finally(() => signals.dispose())
}
