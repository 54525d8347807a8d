import { type Command, InvalidArgumentError } from 'commander'
import {
  cancelReplySchema,
  type ExecutionDetailView,
  type ExecutionView,
  executionDetailSchema,
  executionPageSchema,
} from '../../daemon/controlApi/contract.js'
import { toExecutionDetailView } from '../../daemon/controlApi/views/executionDetailView.js'
import { toExecutionView } from '../../daemon/controlApi/views/executionView.js'
import { StockrouteError } from '../../domain/errors.js'
import { type ExecutionState, executionStates, openLedger } from '../../store/index.js'
import { DaemonClientError } from '../daemon/daemonClientError.js'
import { announcePath, findDaemon, requireDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { parsePositiveInteger, withConfig } from '../options.js'
import { parseStrategyOption } from '../parseStrategyOption.js'
import { parseTimeOption } from '../parseTimeOption.js'
import { printResult } from '../serviceClient.js'
import { parseChainId, parseTicker } from '../tradeOptions.js'
import { describeExecution } from './describeExecution.js'

type ListOptions = {
  config: string
  json?: boolean
  state?: ExecutionState[]
  chain?: number
  ticker?: string
  strategy?: string
  since?: Date
  until?: Date
  limit: number
}

/**
 * `stockroute executions [--state s1,s2] [--chain ID] [--ticker T] [--strategy ID] [--since T]
 * [--until T] [--limit N] [--json]`, `stockroute executions show <id>` and `stockroute executions
 * cancel <id> [--reason TEXT]`. Listing and showing go through the running daemon
 * (`GET /v1/executions`, `GET /v1/executions/:id`), or read the ledger read-only when none runs.
 * Cancelling needs the daemon: only it may be about to sign, and it cancels an execution not signed
 * yet (`POST /v1/executions/:id/cancel`); without a daemon nothing signs, so there is nothing to
 * race, and the command says to start the daemon or to halt instead.
 *
 * @example
 * registerExecutionsCommand(program)
 * // stockroute executions --state failed,expired --since 24h --config ./sbx/stockroute.json
 */
export function registerExecutionsCommand(program: Command) {
  const executions = withListFilters(
    withConfig(
      program
        .command('executions')
        // Options after a subcommand are the subcommand's (both have --config): `executions show 4 --config f`.
        .enablePositionalOptions()
        .description(
          'list executions, newest first (show <id>: one in detail; cancel <id>: stop one not signed yet)',
        ),
    ),
  ).action(listExecutions)

  withConfig(executions.command('show').description('one execution: its timeline, transactions and fills'))
    .argument('<id>', 'execution id', parseExecutionId)
    .action(showExecution)

  withConfig(executions.command('cancel').description('cancel an execution the daemon has not signed yet'))
    .argument('<id>', 'execution id', parseExecutionId)
    .option('--reason <text>', 'why (default: "operator: stockroute executions cancel")')
    .action(cancelExecution)
}

/** The filters of `stockroute executions`. */
function withListFilters(command: Command): Command {
  return command
    .option(
      '--state <states>',
      `only these states, comma-separated: ${executionStates.join(', ')}`,
      parseStates,
    )
    .option('--chain <id>', 'only this chain', parseChainId)
    .option('--ticker <ticker>', 'only this ticker', parseTicker)
    .option('--strategy <id>', "only this strategy's executions", parseStrategyOption)
    .option(
      '--since <time>',
      'created at or after: ISO 8601 (2026-11-25T10:00Z) or an age (30m, 6h, 2d)',
      parseTimeOption,
    )
    .option('--until <time>', 'created before: ISO 8601 or an age (30m, 6h, 2d)', parseTimeOption)
    .option('--limit <n>', 'at most this many', parsePositiveInteger, 50)
}

type ExecutionPage = { rows: ExecutionView[]; more: boolean }

/** `stockroute executions`: through the daemon when one runs, else from the ledger read-only. */
async function listExecutions(options: ListOptions) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const { rows, more } =
    found.kind === 'daemon'
      ? await listFromDaemon(found.client, options)
      : listFromLedger(target.ledgerPath, options)
  printResult(options.json, { executions: rows, more }, () => executionTable(rows, more))
}

async function listFromDaemon(
  client: ReturnType<typeof requireDaemon>,
  options: ListOptions,
): Promise<ExecutionPage> {
  const reply = await withInterrupt((signal) =>
    client.request('GET', '/v1/executions', {
      query: {
        state: options.state?.join(','),
        chainId: options.chain,
        ticker: options.ticker,
        strategy: options.strategy,
        since: options.since?.toISOString(),
        until: options.until?.toISOString(),
        limit: options.limit,
      },
      schema: executionPageSchema,
      signal,
    }),
  )
  return { rows: reply.executions, more: reply.nextCursor !== null }
}

function listFromLedger(ledgerPath: string, options: ListOptions): ExecutionPage {
  const rows = withReadonlyLedger(ledgerPath, (ledger) =>
    ledger.executions
      .listExecutions({
        state: options.state,
        chainId: options.chain,
        ticker: options.ticker,
        strategy: options.strategy,
        sinceMs: options.since?.getTime(),
        untilMs: options.until?.getTime(),
        limit: options.limit,
      })
      // As GET /v1/executions shows them: each with its transactions and (live) fills.
      .map((execution) =>
        toExecutionView({
          execution,
          transactions: ledger.transactions.listTransactionsForExecution(execution.id),
          fills: ledger.fills.listFills({ executionId: execution.id }),
        }),
      ),
  )
  return { rows, more: rows.length === options.limit }
}

/** `stockroute executions show <id>`. */
async function showExecution(id: number, options: { config: string; json?: boolean }) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const detail =
    found.kind === 'daemon'
      ? await withInterrupt((signal) =>
          found.client.request('GET', `/v1/executions/${id}`, {
            schema: executionDetailSchema,
            signal,
          }),
        )
      : readDetail(target.ledgerPath, id)
  printResult(options.json, detail, () => describeExecution(detail))
}

/** `stockroute executions cancel <id>`: through the daemon only. */
async function cancelExecution(id: number, options: { config: string; json?: boolean; reason?: string }) {
  const target = readLedgerTarget(options.config)
  const client = requireDaemon(
    target,
    'Cancelling an execution',
    "stop all signing with `stockroute halt` (without a daemon nothing is signing: an unfinished execution is taken up again, or ended, by the next start's recovery)",
  )
  process.stderr.write(`${client.via}\n`)
  const reason = options.reason ?? 'operator: stockroute executions cancel'
  try {
    const reply = await withInterrupt((signal) =>
      client.request('POST', `/v1/executions/${id}/cancel`, {
        body: { reason },
        schema: cancelReplySchema,
        signal,
      }),
    )
    printResult(
      options.json,
      reply,
      () => `cancelled: execution ${id} ${reply.execution.state}: ${reply.execution.reason}`,
    )
  } catch (error) {
    if (!(error instanceof DaemonClientError) || error.status !== 409) throw error
    printCancelRefused(error, id, options.json)
    process.exitCode = 1
  }
}

/** The daemon's 409 to a cancel: the execution is signed already, or has finished. */
function printCancelRefused(error: DaemonClientError, id: number, json: boolean | undefined) {
  const why =
    error.apiCode === 'ALREADY_SIGNED'
      ? `a transaction of it is signed, so only the chain can end it now: follow it with \`stockroute executions show ${id}\`, or \`stockroute halt\` to sign nothing more`
      : `it has finished already (${error.apiMessage ?? error.shortMessage})`
  printResult(
    json,
    { cancelled: false, code: error.apiCode, message: error.apiMessage ?? error.shortMessage },
    () => `not cancelled: execution ${id}: ${why}`,
  )
}

function withReadonlyLedger<T>(ledgerPath: string, read: (ledger: ReturnType<typeof openLedger>) => T): T {
  const ledger = openLedger({ path: ledgerPath, readonly: true })
  try {
    return read(ledger)
  } finally {
    ledger.close()
  }
}

function readDetail(ledgerPath: string, id: number): ExecutionDetailView {
  return withReadonlyLedger(ledgerPath, (ledger) => {
    const execution = ledger.executions.getExecution(id)
    if (!execution)
      throw new StockrouteError({
        code: 'EXECUTION_NOT_FOUND',
        shortMessage: `There is no execution ${id} in ${ledgerPath}.`,
        remedy:
          'list them with `stockroute executions`, and check that --config names the ledger it was recorded in',
      })
    return toExecutionDetailView({
      execution,
      events: ledger.executions.listExecutionEvents(id),
      transactions: ledger.transactions.listTransactionsForExecution(id),
      fills: ledger.fills.listFills({ executionId: id, includeReversed: true }),
    })
  })
}

function executionTable(rows: readonly ExecutionView[], more: boolean): string {
  if (rows.length === 0) return 'no executions match'
  const table = formatTable(
    [
      { header: 'ID', align: 'right' },
      { header: 'STATE' },
      { header: 'CHAIN', align: 'right' },
      { header: 'TICKER' },
      { header: 'SIDE' },
      { header: 'AMOUNT', align: 'right' },
      { header: 'STRATEGY' },
      { header: 'CREATED' },
      { header: 'REASON' },
    ],
    rows.map((row) => [
      String(row.executionId),
      row.state,
      String(row.chainId),
      row.ticker,
      row.side,
      `${row.amountIn} ${row.amountType === 'stablecoin' ? 'asset' : 'shares'}`,
      row.strategy ?? '-',
      row.createdAt,
      row.reason.length > 60 ? `${row.reason.slice(0, 59)}…` : row.reason,
    ]),
  )
  return more ? `${table}\n(more: raise --limit or narrow with --until)` : table
}

function parseExecutionId(text: string): number {
  if (!/^[1-9]\d{0,14}$/.test(text))
    throw new InvalidArgumentError('must be an execution id: a positive whole number')
  return Number(text)
}

function parseStates(text: string): ExecutionState[] {
  const states = text.split(',').map((state) => state.trim())
  const known: readonly string[] = executionStates
  const unknown = states.filter((state) => !known.includes(state))
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown state ${unknown.join(', ')}: the states are ${executionStates.join(', ')}`,
    )
  return states as ExecutionState[]
}
