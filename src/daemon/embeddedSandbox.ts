import { existsSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative } from 'node:path'
import { printable } from '@stockroute/client/domain/printable.js'
import { fundWallet } from '@stockroute/sandbox/fundWallet.js'
import { defaultKeySeed, sandboxKey } from '@stockroute/sandbox/keys.js'
import { type Sandbox, startSandbox } from '@stockroute/sandbox/startSandbox.js'
import type { DaemonConfig, StockrouteConfig } from '../config/config.js'
import { ledgerPathOf } from '../config/ledgerPath.js'
import { migrationProgressPrinter } from '../store/migrationProgress.js'
import { openLedger } from '../store/openLedger.js'
import { makeOwnerOnlyFolder, tightenToOwnerOnly } from '../store/ownerOnlyFiles.js'
import type { KillSwitchState } from '../store/risk.js'
import {
  type EmbeddedConnection,
  embeddedServiceConfig,
  writeEmbeddedConnection,
} from './embeddedConnection.js'

/** A running embedded sandbox and the configuration that trades on it. */
export type EmbeddedRun = {
  sandbox: Sandbox
  config: StockrouteConfig
  /** The ledger of an earlier sandbox run, moved aside because its chains are gone; null when none. */
  archivedLedger: string | null
  /**
   * The halted kill switch of the archived ledger, latched again in the new one (this run signs
   * nothing until `stockroute resume`); null when none was halted.
   */
  carriedHalt: Extract<KillSwitchState, { halted: true }> | null
}

/**
 * Starts the sandbox of an embedded configuration (two anvil chains and the service, in process),
 * derives the daemon's own wallet from the seed and funds it on every chain, and returns the
 * configuration that points the daemon at them (executors and operators pinned from the chains).
 * The sandbox's chains are new anvil processes on every run (deployed, or loaded from the state
 * cache: the same genesis, none of the earlier run's transactions), so a ledger left by an earlier
 * run describes chains that no longer exist: it is moved to `data/archive/` (never deleted; the
 * folder and its files owner-only, 0700 and 0600) and a new one begins.
 * A halt the operator set in it is not dropped with it: the new ledger starts halted too, and a line
 * says so. A ledger a live process owns (a daemon already running on it) is refused with
 * `LEDGER_IN_USE` before any chain starts.
 *
 * @example
 * const run = await startEmbeddedSandbox(daemonConfig, (line) => console.error(line))
 * run.config.service.baseUrl // 'http://127.0.0.1:43121'
 */
export async function startEmbeddedSandbox(
  daemonConfig: Extract<DaemonConfig, { kind: 'embedded' }>,
  progress: (line: string) => void,
): Promise<EmbeddedRun> {
  const { sandbox: settings, dataDir, execution } = daemonConfig
  const ledgerPath = ledgerPathOf({ dataDir, execution })
  refuseLedgerOfLiveOwner(ledgerPath, progress)
  const seed = settings.seed ?? defaultKeySeed
  progress('starting the embedded sandbox: two local chains and the service…')
  const sandbox = await startSandbox({
    chains: {
      keySeed: seed,
      onChainReady: (chain) => progress(`  chain ${chain.chainId} (${chain.name}) ready at ${chain.rpcUrl}`),
    },
  })
  try {
    const wallet = sandboxKey(seed, 'daemon/wallet')
    await Promise.all(
      sandbox.local.chains.map((chain) => fundWallet(chain, wallet.address, { asset: settings.walletAsset })),
    )
    progress(
      `  daemon wallet ${wallet.address} funded with ${settings.walletAsset} of each chain's default asset`,
    )
    const connection: EmbeddedConnection = {
      pid: process.pid,
      service: {
        baseUrl: sandbox.service.url,
        apiKey: sandbox.service.credential.apiKey,
        apiSecret: sandbox.service.credential.apiSecret,
      },
      privateKey: wallet.privateKey,
      chains: sandbox.local.chains.map((chain) => ({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        executorAddress: chain.executorAddress,
        operatorAddress: chain.operatorAddress,
        expectedInclusionMs: 1_000,
      })),
    }
    const config = embeddedServiceConfig(daemonConfig, connection)
    const { archived, carriedHalt } = archiveLedgerOfEarlierRun(ledgerPath, progress)
    if (archived) progress(`  the previous sandbox run's ledger was moved to ${archived}`)
    if (carriedHalt) progress(carriedHaltLine(carriedHalt, daemonConfig.configPath))
    // After the archive, so that the file describes this run's chains beside this run's ledger.
    writeEmbeddedConnection(ledgerPath, connection)
    return { sandbox, config, archivedLedger: archived, carriedHalt }
  } catch (error) {
    await sandbox.stop()
    throw error
  }
}

/**
 * The line of a start whose archived ledger was halted: the halt goes on in the new one.
 *
 * @example
 * carriedHaltLine({ halted: true, reason: 'operator: stockroute halt', changedAtMs: 0 }, '/repo/config/default.json')
 * // "  its kill switch was halted (reason: operator: stockroute halt, since 1970-01-01T00:00:00.000Z): this run starts halted too, nothing is signed until `stockroute resume --config config/default.json`"
 */
function carriedHaltLine(halt: Extract<KillSwitchState, { halted: true }>, configPath: string): string {
  const shown = relative(process.cwd(), configPath)
  const config = shown === '' || shown.startsWith('..') || isAbsolute(shown) ? configPath : shown
  return `  its kill switch was halted (reason: ${printable(halt.reason)}, since ${new Date(halt.changedAtMs).toISOString()}): this run starts halted too, nothing is signed until \`stockroute resume --config ${config}\``
}

/**
 * Refuses, before the sandbox's chains start, a ledger a live process owns (a daemon already
 * running on it): the claim is taken and released at once, so the error is the one a second open
 * gets (`LEDGER_IN_USE`, naming the owner). The archive claims it again once the chains run.
 */
function refuseLedgerOfLiveOwner(ledgerPath: string, progress: (line: string) => void): void {
  if (!existsSync(ledgerPath)) return
  openLedger({
    path: ledgerPath,
    walCheckpoints: 'inline',
    onMigrationProgress: migrationProgressPrinter(progress),
  }).close()
}

/**
 * Moves the ledger of an earlier run to `archive/`, carrying its halt over. A ledger is never
 * matched to chains by their genesis: chains loaded from the sandbox's state cache share it.
 */
function archiveLedgerOfEarlierRun(
  ledgerPath: string,
  progress: (line: string) => void,
): { archived: string | null; carriedHalt: EmbeddedRun['carriedHalt'] } {
  // Earlier builds kept the chains' genesis hashes beside the ledger to match the two.
  rmSync(`${ledgerPath}.sandbox.json`, { force: true })
  makeOwnerOnlyFolder(dirname(ledgerPath))
  if (!existsSync(ledgerPath)) return { archived: null, carriedHalt: null }
  // A live daemon's ledger is never moved from under it: claiming it refuses with its owner.
  const old = openLedger({ path: ledgerPath, onMigrationProgress: migrationProgressPrinter(progress) })
  let killSwitch: KillSwitchState
  try {
    killSwitch = old.risk.killSwitch()
  } finally {
    old.close()
  }
  // The archive is the daemon's own folder: owner-only, also one an older stockroute made 0755.
  const folder = join(ledgerPath, '..', 'archive')
  makeOwnerOnlyFolder(folder)
  tightenToOwnerOnly(folder)
  const archived = join(folder, `stockroute-${new Date().toISOString().replaceAll(':', '-')}.sqlite`)
  for (const suffix of ['', '-wal', '-shm']) {
    if (!existsSync(`${ledgerPath}${suffix}`)) continue
    renameSync(`${ledgerPath}${suffix}`, `${archived}${suffix}`)
    tightenToOwnerOnly(`${archived}${suffix}`)
  }
  if (!killSwitch.halted) return { archived, carriedHalt: null }
  // The operator's halt outlives the chains: nothing is signed on the new ones until a resume.
  const fresh = openLedger({ path: ledgerPath, walCheckpoints: 'inline' })
  try {
    fresh.risk.halt(`${killSwitch.reason} (carried over from archive/${basename(archived)})`)
  } finally {
    fresh.close()
  }
  return { archived, carriedHalt: killSwitch }
}
