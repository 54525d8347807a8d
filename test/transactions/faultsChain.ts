import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { SandboxAssetSpec } from '@stockroute/sandbox/chainSpecs.js'
import { type LocalChain, type LocalChains, startLocalChains } from '@stockroute/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { createEngine, type Engine, type EngineSettings, type SwapIntent } from '../../src/engine/index.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import type { TransactionManagerSettings } from '../../src/transactions/index.js'
import { engineChainsOf, engineLedgers, testEngineSettings } from '../helpers/engine.js'
import { clientsFor, fundAddress } from '../helpers/localChains.js'

// The transaction manager against faults the sandbox chain really produces: anvil with automine
// off (a transaction waits in the pool), anvil_dropTransaction (the node forgets it), anvil_reorg and
// anvil_rollback (its block is replaced or removed), a transaction of another program at our nonce.
// Each fault test file runs a chain of its own, since it stops mining and rewrites blocks: this
// module starts it and the engines that trade on it. Its clocks (the chain's blocks, the sandbox
// service's quotes, the engines' and ledgers') move together: `advanceClocks` skips a wait for a
// quote to expire, which only this file's chain sees.

const usdc = { symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, zeroAllowanceFirst: false }

let local: LocalChains
let service: SandboxService
/** The test file's own chain (set before its tests; a live binding). */
export let chain: LocalChain
let ledgers: { path(name?: string): string }
/** How far the file's clocks run ahead of the real time, ms (whole seconds, like the chain's). */
let clockAheadMs = 0
/** The file's clock (Unix ms): the service's, every engine's and ledger's; its chain's blocks follow it. */
export const fileNow = () => Date.now() + clockAheadMs
/** The engines of the running test, closed after it. */
export const running: { engine: Engine; ledger: Ledger }[] = []

/**
 * Starts a chain of the test file's own, with `chainId`, and a sandbox service on it; after each
 * test, mining is automatic again and the test's engines are closed. Returns the file's ledgers.
 * Its asset: USDC (6 decimals) unless `asset` names another (say, a reset-first one).
 */
export function useFaultsChain(chainId: number, asset: SandboxAssetSpec = usdc) {
  ledgers = engineLedgers()
  beforeAll(async () => {
    clockAheadMs = 0
    local = await startLocalChains({
      specs: [
        {
          chainId,
          name: 'Sandbox Faults',
          withPlatformRouter: true,
          assets: [asset],
        },
      ],
    })
    service = await startSandboxService({ local, clock: { now: fileNow } })
    const [only] = local.chains
    if (!only) throw new Error('no chain')
    chain = only
  }, 60_000)
  afterEach(async () => {
    const { testClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    await testClient.setIntervalMining({ interval: 0 })
    await testClient.setAutomine(true)
    for (const { engine, ledger } of running.splice(0)) {
      await engine.close()
      ledger.close()
    }
  })
  afterAll(async () => {
    await service?.stop()
    await local?.stop()
  })
  return ledgers
}

/** An engine over a new ledger for a new funded wallet, recovered. */
export async function startEngine(
  parameters: {
    privateKey?: Hex
    ledgerPath?: string
    settings?: Partial<EngineSettings>
    transactions?: Partial<TransactionManagerSettings>
    /** The engine reaches the chain here (say, a fault proxy in front of it); default the chain's own. */
    rpcUrl?: string
  } = {},
) {
  const privateKey = parameters.privateKey ?? generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  if (!parameters.privateKey) await fundAddress(chain, account.address, { asset: '100000' })
  const ledger = openLedger({ path: parameters.ledgerPath ?? ledgers.path(), now: fileNow })
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service.url,
      credentials: service.credential,
      makerAddress: account.address,
    }),
    account,
    chains: engineChainsOf(local.chains).map((config) => ({
      ...config,
      rpcUrl: parameters.rpcUrl ?? config.rpcUrl,
      transactions: { ...config.transactions, ...parameters.transactions },
    })),
    settings: { ...testEngineSettings, cancelGraceMs: 500, ...parameters.settings },
    now: fileNow,
  })
  running.push({ engine, ledger })
  const recovery = engine.recover()
  return { engine, ledger, account, privateKey, recovery }
}

/**
 * Moves the file's clocks `seconds` ahead at once, as if that long had passed with no block mined:
 * the chain's next blocks (anvil's evm_increaseTime, on this file's own chain only), the service's
 * quotes and every engine's and ledger's clock ({@link fileNow}).
 */
export async function advanceClocks(seconds: number) {
  if (!Number.isInteger(seconds) || seconds < 0) throw new Error(`advanceClocks: ${seconds} s`)
  if (seconds === 0) return
  await chainClients().testClient.increaseTime({ seconds })
  clockAheadMs += seconds * 1000
}

/**
 * Moves the chain's clock on to the file's when it runs behind it: anvil_reorg sets it back to the
 * timestamp of the block it forks from, where a real chain's clock goes on.
 */
export async function alignChainClock() {
  const { publicClient, testClient } = chainClients()
  const head = await publicClient.getBlock({ blockTag: 'latest' })
  const behind = Math.ceil(fileNow() / 1000) - Number(head.timestamp)
  if (behind > 0) await testClient.increaseTime({ seconds: behind })
}

export const buy = (intentId: string, amountIn = '1000'): SwapIntent => ({
  intentId,
  chainId: chain.chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn,
})

export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export const chainClients = () => clientsFor(chain, chain.roles.deployer.privateKey)

export async function expectPositionsEqualBalances(ledger: Ledger, owner: `0x${string}`) {
  const { publicClient } = chainClients()
  for (const position of ledger.positions.listPositions()) {
    const onChain = await publicClient.readContract({
      address: position.tokenAddress,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })
    expect(position.balance).toBe(onChain)
  }
}
