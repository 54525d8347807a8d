// The bench's side of the sandbox child (sandboxChild.ts): spawn it, forward its progress to
// stderr, read and validate its one JSON line, rebuild the LocalChain objects the bench needs
// (fundWallet, the bare path, the engine), and stop it by pid: on stop(), on SIGINT/SIGTERM of the
// bench, and on the bench's exit, so no anvil outlives a run.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { constants } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { exchangeCodes, shareTicker } from '@stockroute/client/domain/markets.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import type { DeployedAsset, DeployedToken } from '@stockroute/sandbox/deploy.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, type Hex, isAddress, isHex } from 'viem'
import { z } from 'zod'

const repoRoot = join(import.meta.dirname, '..', '..')
const childScript = join(import.meta.dirname, 'sandboxChild.ts')

const addressSchema = z.custom<Address>((value) => typeof value === 'string' && isAddress(value), {
  message: 'expected a 0x address',
})
const keySchema = z.object({
  address: addressSchema,
  privateKey: z.custom<Hex>((value) => typeof value === 'string' && isHex(value) && value.length === 66, {
    message: 'expected a 32-byte hex key',
  }),
})
const assetSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  address: addressSchema,
  decimals: z.number().int().min(0).max(255),
  zeroAllowanceFirst: z.boolean(),
})
const tokenSchema = z.object({
  ticker: z.string(),
  exchange: z.union([z.literal(exchangeCodes.us), z.literal(exchangeCodes.hk), z.literal(exchangeCodes.kr)]),
  kind: z.enum(['stock', 'share']),
  address: addressSchema,
  decimals: z.number().int().min(0),
  underlying: addressSchema.nullable(),
})
const chainSchema = z.object({
  chainId: z.number().int().positive(),
  name: z.string(),
  rpcUrl: z.url(),
  managerAddress: addressSchema,
  settlementAddress: addressSchema,
  platformRouterAddress: addressSchema.nullable(),
  executorAddress: addressSchema,
  operatorAddress: addressSchema,
  payerAddress: addressSchema,
  /** describeLocalChains flattens the default asset to its symbol; `assets` has the details. */
  defaultAsset: z.string(),
  assets: z.array(assetSchema).min(1),
  tokens: z.array(tokenSchema),
  roles: z.object({ deployer: keySchema, operator: keySchema, payer: keySchema, feeRecipient: keySchema }),
})
/** The child's JSON line: describeSandbox, plus the key's rate and the anvil pids. */
const descriptionSchema = z.object({
  baseUrl: z.url(),
  apiKey: z.string().min(1),
  apiSecret: z.string().min(1),
  chains: z.array(chainSchema).min(1),
  wallets: z.array(keySchema),
  requestsPerSecond: z.number().int().positive(),
  anvilPids: z.array(z.number().int().positive()),
})
type ChainDescription = z.infer<typeof chainSchema>

/** A LocalChain again, from its JSON description (token catalogue entries from the same catalogue the child lists). */
function toLocalChain(chain: ChainDescription): LocalChain {
  const assets: DeployedAsset[] = chain.assets
  const defaultAsset = assets.find((asset) => asset.symbol === chain.defaultAsset)
  if (!defaultAsset)
    throw new Error(
      `sandbox child: chain ${chain.chainId}'s default asset ${chain.defaultAsset} is not among its assets`,
    )
  const tokens = chain.tokens.map((token): DeployedToken => {
    const stock = sandboxCatalogue.find(
      (candidate) =>
        candidate.exchange === token.exchange &&
        (token.kind === 'stock'
          ? candidate.ticker === token.ticker
          : candidate.hasShareToken && shareTicker(candidate.ticker) === token.ticker),
    )
    if (!stock)
      throw new Error(
        `sandbox child: token ${token.ticker} on chain ${chain.chainId} is not in the sandbox catalogue`,
      )
    return { ...token, stock }
  })
  if (
    chain.operatorAddress !== chain.roles.operator.address ||
    chain.payerAddress !== chain.roles.payer.address
  )
    throw new Error(`sandbox child: chain ${chain.chainId}'s operator or payer differs from its role keys`)
  return {
    chainId: chain.chainId,
    name: chain.name,
    rpcUrl: chain.rpcUrl,
    roles: chain.roles,
    operatorAddress: chain.operatorAddress,
    payerAddress: chain.payerAddress,
    managerAddress: chain.managerAddress,
    settlementAddress: chain.settlementAddress,
    platformRouterAddress: chain.platformRouterAddress,
    executorAddress: chain.executorAddress,
    assets,
    defaultAsset,
    tokens,
  }
}

export type SandboxProcess = {
  /** The child's pid. */
  pid: number
  /** The service's base URL, on loopback. */
  url: string
  credential: { apiKey: string; apiSecret: string; requestsPerSecond: number }
  chains: LocalChain[]
  /** Stops the child (SIGTERM, SIGKILL after a grace period) and makes sure its anvils are gone. Idempotent. */
  stop(): Promise<void>
}

/** True when `pid` is a live anvil process (not a zombie, not a pid reused by something else). */
function isLiveAnvil(pid: number): boolean {
  if (!existsSync('/proc')) {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return command === 'anvil' && state !== 'Z'
  } catch {
    return false
  }
}

/** Pids of the anvil processes whose parent is `parentPid` (none where /proc is missing). */
function anvilChildrenOf(parentPid: number): number[] {
  if (!existsSync('/proc')) return []
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return command === 'anvil' && parent === parentPid ? [Number(entry)] : []
      } catch {
        return []
      }
    })
}

/** Signals `pid`; one that has just died on its own is no error. */
function killQuietly(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()))

/**
 * Starts the sandbox in a child process and resolves once it is ready.
 *
 * @example
 * const sandbox = await startSandboxProcess({ requestsPerSecond: 5_000 })
 * try { sandbox.chains[0].rpcUrl; sandbox.url } finally { await sandbox.stop() }
 */
export async function startSandboxProcess(parameters: {
  requestsPerSecond: number
  walletCount?: number
  /** Where the child's stderr lines go; default: this process's stderr, prefixed `[sandbox]`. */
  onProgress?: (line: string) => void
  /** Where this side's own notices go (signals, forced kills); default: stderr, prefixed `[sandbox process]`. */
  onNotice?: (line: string) => void
  /** Give up when the child has not described the sandbox after this long. Default 120 s. */
  startTimeoutMs?: number
  /** Between SIGTERM and SIGKILL on stop. Default 15 s. */
  stopGraceMs?: number
}): Promise<SandboxProcess> {
  const {
    requestsPerSecond,
    walletCount = 1,
    onProgress = (line) => process.stderr.write(`[sandbox] ${line}\n`),
    onNotice = (line) => process.stderr.write(`[sandbox process] ${line}\n`),
    startTimeoutMs = 120_000,
    stopGraceMs = 15_000,
  } = parameters
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', childScript, '--rate', String(requestsPerSecond), '--wallets', String(walletCount)],
    // stdin stays open: it closes when this process dies, however it dies, and the child then stops.
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] },
  )
  const pid = child.pid
  if (pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once('error', resolve))
    throw new Error(`could not start the sandbox child: ${error.message}`)
  }
  createInterface({ input: child.stderr }).on('line', onProgress)
  let anvilPids: number[] = []

  // Last resort when this process exits without stop() (process.exit, an uncaught error): signals
  // only, since nothing can be awaited any more; the child stops its anvils on SIGTERM.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    for (const anvil of anvilPids) if (isLiveAnvil(anvil)) killQuietly(anvil, 'SIGTERM')
  }
  process.once('exit', onExit)

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // Also those started before the child described itself (a stop during start-up).
        anvilPids = [...new Set([...anvilPids, ...anvilChildrenOf(pid)])]
        child.kill('SIGTERM')
        const graceful = await Promise.race([
          exited(child).then(() => true),
          new Promise<false>((resolve) => setTimeout(resolve, stopGraceMs, false).unref()),
        ])
        if (!graceful) {
          onNotice(`child ${pid} did not stop within ${stopGraceMs} ms: SIGKILL`)
          child.kill('SIGKILL')
          await exited(child)
        }
      }
      child.stdin.destroy()
      for (const anvil of anvilPids)
        if (isLiveAnvil(anvil)) {
          onNotice(`anvil ${anvil} outlived the child: SIGKILL`)
          killQuietly(anvil, 'SIGKILL')
        }
      process.off('exit', onExit)
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    })()
    return stopping
  }

  // Ctrl-C or SIGTERM of the bench: stop the child and its chains, then exit as a shell reports a
  // death by that signal (128 + its number), before the run's own failures reach the top level.
  const onSignal = (signal: NodeJS.Signals) => {
    onNotice(`${signal}: stopping the sandbox child ${pid}`)
    void stop().finally(() => process.exit(128 + constants.signals[signal]))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  try {
    const line = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout })
      const timer = setTimeout(
        () => reject(new Error(`the sandbox child did not get ready within ${startTimeoutMs} ms`)),
        startTimeoutMs,
      )
      lines.once('line', (first) => {
        clearTimeout(timer)
        lines.close()
        // Nothing more is expected on stdout; keep draining so the pipe never fills.
        child.stdout.resume()
        resolve(first)
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`the sandbox child exited (${signal ?? `code ${code}`}) before it was ready`))
      })
    })
    if (stopping) throw new Error('the sandbox child was stopped before it was ready')
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      throw new Error(
        `the sandbox child printed something other than its JSON description: ${line.slice(0, 200)}`,
      )
    }
    const parsed = descriptionSchema.safeParse(json)
    if (!parsed.success)
      throw new Error(
        `the sandbox child's description is not what the bench expects: ${parsed.error.message}`,
      )
    const description = parsed.data
    anvilPids = description.anvilPids
    child.once('exit', (code, signal) => {
      if (!stopping)
        onNotice(`the sandbox child ${pid} exited (${signal ?? `code ${code}`}) while the bench ran`)
    })
    if (description.requestsPerSecond !== requestsPerSecond)
      throw new Error(
        `the sandbox child's API key allows ${description.requestsPerSecond} requests/s, not ${requestsPerSecond}`,
      )
    return {
      pid,
      url: description.baseUrl,
      credential: {
        apiKey: description.apiKey,
        apiSecret: description.apiSecret,
        requestsPerSecond: description.requestsPerSecond,
      },
      chains: description.chains.map(toLocalChain),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
