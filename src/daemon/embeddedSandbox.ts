import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { plural } from '@stockroute/client/domain/plural.js'
import { publicClientFor } from '@stockroute/sandbox/chainClients.js'
import { fundWallet } from '@stockroute/sandbox/fundWallet.js'
import { defaultKeySeed, sandboxKey } from '@stockroute/sandbox/keys.js'
import { type Sandbox, startSandbox } from '@stockroute/sandbox/startSandbox.js'
import { getBlock } from 'viem/actions'
import type { DaemonConfig, StockrouteConfig } from '../config/config.js'
import { ledgerPathOf } from '../config/ledgerPath.js'
import { migrationProgressPrinter } from '../store/migrationProgress.js'
import { openLedger } from '../store/openLedger.js'

/** A running embedded sandbox and the configuration that trades on it. */
export type EmbeddedRun = {
  sandbox: Sandbox
  config: StockrouteConfig
  /** The ledger of an earlier sandbox run, moved aside because its chains are gone; null when none. */
  archivedLedger: string | null
}

/**
 * Starts the sandbox of an embedded configuration (two anvil chains and the service, in process),
 * derives the daemon's own wallet from the seed and funds it on every chain, and returns the
 * configuration that points the daemon at them (executors and operators pinned from the chains).
 * The sandbox's chains start empty on every run, so a ledger left by an earlier run describes
 * chains that no longer exist: it is moved to `data/archive/` (never deleted) and a new one begins.
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
    const config: StockrouteConfig = {
      service: {
        baseUrl: sandbox.service.url,
        apiKeyEnv: 'STOCKROUTE_API_KEY',
        apiSecretEnv: 'STOCKROUTE_API_SECRET',
      },
      wallet: { privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY' },
      chains: sandbox.local.chains.map((chain) => ({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        executorAddress: chain.executorAddress,
        operatorAddress: chain.operatorAddress,
        expectedInclusionMs: 1_000,
      })),
      configPath: daemonConfig.configPath,
      dataDir,
      execution,
      ledgerPath: ledgerPathOf({ dataDir, execution }),
      daemon: daemonConfig.daemon,
      secrets: {
        apiKey: sandbox.service.credential.apiKey,
        apiSecret: sandbox.service.credential.apiSecret,
        privateKey: wallet.privateKey,
        extraWalletKeys: {},
      },
    }
    const archivedLedger = await archiveLedgerOfOtherChains(config.ledgerPath, sandbox, progress)
    if (archivedLedger) progress(`  the previous sandbox run's ledger was moved to ${archivedLedger}`)
    return { sandbox, config, archivedLedger }
  } catch (error) {
    await sandbox.stop()
    throw error
  }
}

/**
 * What becomes of the executions an embedded run leaves unfinished: nothing recovers them, because
 * the sandbox's chains end with the run and the next start archives this ledger (see
 * {@link startEmbeddedSandbox}); they stay in it as they are.
 *
 * @example
 * unfinishedLeftByEmbeddedRun(2, 'data/stockroute.sqlite')
 * // '2 executions left unfinished: the embedded sandbox's chains end with this run, so they stay as they are in data/stockroute.sqlite, which the next start moves to data/archive/'
 */
export function unfinishedLeftByEmbeddedRun(count: number, ledgerPath: string): string {
  if (count === 0) return 'nothing left unfinished'
  return `${plural(count, 'execution')} left unfinished: the embedded sandbox's chains end with this run, so they stay as they are in ${ledgerPath}, which the next start moves to ${join(dirname(ledgerPath), 'archive')}/`
}

/** The chains a ledger was written for, by their genesis block hashes, kept beside it. */
type SandboxRunMarker = { chains: { chainId: number; genesisHash: string }[] }

async function archiveLedgerOfOtherChains(
  ledgerPath: string,
  sandbox: Sandbox,
  progress: (line: string) => void,
): Promise<string | null> {
  const markerPath = `${ledgerPath}.sandbox.json`
  const current: SandboxRunMarker = {
    chains: await Promise.all(
      sandbox.local.chains.map(async (chain) => ({
        chainId: chain.chainId,
        genesisHash: (await getBlock(publicClientFor(chain), { blockNumber: 0n })).hash,
      })),
    ),
  }
  mkdirSync(dirname(ledgerPath), { recursive: true })
  let archived: string | null = null
  if (existsSync(ledgerPath)) {
    const previous = existsSync(markerPath) ? readFileSync(markerPath, 'utf8') : ''
    if (previous !== JSON.stringify(current)) {
      // A live daemon's ledger is never moved from under it: claiming it refuses with its owner.
      openLedger({ path: ledgerPath, onMigrationProgress: migrationProgressPrinter(progress) }).close()
      const folder = join(ledgerPath, '..', 'archive')
      mkdirSync(folder, { recursive: true })
      archived = join(folder, `stockroute-${new Date().toISOString().replaceAll(':', '-')}.sqlite`)
      for (const suffix of ['', '-wal', '-shm']) {
        if (existsSync(`${ledgerPath}${suffix}`)) renameSync(`${ledgerPath}${suffix}`, `${archived}${suffix}`)
      }
    }
  }
  writeFileSync(markerPath, JSON.stringify(current))
  return archived
}
