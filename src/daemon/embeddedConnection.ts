// How a CLI command reaches the embedded sandbox a daemon runs. An embedded config
// (config/default.json) names no service, chains or secrets: the daemon makes them at start. So that
// every command accepts that config as `stockroute start` does, the daemon writes what it made beside
// its ledger (`<ledger>.sandbox-connection.json`, mode 0600: it holds the sandbox's API secret and the daemon's
// wallet key, both worthless outside this run) and removes it at stop; commands read it while the
// daemon lives.
import { readFileSync, rmSync } from 'node:fs'
import { relative } from 'node:path'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { z } from 'zod'
import type { DaemonConfig, StockrouteConfig } from '../config/config.js'
import { ledgerPathOf } from '../config/ledgerPath.js'
import { isPidAlive, writeFileAtomically } from './runtimeFile.js'

/** The file of a ledger's embedded sandbox: `<ledger path>.sandbox-connection.json`. */
export const embeddedConnectionPathOf = (ledgerPath: string) => `${ledgerPath}.sandbox-connection.json`

const hex = (length: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`))

/** What an embedded daemon made at start: the sandbox's service, its chains and the daemon's wallet. */
export const embeddedConnectionSchema = z.strictObject({
  /** The daemon that runs the sandbox: the file is stale once it is gone. */
  pid: z.number().int().positive(),
  service: z.strictObject({ baseUrl: z.url(), apiKey: z.string().min(1), apiSecret: z.string().min(1) }),
  privateKey: hex(64).transform((key) => key as `0x${string}`),
  chains: z
    .array(
      z.strictObject({
        chainId: z.number().int().positive(),
        rpcUrl: z.url(),
        executorAddress: hex(40).transform((address) => address as `0x${string}`),
        operatorAddress: hex(40).transform((address) => address as `0x${string}`),
        expectedInclusionMs: z.number().int().positive(),
      }),
    )
    .min(1),
})

/** A running embedded sandbox, as its daemon described it. */
export type EmbeddedConnection = z.output<typeof embeddedConnectionSchema>

type EmbeddedDaemonConfig = Extract<DaemonConfig, { kind: 'embedded' }>

/**
 * The configuration that trades on an embedded sandbox: the given file's settings with the
 * sandbox's service, chains and the daemon's wallet. The daemon builds its own with it, and a
 * command builds the same one from the file the daemon wrote ({@link readEmbeddedConnection}).
 *
 * @example
 * const config = embeddedServiceConfig(given, connection)
 * config.service.baseUrl // 'http://127.0.0.1:43121'
 */
export function embeddedServiceConfig(
  given: EmbeddedDaemonConfig,
  connection: EmbeddedConnection,
): StockrouteConfig {
  return {
    service: {
      baseUrl: connection.service.baseUrl,
      apiKeyEnv: 'STOCKROUTE_API_KEY',
      apiSecretEnv: 'STOCKROUTE_API_SECRET',
      requestsPerSecond: 50,
    },
    wallet: { privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY' },
    chains: connection.chains.map((chain) => ({ ...chain })),
    configPath: given.configPath,
    dataDir: given.dataDir,
    execution: given.execution,
    ledgerPath: ledgerPathOf(given),
    daemon: given.daemon,
    secrets: {
      apiKey: connection.service.apiKey,
      apiSecret: connection.service.apiSecret,
      privateKey: connection.privateKey,
      extraWalletKeys: {},
    },
  }
}

/**
 * Writes the embedded sandbox's file beside the ledger (mode 0600, atomically). Returns its path.
 *
 * @example
 * writeEmbeddedConnection(ledgerPath, { pid: process.pid, service, privateKey, chains })
 */
export function writeEmbeddedConnection(ledgerPath: string, connection: EmbeddedConnection): string {
  const path = embeddedConnectionPathOf(ledgerPath)
  writeFileAtomically(path, `${JSON.stringify(embeddedConnectionSchema.parse(connection), null, 2)}\n`)
  return path
}

/**
 * Removes the file at stop, if process `pid` wrote it. Never throws: a file left behind names a
 * dead process, which readers take for stale.
 */
export function removeEmbeddedConnection(ledgerPath: string, pid: number): void {
  const path = embeddedConnectionPathOf(ledgerPath)
  try {
    const parsed = embeddedConnectionSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')))
    if (parsed.success && parsed.data.pid === pid) rmSync(path, { force: true })
  } catch {
    // Missing or unreadable: nothing of ours to remove.
  }
}

/**
 * The embedded sandbox running on `ledgerPath`, as its daemon wrote it; undefined when there is no
 * file, it is not one, or its daemon is gone.
 *
 * @example
 * const connection = readEmbeddedConnection('/…/data/stockroute.sqlite')
 */
export function readEmbeddedConnection(ledgerPath: string): EmbeddedConnection | undefined {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(embeddedConnectionPathOf(ledgerPath), 'utf8'))
  } catch {
    return undefined
  }
  const parsed = embeddedConnectionSchema.safeParse(json)
  if (!parsed.success || !isPidAlive(parsed.data.pid)) return undefined
  return parsed.data
}

/**
 * The configuration a command runs with on an embedded config: the running sandbox's. Throws
 * `SANDBOX_NOT_RUNNING` (exit code `unreachable`) when no daemon runs it, saying how to start one.
 *
 * @example
 * const config = connectToEmbeddedSandbox(loadDaemonConfig('config/default.json'))
 */
export function connectToEmbeddedSandbox(given: EmbeddedDaemonConfig): StockrouteConfig {
  const connection = readEmbeddedConnection(ledgerPathOf(given))
  if (connection) return embeddedServiceConfig(given, connection)
  const shown = relative(process.cwd(), given.configPath)
  const config = shown === '' || shown.startsWith('..') ? given.configPath : shown
  throw new StockrouteError({
    code: 'SANDBOX_NOT_RUNNING',
    shortMessage: `${config} runs an embedded sandbox, and none is running: its service and chains exist only while \`stockroute start\` runs it`,
    remedy: `start it in another terminal (\`npm start\`, or \`stockroute start --config ${config}\`), then run this command again`,
    details: { configPath: given.configPath },
  })
}
