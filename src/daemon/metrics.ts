import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { EngineHookFunctions } from '../engine/index.js'
import type { ExecutionState } from '../store/executions.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionManagerEvent } from '../transactions/types.js'
import type { ControlClientErrorReason } from './controlApi/types.js'

/** The daemon's Prometheus metrics and the engine hooks that feed them. */
export type DaemonMetrics = {
  registry: Registry
  /** Pass to the engine: counts quotes, drops and outcomes, times quote to broadcast. */
  hooks: EngineHookFunctions
  /** Sets the discrepancies of the latest reconciliation and counts them. */
  recordReconciliation(discrepancies: number): void
  /** Counts the transaction managers' gap fills, replacements, re-broadcasts and reorgs. */
  recordTransactionEvent(chainId: number, event: TransactionManagerEvent): void
  /** Counts a control API request the client broke (pass as the control server's `onClientError`). */
  recordControlClientError(reason: ControlClientErrorReason): void
  /** The text exposition format, for GET /metrics. */
  render(): Promise<string>
}

const terminal: readonly ExecutionState[] = ['confirmed', 'failed', 'expired', 'rejected']

/**
 * A registry of its own (no global state, so two daemons in one test process do not collide) with
 * process metrics and:
 * `stockroute_quotes_total{chain}`, `stockroute_executions_total{chain, outcome}`,
 * `stockroute_quote_to_broadcast_seconds{chain}` (router quote received → execute broadcast),
 * `stockroute_expired_quote_drops_total{chain}` (quotes dropped for too little validity),
 * `stockroute_reconciliation_discrepancies` (latest run) and `…_total`,
 * `stockroute_nonce_gaps_filled_total{chain}`, `stockroute_transaction_replacements_total{chain}`,
 * `stockroute_transaction_rebroadcasts_total{chain}`, `stockroute_reorgs_total{chain}`,
 * `stockroute_inclusion_wait_seconds` (how long the recording of mined transactions waited for
 * other executions' held quotes) and `stockroute_inclusion_waits_ran_out_total` (those that
 * `maxInclusionDelayMs` ended: quotes held back to back, a burst); given the
 * ledger, `stockroute_ledger_write_seconds` (how long each write transaction held the JS thread:
 * on a disk whose fsync stalls, this is where the quote-to-broadcast tail comes from) and
 * `stockroute_ledger_wal_checkpoints_total` (the background checkpointer's);
 * `stockroute_control_client_errors_total{reason}` (control API requests the client broke:
 * `aborted`, `malformed`, `timeout`; logged at debug only, so a rise shows here, not in the log).
 *
 * @example
 * const metrics = createDaemonMetrics()
 * const engine = await createEngine({ ...parameters, hooks: metrics.hooks })
 * response.end(await metrics.render())
 */
export function createDaemonMetrics(
  options: { ledger?: Pick<Ledger, 'onWriteTransaction' | 'walCheckpointer'> | undefined } = {},
): DaemonMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'stockroute_' })
  // Registered in this order, which is the order of the exposition.
  if (options.ledger) countLedgerWrites(registry, options.ledger)
  const pipeline = pipelineMetrics(registry)
  const reconciliation = reconciliationMetrics(registry)
  const transactions = transactionEventMetrics(registry)
  const inclusions = inclusionWaitMetrics(registry)
  const controlClientErrors = new Counter({
    name: 'stockroute_control_client_errors_total',
    help: 'Control API requests the client broke: aborted halfway, refused by the HTTP parser (malformed), or not whole in time (timeout)',
    labelNames: ['reason'] as const,
    registers: [registry],
  })
  return {
    registry,
    hooks: { ...pipeline, onInclusionWait: inclusions.onInclusionWait },
    recordTransactionEvent: transactions.record,
    recordReconciliation: reconciliation.record,
    recordControlClientError: (reason) => controlClientErrors.inc({ reason }),
    render: () => registry.metrics(),
  }
}

/** `stockroute_ledger_write_seconds` and `stockroute_ledger_wal_checkpoints_total`. */
function countLedgerWrites(
  registry: Registry,
  ledger: Pick<Ledger, 'onWriteTransaction' | 'walCheckpointer'>,
) {
  const writes = new Histogram({
    name: 'stockroute_ledger_write_seconds',
    help: 'How long each ledger write transaction (critical section, receipts and fills) held the JS thread, statements, COMMIT and fsync',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  })
  ledger.onWriteTransaction((ms) => writes.observe(ms / 1000))
  let counted = 0
  new Counter({
    name: 'stockroute_ledger_wal_checkpoints_total',
    help: 'WAL checkpoints run by the background checkpointer (0 while SQLite checkpoints inside commits)',
    registers: [registry],
    collect() {
      const now = ledger.walCheckpointer?.counts.checkpoints ?? counted
      this.inc(now - counted)
      counted = now
    },
  })
}

/** Quotes, drops and outcomes counted, quote to prepared and to broadcast timed: the engine's hooks. */
function pipelineMetrics(
  registry: Registry,
): Pick<EngineHookFunctions, 'onTransition' | 'onStep' | 'onStage'> {
  const quotes = new Counter({
    name: 'stockroute_quotes_total',
    help: 'Router quotes received',
    labelNames: ['chain'] as const,
    registers: [registry],
  })
  const executions = new Counter({
    name: 'stockroute_executions_total',
    help: 'Executions ended, by outcome',
    labelNames: ['chain', 'outcome'] as const,
    registers: [registry],
  })
  const quoteToBroadcast = new Histogram({
    name: 'stockroute_quote_to_broadcast_seconds',
    help: 'From the router quote received to the execute broadcast',
    labelNames: ['chain'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
    registers: [registry],
  })
  const quoteToPrepared = new Histogram({
    name: 'stockroute_quote_to_prepared_seconds',
    help: 'From the router quote received to the end of stage one (guard and simulation done), before the wallet critical section',
    labelNames: ['chain'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  })
  const drops = new Counter({
    name: 'stockroute_expired_quote_drops_total',
    help: 'Quotes dropped for a new one: too little validity left, expired',
    labelNames: ['chain'] as const,
    registers: [registry],
  })
  const quotedAt = new Map<number, number>()
  const chainOfExecution = new Map<number, string>()
  return {
    onTransition(event, execution) {
      const chain = String(execution.chainId)
      if (terminal.includes(event.to)) {
        executions.inc({ chain, outcome: event.to })
        quotedAt.delete(execution.id)
        chainOfExecution.delete(execution.id)
      }
    },
    onStep(step) {
      if (step.kind !== 'execute' || step.step !== 'broadcast' || step.executionId === null) return
      const at = quotedAt.get(step.executionId)
      if (at !== undefined)
        quoteToBroadcast.observe({ chain: String(step.chainId) }, (Date.now() - at) / 1000)
    },
    onStage(event) {
      const chain = String(event.chainId)
      // Timed from the quote's arrival (its move to `quoted` is committed later, with the execute).
      if (event.stage === 'quoteReceived') {
        quotes.inc({ chain })
        // A second quote for the same execution: the one before was dropped.
        if (quotedAt.has(event.executionId)) drops.inc({ chain })
        quotedAt.set(event.executionId, Date.now())
        chainOfExecution.set(event.executionId, chain)
        return
      }
      const at = quotedAt.get(event.executionId)
      if (at !== undefined) quoteToPrepared.observe({ chain }, (Date.now() - at) / 1000)
    },
  }
}

/** The latest reconciliation's discrepancies, and their total since start. */
function reconciliationMetrics(registry: Registry) {
  const discrepancies = new Gauge({
    name: 'stockroute_reconciliation_discrepancies',
    help: 'Discrepancies found by the latest reconciliation of ledger, chain and service positions',
    registers: [registry],
  })
  const discrepanciesTotal = new Counter({
    name: 'stockroute_reconciliation_discrepancies_total',
    help: 'Discrepancies found by reconciliations since start',
    registers: [registry],
  })
  return {
    record(found: number) {
      discrepancies.set(found)
      discrepanciesTotal.inc(found)
    },
  }
}

/** The transaction managers' gap fills, replacements, re-broadcasts and reorgs, per chain. */
function transactionEventMetrics(registry: Registry) {
  const counters = {
    'gap-filled': new Counter({
      name: 'stockroute_nonce_gaps_filled_total',
      help: 'Nonce gaps filled with a zero-value self-transfer',
      labelNames: ['chain'] as const,
      registers: [registry],
    }),
    replaced: new Counter({
      name: 'stockroute_transaction_replacements_total',
      help: 'Stuck or late transactions replaced (re-priced or cancelled) at the same nonce',
      labelNames: ['chain'] as const,
      registers: [registry],
    }),
    rebroadcast: new Counter({
      name: 'stockroute_transaction_rebroadcasts_total',
      help: 'Stored transactions sent again (dropped by the node, or never confirmed sent)',
      labelNames: ['chain'] as const,
      registers: [registry],
    }),
    reorg: new Counter({
      name: 'stockroute_reorgs_total',
      help: 'Chain reorganizations seen by the block watcher',
      labelNames: ['chain'] as const,
      registers: [registry],
    }),
  }
  return {
    record(chainId: number, event: TransactionManagerEvent) {
      if (event.kind in counters)
        counters[event.kind as keyof typeof counters].inc({ chain: String(chainId) })
    },
  }
}

/** How long the recording of mined transactions waited for held quotes, and how often the wait ran out. */
function inclusionWaitMetrics(registry: Registry): Pick<EngineHookFunctions, 'onInclusionWait'> {
  const inclusionWaits = new Histogram({
    name: 'stockroute_inclusion_wait_seconds',
    help: 'How long the recording of mined transactions (fills, positions, execution ends) waited for other executions holding a router quote',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5],
    registers: [registry],
  })
  const inclusionWaitsRanOut = new Counter({
    name: 'stockroute_inclusion_waits_ran_out_total',
    help: 'Waits of that recording ended by execution.maxInclusionDelayMs while quotes were still held',
    registers: [registry],
  })
  return {
    onInclusionWait(wait) {
      inclusionWaits.observe(wait.waitedMs / 1000)
      if (wait.ranOut) inclusionWaitsRanOut.inc()
    },
  }
}
