import { writeSync } from 'node:fs'

/**
 * The named points on the money path where a test (or an operator reproducing a bug) can make the
 * process die, as etcd's and TiKV's failpoints do. Each sits between two durable facts, so a
 * SIGKILL there leaves the ledger and the chain in exactly one of the states recovery must handle.
 */
export const failpointNames = [
  /** A router quote arrived; it lives only in memory (the execution is still `intent` in the ledger), nothing is signed. */
  'quote-received',
  /** The nonce is chosen in memory, nothing is signed or stored yet. */
  'nonce-taken',
  /** The transaction is signed, not yet stored: the bytes die with the process. */
  'signed',
  /** Stored in the ledger (with its nonce), not yet broadcast. */
  'stored',
  /** An approval was accepted by the node; the ledger does not say so yet. */
  'approve-broadcast',
  /** An execute was accepted by the node; the ledger does not say so yet. */
  'broadcast',
  /**
   * A receipt of ours was read from a block; nothing of it is committed. Reached once the engine's
   * held quotes have passed (`beforeInclusions`): a kill while they are held leaves this same state.
   */
  'receipt-seen',
  /** An execute's receipt is read; right before the ledger transaction that records it mined and its outcome for the engine. */
  'before-fill-commit',
  /**
   * An execute's inclusion is recorded (mined, its outcome in the ledger); right before the engine's
   * settlement loop writes its fill and the execution's end. Inside the manager's commit when that is
   * the moment's shared one (inclusions from new blocks); after it, in a commit of its own, when the
   * inclusion was committed alone (a pending check, recovery): then the outcome waits for the next start.
   */
  'outcome-recorded',
  /** A replacement (speed-up, cancel or gap fill) is stored, not yet broadcast. */
  'replacement-stored',
  /** Recovery has read the ledger's pending transactions and not yet acted on any. */
  'during-recovery',
] as const
export type FailpointName = (typeof failpointNames)[number]

/** What happens when the process reaches an armed failpoint. */
export type FailpointAction = 'kill'

/**
 * Parses `STOCKROUTE_FAILPOINTS`: `name=kill[,name=kill…]`. An unknown name or action throws, so
 * a typo never passes as a test that could not fail.
 *
 * @example
 * parseFailpoints('stored=kill').get('stored') // 'kill'
 */
export function parseFailpoints(text: string | undefined): Map<FailpointName, FailpointAction> {
  const armed = new Map<FailpointName, FailpointAction>()
  if (!text) return armed
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [name, action] = entry.split('=')
    if (!name || !(failpointNames as readonly string[]).includes(name))
      throw new Error(
        `STOCKROUTE_FAILPOINTS: unknown failpoint ${JSON.stringify(name)}; the failpoints are ${failpointNames.join(', ')}`,
      )
    if (action !== 'kill')
      throw new Error(`STOCKROUTE_FAILPOINTS: ${name}=${action ?? ''}: the only action is kill (name=kill)`)
    armed.set(name as FailpointName, action)
  }
  return armed
}

let armed: Map<FailpointName, FailpointAction> | undefined

/**
 * Marks a failpoint. Free when `STOCKROUTE_FAILPOINTS` is unset (one map lookup on a map read
 * once); when the point is armed with `kill`, writes `FAILPOINT <name>` to stderr synchronously and
 * SIGKILLs the process, so nothing after this line runs: no finally, no exit handler, no flush.
 *
 * @example
 * ledger.atomically(() => store(signed))
 * failpoint('stored')
 * await broadcast(signed)
 */
export function failpoint(name: FailpointName): void {
  armed ??= parseFailpoints(process.env.STOCKROUTE_FAILPOINTS)
  if (armed.size === 0 || !armed.has(name)) return
  writeSync(2, `FAILPOINT ${name}\n`)
  process.kill(process.pid, 'SIGKILL')
}
