/**
 * Runs `tick` now and then `intervalMs` after each one ends, while `running()` says so; a failed
 * tick is logged, never fatal. `stop()` cancels the next tick and resolves once the one in
 * progress ended (it may still submit intents: the engine must outlive it).
 *
 * @example
 * const ticks = startMarketDataTicks({ tick: runStrategies, intervalMs: 5_000, running: () => true, logger })
 * await ticks.stop()
 */
export function startMarketDataTicks(parameters: {
  tick: () => Promise<void>
  intervalMs: number
  running: () => boolean
  onError: (error: unknown) => void
}): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined
  let inProgress: Promise<void> = Promise.resolve()
  const run = () => {
    inProgress = (async () => {
      try {
        await parameters.tick()
      } catch (error) {
        parameters.onError(error)
      }
      if (parameters.running()) timer = setTimeout(run, parameters.intervalMs)
    })()
  }
  run()
  return {
    async stop() {
      clearTimeout(timer)
      await inProgress
    },
  }
}
