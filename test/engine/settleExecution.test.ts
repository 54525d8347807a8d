import { privateKeyToAccount } from 'viem/accounts'
import { getTransactionCount } from 'viem/actions'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createServiceClient } from '../../src/api/createServiceClient.js'
import { createEngine, type Engine } from '../../src/engine/index.js'
import { type LocalChains, startLocalChains } from '../../src/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '../../src/sandbox/service/startSandboxService.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { engineChainsOf, engineLedgers, settlementsOf, testEngineSettings } from '../helpers/engine.js'
import { clientsFor } from '../helpers/localChains.js'

// An execute still unmined when its quote expires is cancelled by replacement: a 0-value transfer
// to self with the same nonce and higher fees. This needs a chain that does not mine at once, so
// the file runs a chain of its own and turns anvil's automine off while the trade is in flight.

let local: LocalChains
let service: SandboxService
let ledger: Ledger
let engine: Engine
const ledgers = engineLedgers()

beforeAll(async () => {
  local = await startLocalChains({
    specs: [
      {
        chainId: 31_377,
        name: 'Sandbox Slow',
        withPlatformRouter: true,
        assets: [{ symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, zeroAllowanceFirst: false }],
      },
    ],
  })
  service = await startSandboxService({ local })
}, 60_000)
afterAll(async () => {
  await engine?.close()
  ledger?.close()
  await service?.stop()
  await local?.stop()
})

it('cancels by replacement an execute that is not mined before its quote expires', {
  timeout: 60_000,
}, async () => {
  const [chain] = local.chains
  const [wallet] = local.wallets
  if (!chain || !wallet) throw new Error('no chain')
  const account = privateKeyToAccount(wallet.privateKey)
  ledger = openLedger({ path: ledgers.path() })
  engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service.url,
      credentials: service.credential,
      makerAddress: account.address,
    }),
    account,
    chains: engineChainsOf(local.chains),
    settings: { ...testEngineSettings, cancelGraceMs: 500 },
  })
  await engine.recover()
  const { testClient, publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  await testClient.setAutomine(false)

  const running = engine.execute({
    intentId: 'slow',
    chainId: chain.chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
  })
  // Wait for the engine to give up on the execute and send its cancel, then mine one block.
  const deadline = Date.now() + 30_000
  const cancelOf = () =>
    ledger.transactions.listPendingTransactions(chain.chainId).find((tx) => tx.kind === 'cancel')
  while (!cancelOf() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  const cancel = cancelOf()
  expect(cancel).toBeDefined()
  await testClient.mine({ blocks: 1 })
  await testClient.setAutomine(true)
  const outcome = await running

  expect(outcome.execution.state).toBe('expired')
  expect(outcome.execution.reason).toMatch(
    /^execute cancelled by replacement 0x[0-9a-f]{64} in block \d+: it was not mined before the quote expired$/,
  )
  expect(outcome.transactions.map((tx) => [tx.kind, tx.status])).toEqual([
    ['approve', 'mined'],
    ['execute', 'replaced'],
    ['cancel', 'mined'],
  ])
  const [, execute, cancelled] = outcome.transactions
  expect(cancelled?.nonce).toBe(execute?.nonce)
  expect(outcome.fills).toEqual([])
  expect(await settlementsOf(chain, account.address)).toEqual([])
  expect(await getTransactionCount(publicClient, { address: account.address })).toBe(2)
})
