import type { Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import type { ExtraRoute } from './controlApi/index.js'
import { toEntryHaltView } from './controlApi/views/killSwitchView.js'
import type { DaemonMetrics } from './metrics.js'
import type { Notifier } from './notifications/index.js'
import type { TickReport } from './strategyRunner.js'

/** What /health reports, kept up to date by the daemon. */
export type DaemonStatus = {
  state: 'running' | 'stopping'
  startedAt: number
  lastTick: TickReport | undefined
  lastReconciliation: { atMs: number; discrepancies: number; checked: number } | undefined
}

/**
 * `GET /health` and `GET /metrics` for the control server. Health is 200 while running (503 while
 * stopping), 503 with `status: 'storage fault'` after a storage fault of the ledger (disk full,
 * read-only file, I/O error). Without the token (or a dashboard session) that is all it says:
 * `{status}`, liveness for a probe. With it, the details: the chains (executors, wallets, nonces),
 * the kill switch and its reason, the entry halts the risk limits latched (`entryHalts`), executions
 * in flight, the last market-data tick and the last
 * reconciliation, the notification sinks; after a storage fault, the fault's code, reason and
 * remedy, and nothing more read from the ledger. Metrics are Prometheus' text format.
 *
 * @example
 * await startControlServer({ engine, extraRoutes: controlRoutes({ status, engine, ledger, metrics }) })
 */
export function controlRoutes(parameters: {
  status: DaemonStatus
  engine: Pick<Engine, 'chains'>
  ledger: Ledger
  metrics: DaemonMetrics
  /** The notifier, when sinks are configured: each sink's outbox (pending, abandoned, failing). */
  notifier?: Pick<Notifier, 'status'> | undefined
}): ExtraRoute[] {
  const { status, engine, ledger, metrics, notifier } = parameters
  return [
    {
      method: 'GET',
      path: '/health',
      handle: (request) => {
        const now = Date.now()
        const fault = ledger.storageFault
        const state = fault ? 'storage fault' : status.state === 'running' ? 'ok' : 'stopping'
        // Liveness only for whoever can reach the port: the rest (wallets, nonces, the halt's
        // reason, the fault's paths) is the operator's.
        if (!request.authenticated) return { status: state === 'ok' ? 200 : 503, body: { status: state } }
        if (fault)
          return {
            status: 503,
            body: {
              status: 'storage fault',
              uptimeSeconds: Math.round((now - status.startedAt) / 1000),
              storageFault: {
                code: fault.code,
                reason: fault.reason,
                remedy: fault.remedy,
                at: new Date(fault.atMs).toISOString(),
              },
            },
          }
        const killSwitch = ledger.risk.killSwitch()
        return {
          status: status.state === 'running' ? 200 : 503,
          body: {
            status: status.state === 'running' ? 'ok' : 'stopping',
            uptimeSeconds: Math.round((now - status.startedAt) / 1000),
            halted: killSwitch.halted ? killSwitch.reason : null,
            // Risk limits reached: buys refused, sells still run, until a resume (docs/configuration.md).
            entryHalts: ledger.risk.entryHalts().map(toEntryHaltView),
            chains: [...engine.chains.values()].map((chain) => ({
              chainId: chain.chainId,
              executor: chain.executorAddress,
              asset: chain.asset.symbol,
              // Each wallet's transaction manager: recovering (no new intents) or ready, and what it did.
              wallets: chain.wallets.map((wallet) => {
                const {
                  address,
                  state,
                  recovery,
                  nextNonce,
                  pending,
                  gapsFilled,
                  replacements,
                  rebroadcasts,
                  reorgs,
                } = wallet.transactions.status()
                return {
                  address,
                  state,
                  recovery,
                  nextNonce: nextNonce ?? null,
                  pending,
                  gapsFilled,
                  replacements,
                  rebroadcasts,
                  reorgs,
                }
              }),
            })),
            executionsInFlight: ledger.executions.listUnfinishedExecutions().length,
            lastTick: status.lastTick
              ? {
                  ageMs: now - status.lastTick.atMs,
                  pricesFresh: status.lastTick.prices.fresh,
                  pricesTotal: status.lastTick.prices.total,
                  submitted: status.lastTick.submitted,
                }
              : null,
            lastReconciliation: status.lastReconciliation
              ? {
                  ageMs: now - status.lastReconciliation.atMs,
                  discrepancies: status.lastReconciliation.discrepancies,
                }
              : null,
            notifications: notifier
              ? notifier.status().sinks.map((sink) => ({
                  name: sink.name,
                  kind: sink.kind,
                  pending: sink.pending,
                  abandoned: sink.abandoned,
                  consecutiveFailures: sink.consecutiveFailures,
                  lastError: sink.lastError,
                }))
              : [],
          },
        }
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': metrics.registry.contentType },
        body: await metrics.render(),
      }),
    },
  ]
}
