/**
 * Ledger writes that can wait for the end of this turn of the event loop, committed together.
 */
export type CommitGroup = {
  /**
   * Runs `work` (synchronous) in the write transaction shared by every `run` of this turn, in the
   * order they were asked for, and resolves with its result once that transaction has COMMITTED.
   */
  run<T>(work: () => T): Promise<T>
}

/**
 * A {@link CommitGroup} over `atomically` (the ledger's write transaction; nested calls become
 * savepoints). With `synchronous=FULL` every commit is an fsync on the process' one JS thread; a
 * burst of intents, or the fills of several wallets' transactions seen in one poll, then costs one
 * instead of one each. Each `work` has a savepoint of its own: one that throws is undone alone and
 * only its caller gets the error. Work asked for by the group's own work runs in the same
 * transaction, after what was queued before it. Nobody hears back before the shared COMMIT returns, so a kill
 * before it leaves every caller where a kill before its own commit would have (nothing written,
 * nothing acted on); a failed COMMIT (disk full) rejects them all.
 *
 * @example
 * const group = createCommitGroup((work) => ledger.atomically(work))
 * const execution = await group.run(() => ledger.executions.createExecution(newExecution))
 */
export function createCommitGroup(atomically: <T>(work: () => T) => T): CommitGroup {
  type Entry = { work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }
  let queued: Entry[] = []

  const flush = () => {
    if (queued.length === 0) return
    const entries: Entry[] = []
    let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[]
    try {
      outcomes = atomically(() => {
        const done: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
        // Work queued by the group's own work (a reader cued by a row just written) joins it: one
        // commit, not one more fsync after this one.
        while (queued.length > 0) {
          const batch = queued
          queued = []
          for (const entry of batch) {
            entries.push(entry)
            try {
              done.push({ ok: true as const, value: atomically(entry.work) })
            } catch (error) {
              done.push({ ok: false as const, error })
            }
          }
        }
        return done
      })
    } catch (error) {
      // Nothing committed: what ran and what never got its turn (BEGIN failed) hear it alike.
      const failed = [...entries, ...queued]
      queued = []
      for (const entry of failed) entry.reject(error)
      return
    }
    for (const [index, entry] of entries.entries()) {
      const outcome = outcomes[index]
      if (outcome?.ok) entry.resolve(outcome.value)
      else entry.reject(outcome?.error)
    }
  }

  return {
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (queued.length === 0) setImmediate(flush)
        queued.push({ work, resolve: resolve as (value: unknown) => void, reject })
      })
    },
  }
}
