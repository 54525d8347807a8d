import { printable } from '@stockroute/client/domain/printable.js'
import type { LedgerEventView } from '../../daemon/controlApi/contract.js'
import { type LedgerEventKind, openLedger } from '../../store/index.js'
import { findDaemon, requireDaemon } from '../daemon/findDaemon.js'
import { followDaemonEvents } from '../daemon/followDaemonEvents.js'
import { formatEventLine } from '../daemon/formatEventLine.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { waitForShutdownSignal } from '../shutdown.js'

/** The options of `stockroute events`, as commander parsed them. */
type EventsOptions = {
  config: string
  follow?: boolean
  after?: number
  kinds?: LedgerEventKind[]
  limit: number
  json?: boolean
}

/**
 * What `stockroute events` runs (its options: ./eventsCommand.ts): the ledger's events read-only,
 * or with --follow the running daemon's stream until Ctrl-C.
 */
export async function showEvents(options: EventsOptions) {
  const target = readLedgerTarget(options.config)
  const print = (event: LedgerEventView) =>
    process.stdout.write(`${options.json ? JSON.stringify(event) : formatEventLine(event)}\n`)
  if (!options.follow) {
    const found = findDaemon(target)
    process.stderr.write(
      `reading the ledger ${target.ledgerPath} read-only${found.kind === 'daemon' ? ` (beside daemon pid ${found.client.pid})` : ''}\n`,
    )
    for (const event of readLedgerEvents(target.ledgerPath, options)) print(event)
    return
  }
  const hint = 'run `stockroute events` without --follow to read what the ledger holds'
  requireDaemon(target, 'Following events', hint) // refuse at once when none runs
  const stop = new AbortController()
  const shutdown = waitForShutdownSignal().then(() => stop.abort())
  await followDaemonEvents({
    connect: () => requireDaemon(target, 'Following events', hint),
    // From now unless --after: the newest id now, so a reconnection before the first event misses none.
    afterId: options.after ?? latestEventId(target.ledgerPath),
    kinds: options.kinds,
    signal: stop.signal,
    onEvent: print,
    onNote: (note) => process.stderr.write(`${printable(note)}\n`),
  })
  void shutdown
  process.stderr.write('stopped following events\n')
}

/** The events after `after` in the ledger, read-only, as the API shows them. */
function readLedgerEvents(ledgerPath: string, options: EventsOptions): LedgerEventView[] {
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  try {
    return ledger.events
      .listAfter(options.after ?? 0, { limit: options.limit, kinds: options.kinds })
      .map((event) => ({
        id: event.id,
        kind: event.kind,
        chainId: event.chainId,
        executionId: event.executionId,
        at: new Date(event.atMs).toISOString(),
        data: event.data,
      }))
  } finally {
    ledger.close()
  }
}

function latestEventId(ledgerPath: string): number {
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  try {
    return ledger.events.latestId()
  } finally {
    ledger.close()
  }
}
