import { type Command, InvalidArgumentError } from 'commander'
import type { LedgerEventView } from '../../daemon/controlApi/contract.js'
import { type LedgerEventKind, ledgerEventKinds, openLedger } from '../../store/index.js'
import { findDaemon, requireDaemon } from '../daemon/findDaemon.js'
import { followDaemonEvents } from '../daemon/followDaemonEvents.js'
import { formatEventLine } from '../daemon/formatEventLine.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { parsePositiveInteger } from '../options.js'
import { waitForShutdownSignal } from '../shutdown.js'

type EventsOptions = {
  config: string
  follow?: boolean
  after?: number
  kinds?: LedgerEventKind[]
  limit: number
  json?: boolean
}

/**
 * `stockroute events [--follow] [--after ID] [--kinds fill,halt] [--limit N] [--json]`: the
 * ledger's event stream (execution transitions, fills and their reversals, halts, resumes,
 * discrepancies, recoveries), one line per event (`--json`: one JSON object per line). Without
 * `--follow`: the events after `--after` that the ledger holds, read-only (also beside a running
 * daemon: it is a read). With `--follow`: the running daemon's stream (`GET /v1/events`), live,
 * from now (or after `--after`), reconnecting with `Last-Event-ID` when the connection drops, until Ctrl-C (exit code 0).
 *
 * @example
 * registerEventsCommand(program)
 * // stockroute events --follow --kinds fill,halt --config ./sbx/stockroute.json
 */
export function registerEventsCommand(program: Command) {
  program
    .command('events')
    .description("the ledger's events (transitions, fills, halts…); --follow streams the running daemon's")
    .option(
      '--config <file>',
      'stockroute.json whose ledger or daemon to read (no secrets needed)',
      'stockroute.json',
    )
    .option('--follow', "follow the running daemon's event stream live until Ctrl-C")
    .option('--after <id>', 'only events after this event id (default: from the first)', parseEventId)
    .option(
      '--kinds <kinds>',
      `only these kinds, comma-separated: ${ledgerEventKinds.join(', ')}`,
      parseKinds,
    )
    .option('--limit <n>', 'without --follow: at most this many events', parsePositiveInteger, 100)
    .option('--json', 'one JSON object per event and line')
    .action(async (options: EventsOptions) => {
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
        onNote: (note) => process.stderr.write(`${note}\n`),
      })
      void shutdown
      process.stderr.write('stopped following events\n')
    })
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

function parseEventId(text: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw new InvalidArgumentError('must be an event id: a whole number such as 42')
  return Number(text)
}

function parseKinds(text: string): LedgerEventKind[] {
  const kinds = text.split(',').map((kind) => kind.trim())
  const known: readonly string[] = ledgerEventKinds
  const unknown = kinds.filter((kind) => !known.includes(kind))
  if (unknown.length > 0 || kinds.length === 0)
    throw new InvalidArgumentError(
      `unknown kind${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the kinds are ${ledgerEventKinds.join(', ')}`,
    )
  return kinds as LedgerEventKind[]
}
