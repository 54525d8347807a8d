import { printable } from '@stockroute/client/domain/printable.js'
import {
  type StrategyView,
  strategyListSchema,
  strategyViewSchema,
} from '../../daemon/controlApi/contract.js'
import { openLedger, type StrategyActivity } from '../../store/index.js'
import { announcePath, findDaemon, requireDaemon } from '../daemon/findDaemon.js'
import { type LedgerTarget, readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { strategyTable } from './strategyTable.js'

type StrategiesOptions = { config: string; json?: boolean }

/** The options of `stockroute strategies enable|disable <id>`, as commander parsed them. */
export type SwitchOptions = StrategiesOptions & { reason?: string }

/**
 * What `stockroute strategies` runs (its options: ./strategiesCommand.ts): through the daemon when
 * one runs, else the config's strategies with the ledger's switches (read-only).
 */
export async function listStrategies(options: StrategiesOptions) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const list =
    found.kind === 'daemon'
      ? (
          await withInterrupt((signal) =>
            found.client.request('GET', '/v1/strategies', { schema: strategyListSchema, signal }),
          )
        ).strategies
      : readStrategies(target)
  printResult(options.json, { strategies: list }, () => strategyTable(list, Date.now()))
}

/** What `stockroute strategies enable|disable <id>` runs: the switch, through the running daemon only. */
export async function switchStrategy(action: 'enable' | 'disable', id: string, options: SwitchOptions) {
  const target = readLedgerTarget(options.config)
  const client = requireDaemon(target, `Switching a strategy (${action})`)
  process.stderr.write(`${client.via}\n`)
  const reason = options.reason ?? `operator: stockroute strategies ${action}`
  const strategy = await withInterrupt((signal) =>
    client.request('POST', `/v1/strategies/${encodeURIComponent(id)}/${action}`, {
      body: { reason },
      schema: strategyViewSchema,
      signal,
    }),
  )
  printResult(options.json, strategy, () =>
    printable(`${strategy.id} ${strategy.enabled ? 'enabled' : 'disabled'} (${reason})`),
  )
}

type SwitchRow = { strategy: string; enabled: number; reason: string; changed_at_ms: number }

/**
 * The config's strategies with the ledger's switches and what each traded (no run is known without
 * the daemon).
 */
function readStrategies(target: LedgerTarget): StrategyView[] {
  let switches = new Map<string, SwitchRow>()
  let traded = new Map<string, StrategyActivity>()
  try {
    const ledger = openLedger({ path: target.ledgerPath, readonly: true })
    try {
      const rows = ledger.database
        .prepare<[], SwitchRow>('SELECT strategy, enabled, reason, changed_at_ms FROM strategy_switches')
        .all()
      switches = new Map(rows.map((row) => [row.strategy, row]))
      traded = new Map(ledger.executions.listStrategyActivity().map((entry) => [entry.strategy, entry]))
    } finally {
      ledger.close()
    }
  } catch (error) {
    // No ledger yet: no strategy was ever switched.
    if ((error as { code?: string }).code !== 'LEDGER_NOT_FOUND') throw error
  }
  return target.daemon.strategies.map((strategy) => {
    const switched = switches.get(strategy.id)
    const trades = traded.get(strategy.id)
    return {
      id: strategy.id,
      kind: strategy.kind,
      enabled: switched ? switched.enabled === 1 : true,
      switched: switched
        ? {
            enabled: switched.enabled === 1,
            reason: switched.reason,
            at: new Date(switched.changed_at_ms).toISOString(),
          }
        : null,
      lastRun: null,
      trades: {
        submitted: trades?.submitted ?? 0,
        confirmed: trades?.confirmed ?? 0,
        lastAt: trades?.lastTradeAtMs == null ? null : new Date(trades.lastTradeAtMs).toISOString(),
      },
      // Nothing runs without the daemon.
      nextRunAt: null,
    }
  })
}
