import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { StockrouteConfig } from '../config/config.js'
import { engineChainConfigsOf, engineSettingsOf } from '../config/engineConfig.js'
import { ledgerPathOf } from '../config/ledgerPath.js'
import { walletsOf } from '../config/wallets.js'
import { createEngine, type Engine, type EngineHooks } from '../engine/index.js'
import { type Ledger, migrationProgressPrinter, openLedger } from '../store/index.js'

/** An engine built from a configuration, with the ledger it owns. */
export type ConfiguredEngine = {
  engine: Engine
  ledger: Ledger
  /** Whether this engine only signs and simulates (its ledger is the dry-run file). */
  dryRun: boolean
  /** Closes the engine (waiting for executions in flight), then the ledger, whatever happens. */
  close(): Promise<void>
}

/**
 * Opens the configuration's ledger (the dry-run file for dry runs; created if missing) and builds
 * the engine over it: the configured wallets (the main one and each chain's extra ones), chains and `execution` settings. `dryRun` overrides
 * the configuration's. The ledger is closed again if the engine cannot be built.
 *
 * @example
 * const { engine, close } = await openConfiguredEngine(config, client, { dryRun: true })
 * try { await engine.recover() } finally { await close() }
 */
export async function openConfiguredEngine(
  config: StockrouteConfig,
  service: ServiceClient,
  options: {
    dryRun?: boolean | undefined
    hooks?: EngineHooks | undefined
    signal?: AbortSignal | undefined
  } = {},
): Promise<ConfiguredEngine> {
  const dryRun = options.dryRun ?? config.execution.dryRun
  // Every configured wallet, not only the main one: the ledger may hold what an extra wallet left.
  const wallets = walletsOf(config)
  const ledger = openLedger({
    path: ledgerPathOf(config, { dryRun }),
    onMigrationProgress: migrationProgressPrinter((line) => process.stderr.write(`${line}\n`)),
  })
  let engine: Engine
  try {
    engine = await createEngine({
      ledger,
      service,
      account: wallets.main,
      chains: engineChainConfigsOf(config, wallets),
      settings: { ...engineSettingsOf(config), dryRun },
      hooks: options.hooks,
      signal: options.signal,
    })
  } catch (error) {
    ledger.close()
    throw error
  }
  return {
    engine,
    ledger,
    dryRun,
    async close() {
      try {
        await engine.close()
      } finally {
        ledger.close()
      }
    },
  }
}
