import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { printable } from '@stockroute/client/domain/printable.js'
import {
  cancelReplySchema,
  type ExecutionDetailView,
  type ExecutionView,
  executionDetailSchema,
  executionPageSchema,
} from '../../daemon/controlApi/contract.js'
import { toExecutionDetailView } from '../../daemon/controlApi/views/executionDetailView.js'
import { toExecutionView } from '../../daemon/controlApi/views/executionView.js'
import { isDryRunEnd } from '../../engine/index.js'
import { type ExecutionState, openLedger } from '../../store/index.js'
import { DaemonClientError } from '../daemon/daemonClientError.js'
import { announcePath, findDaemon, requireDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { exitCodes } from '../exitCodes.js'
import { formatFittedTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { describeExecution } from './describeExecution.js'

/** The options of `stockroute executions`, as commander parsed them. */
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
  wide?: boolean
}

type ExecutionPage = { rows: ExecutionView[]; more: boolean }

/**
 * What `stockroute executions` runs (its options: ./executionsCommand.ts): through the daemon when
 * one runs, else from the ledger read-only.
 */
export async function listExecutions(options: ListOptions) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const { rows, more } =
    found.kind === 'daemon'
      ? await listFromDaemon(found.client, options)
      : listFromLedger(target.ledgerPath, options)
  printResult(options.json, { executions: rows, more }, () => executionTable(rows, more, options.wide))
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

/** What `stockroute executions show <id>` runs: one execution in detail, as `executions` finds it. */
export async function showExecution(id: number, options: { config: string; json?: boolean }) {
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

/** What `stockroute executions cancel <id>` runs: through the daemon only. */
export async function cancelExecution(
  id: number,
  options: { config: string; json?: boolean; reason?: string },
) {
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
      () => `cancelled: execution ${id} ${reply.execution.state}: ${printable(reply.execution.reason)}`,
    )
  } catch (error) {
    if (!(error instanceof DaemonClientError) || error.status !== 409) throw error
    printCancelRefused(error, id, options.json)
    process.exitCode = exitCodes.refused
  }
}

/** The daemon's 409 to a cancel: the execution is signed already, or has finished. */
function printCancelRefused(error: DaemonClientError, id: number, json: boolean | undefined) {
  const why =
    error.apiCode === 'ALREADY_SIGNED'
      ? `a transaction of it is signed, so only the chain can end it now: follow it with \`stockroute executions show ${id}\`, or \`stockroute halt\` to sign nothing more`
      : `it has finished already (${printable(error.apiMessage ?? error.shortMessage)})`
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

function executionTable(rows: readonly ExecutionView[], more: boolean, wide: boolean | undefined): string {
  if (rows.length === 0) return 'no executions match'
  const table = formatFittedTable(
    [
      { header: 'ID', align: 'right' },
      { header: 'STATE' },
      { header: 'CHAIN', align: 'right' },
      { header: 'TICKER' },
      { header: 'SIDE' },
      { header: 'AMOUNT', align: 'right' },
      { header: 'STRATEGY' },
      { header: 'CREATED', time: true },
      { header: 'REASON' },
    ],
    rows.map((row) => [
      String(row.executionId),
      // A dry run ends `rejected` in the ledger; it reads as what it is, never as a refusal.
      isDryRunEnd(row) ? 'dry run' : row.state,
      String(row.chainId),
      row.ticker,
      row.side,
      `${row.amountIn} ${row.amountType === 'stablecoin' ? 'asset' : 'shares'}`,
      row.strategy ?? '-',
      row.createdAt,
      row.reason,
    ]),
    { wide },
  )
  return more ? `${table}\n(more: raise --limit or narrow with --until)` : table
}
