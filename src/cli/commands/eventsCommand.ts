import { type Command, InvalidArgumentError } from 'commander'
import { type LedgerEventKind, ledgerEventKinds } from '../../store/events.js'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'
import { parsePositiveInteger } from '../options.js'

/**
 * `stockroute events [--follow] [--after ID] [--kinds fill,halt] [--limit N] [--json]`: the
 * ledger's event stream (execution transitions, fills and their reversals, halts, resumes,
 * discrepancies, recoveries), one line per event (`--json`: one JSON object per line). Without
 * `--follow`: the events after `--after` that the ledger holds, read-only (also beside a running
 * daemon: it is a read). With `--follow`: the running daemon's stream (`GET /v1/events`), live,
 * from now (or after `--after`), reconnecting with `Last-Event-ID` when the connection drops, until Ctrl-C (exit code 0).
 * What it runs is ./eventsAction.ts.
 *
 * @example
 * registerEventsCommand(program)
 * // stockroute events --follow --kinds fill,halt --config ./sbx/stockroute.json
 */
export function registerEventsCommand(program: Command) {
  program
    .command('events')
    .description("the ledger's events (transitions, fills, halts…); --follow streams the running daemon's")
    .option('--config <file>', configHelp('the config whose ledger or daemon to read (no secrets needed)'))
    .option('--follow', "follow the running daemon's event stream live until Ctrl-C")
    .option('--after <id>', 'only events after this event id (default: from the first)', parseEventId)
    .option(
      '--kinds <kinds>',
      `only these kinds, comma-separated: ${ledgerEventKinds.join(', ')}`,
      parseKinds,
    )
    .option('--limit <n>', 'without --follow: at most this many events', parsePositiveInteger, 100)
    .option('--json', 'one JSON object per event and line')
    .action(lazyAction(() => import('./eventsAction.js'), 'showEvents'))
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
