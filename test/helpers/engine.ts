import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { SandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { type Address, erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll } from 'vitest'
import { readSettlementLogs } from '../../src/chain/settlementEvents.js'
import {
  createEngine,
  type EngineHooks,
  type EngineSettings,
  readStoredQuote,
  type StoredQuote,
} from '../../src/engine/index.js'
import { type ExecutionRecord, type Ledger, openLedger } from '../../src/store/index.js'
import { clientsFor, fundAddress, localChains } from './localChains.js'

/** A folder for this test file's ledgers, removed after the file. */
export function engineLedgers(): { path(name?: string): string } {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-engine-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let count = 0
  return { path: (name) => join(dir, name ?? `ledger-${++count}.sqlite`) }
}

/** Settings for tests on anvil (automine): receipts come at once, so validity needs are small. */
export const testEngineSettings: Partial<EngineSettings> = {
  validityMarginMs: 1_000,
  receiptPollMs: 50,
}

/** Transaction managers for anvil: blocks come at once, so heads and pending checks are polled often. */
export const testTransactionSettings = {
  confirmations: 1,
  blockPollMs: 50,
  checkMs: 200,
  stuckAfterMs: 3_000,
}

/** How every test engine reaches the chains: the pins the sandbox's chain list must match. */
export function engineChainsOf(chains: readonly LocalChain[] = localChains()) {
  return chains.map((chain) => ({
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    executorAddress: chain.executorAddress,
    operatorAddress: chain.operatorAddress,
    defaultInclusionMs: 1_000,
    transactions: testTransactionSettings,
  }))
}

export type TestEngineOptions = {
  /** Default: a new key of the test's own, funded on every chain. */
  privateKey?: Hex
  funding?: { asset?: string; tokens?: Record<string, bigint> }
  ledgerPath: string
  settings?: Partial<EngineSettings>
  hooks?: EngineHooks
  /** The engine's clock (Unix ms); default `Date.now`. */
  now?: () => number
  /** Wallets besides the main one on every chain, funded like it (default none). */
  extraWallets?: number
  /** Where the engine reaches a chain, e.g. a loopback proxy in front of it (default its RPC). */
  rpcUrlOf?: ((chain: LocalChain) => string) | undefined
  /** The service client's fetch, e.g. one that holds a call until the test lets it go (default fetch). */
  fetch?: typeof fetch | undefined
}

/**
 * Hooks that count the executions between asking for a quote and handing their execute to the
 * node (per execution: a re-broadcast under load sends an execute twice), and the most at once.
 */
export function admissionProbe(): { hooks: EngineHooks; most(): number; inside(): number } {
  const inside = new Set<number>()
  let most = 0
  return {
    hooks: {
      onStage: (event) => {
        if (event.stage !== 'quoteRequested') return
        inside.add(event.executionId)
        most = Math.max(most, inside.size)
      },
      onStep: (step) => {
        if (step.step === 'sending' && step.kind === 'execute' && step.executionId !== null)
          inside.delete(step.executionId)
      },
    },
    most: () => most,
    inside: () => inside.size,
  }
}

/**
 * An engine over a real ledger file, the sandbox service over HTTP and the anvil chains, for a
 * wallet of the test's own (funded on both chains), recovered and ready.
 */
export async function createTestEngine(service: SandboxService, options: TestEngineOptions) {
  const privateKey = options.privateKey ?? generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  if (options.funding)
    await Promise.all(localChains().map((chain) => fundAddress(chain, account.address, options.funding)))
  const extraAccounts = Array.from({ length: options.extraWallets ?? 0 }, () =>
    privateKeyToAccount(generatePrivateKey()),
  )
  for (const extra of extraAccounts)
    await Promise.all(localChains().map((chain) => fundAddress(chain, extra.address, options.funding ?? {})))
  const ledger = openLedger({ path: options.ledgerPath })
  const client = createServiceClient({
    baseUrl: service.url,
    credentials: service.credential,
    makerAddress: account.address,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const engine = await createEngine({
    ledger,
    service: client,
    account,
    chains: engineChainsOf().map((config, index) => ({
      ...config,
      ...(extraAccounts.length > 0 ? { accounts: [account, ...extraAccounts] } : {}),
      ...(options.rpcUrlOf ? { rpcUrl: options.rpcUrlOf(localChains()[index] as LocalChain) } : {}),
    })),
    settings: { ...testEngineSettings, ...options.settings },
    hooks: options.hooks,
    now: options.now,
  })
  await engine.recover()
  return {
    engine,
    ledger,
    account,
    extraAccounts,
    privateKey,
    client,
    async close() {
      await engine.close()
      ledger.close()
    },
  }
}

/** `owner`'s on-chain balance of every token the ledger has a position in, beside the position. */
export async function positionsAgainstChain(ledger: Ledger, owner: Address) {
  const positions = ledger.positions.listPositions()
  return Promise.all(
    positions.map(async (position) => {
      const chain = localChains().find((c) => c.chainId === position.chainId)
      if (!chain) throw new Error(`no chain ${position.chainId}`)
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const onChain = await publicClient.readContract({
        address: position.tokenAddress,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner],
      })
      return { chainId: position.chainId, ticker: position.ticker, ledger: position.balance, onChain }
    }),
  )
}

/** Every settlement of `taker` on `chain` from `fromBlock`: what really happened on chain. */
export async function settlementsOf(chain: LocalChain, taker: Address, fromBlock = 0n) {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const head = await publicClient.getBlockNumber({ cacheTime: 0 })
  const fills = await readSettlementLogs(publicClient, {
    executors: [chain.executorAddress],
    fromBlock,
    toBlock: head,
  })
  return fills.filter((fill) => fill.taker.toLowerCase() === taker.toLowerCase())
}

/** The quote an execution holds; the test fails when it holds none. */
export function readStoredQuoteForTest(execution: ExecutionRecord): StoredQuote {
  const quote = readStoredQuote(execution)
  if (!quote) throw new Error(`execution ${execution.id} holds no quote`)
  return quote
}
