import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { type Hex, keccak256, type LocalAccount, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getTransaction, getTransactionCount } from 'viem/actions'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import {
  createTransactionManager,
  defaultTransactionManagerSettings,
  type TransactionManager,
} from '../../src/transactions/index.js'
import { fundedWallet } from '../chain/fixtures.js'
import { engineLedgers, testTransactionSettings } from '../helpers/engine.js'
import { chainWithoutRouter } from '../helpers/localChains.js'
import { bytes32 } from '../store/ledgerFiles.js'

// A wallet's recovery at the start of its transaction manager, on the shared anvil chain and a
// real ledger file, read from the progress lines it reports: the next nonce seeded from the chain
// and the ledger, what a previous run left (stored and never sent; mined in a block a reorg took
// away while stopped) on the node before the manager says it is ready, and a node that cannot be
// reached retried with a doubling wait, or given up when the manager stops. The pending check loop
// runs once a minute here, so anything sent before `ready()` was sent by the recovery itself.

const chain = chainWithoutRouter()
const ledgers = engineLedgers()
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The chain read directly (not through a test's proxy). */
const direct = () => createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl }).publicClient

/** A funded wallet of its own, and its account as a signer. */
async function wallet() {
  const funded = await fundedWallet(chain)
  return { ...funded, signer: privateKeyToAccount(funded.privateKey) as LocalAccount }
}

/** A self-transfer signed at `nonce` and stored in `ledger` as a previous run would have (status `signed`). */
async function storeSigned(ledger: Ledger, account: LocalAccount, nonce: number) {
  const raw = await account.signTransaction({
    chainId: chain.chainId,
    type: 'eip1559',
    to: account.address,
    value: 0n,
    nonce,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
  return ledger.atomically(() => {
    ledger.nonces.commitNonce(chain.chainId, account.address, nonce)
    return ledger.transactions.recordSignedTransaction({
      chainId: chain.chainId,
      from: account.address,
      nonce,
      kind: 'gap-fill',
      hash: keccak256(raw),
      raw,
    })
  })
}

/** A manager for `account` over `ledger`, reading the chain at `rpcUrl`, started; its progress lines. */
function startManager(account: LocalAccount, ledger: Ledger, rpcUrl = chain.rpcUrl) {
  const reads = createChainClients({ chainId: chain.chainId, rpcUrl, readRetryCount: 0 })
  const sends = createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl, account })
  const progress: string[] = []
  const manager: TransactionManager = createTransactionManager({
    chainId: chain.chainId,
    ledger,
    account,
    publicClient: reads.publicClient,
    walletClient: sends.walletClient,
    settings: { ...defaultTransactionManagerSettings, ...testTransactionSettings, checkMs: 60_000 },
    timeToLandMs: () => 1_000,
    onEvent: (event) => {
      if (event.kind === 'recovery') progress.push(event.message.replace(`chain ${chain.chainId}: `, ''))
    },
  })
  manager.start()
  cleanups.push(() => manager.stop())
  return { manager, progress }
}

function newLedger() {
  const ledger = openLedger({ path: ledgers.path() })
  cleanups.push(() => ledger.close())
  return ledger
}

/** Polls `probe` every 20 ms until it is true (the test's own timeout bounds it). */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 20))
}

async function faultProxy(): Promise<RpcFaultProxy> {
  const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, faults: { errorRate: 1 } })
  cleanups.push(() => proxy.stop())
  return proxy
}

describe('recoverWallet: the next nonce', () => {
  it('is the chain’s when another program sent from the wallet and the ledger knows nothing', async () => {
    const { signer, walletClient, publicClient } = await wallet()
    for (const nonce of [0, 1]) {
      const hash = await walletClient.sendTransaction({ to: signer.address, value: 1n, nonce })
      await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    }
    const ledger = newLedger()
    const { manager, progress } = startManager(signer, ledger)
    await manager.ready()
    expect(progress).toEqual([
      'recovering: reading the wallet nonce',
      'recovering: no transaction pending, next nonce 2',
      'nonces sound, next nonce 2: trading',
    ])
    expect(manager.status()).toMatchObject({ state: 'ready', nextNonce: 2, gapsFilled: 0 })
    // The next transaction takes nonce 2, and lands.
    const sent = await manager.send(
      { kind: 'gap-fill', to: signer.address, data: '0x', gas: 21_000n },
      { executionId: null },
    )
    expect(sent.record.nonce).toBe(2)
    expect(await sent.broadcast).toMatchObject({ status: 'broadcast' })
    await direct().waitForTransactionReceipt({ hash: sent.record.hash, pollingInterval: 50 })
    expect(await getTransactionCount(direct(), { address: signer.address })).toBe(3)
  })

  it('a transaction a previous run stored and never sent is on the node by the time it is ready', async () => {
    const { signer } = await wallet()
    const ledger = newLedger()
    const stored = await storeSigned(ledger, signer, 0)
    const { manager, progress } = startManager(signer, ledger)
    await manager.ready()
    expect(progress).toEqual([
      'recovering: reading the wallet nonce',
      'recovering: 1 transaction(s) pending (nonces 0..0), next nonce 1',
      'nonces sound, next nonce 1: trading',
    ])
    // Sent again, the same bytes (anvil mines at once).
    const onNode = await getTransaction(direct(), { hash: stored.hash })
    expect(onNode.nonce).toBe(0)
    expect(manager.status().nextNonce).toBe(1)
  })

  it('a transaction mined in a block that a reorg took away while stopped is sent again before it is ready', async () => {
    const { signer } = await wallet()
    const ledger = newLedger()
    const stored = await storeSigned(ledger, signer, 0)
    const head = await direct().getBlockNumber({ cacheTime: 0 })
    const goneBlock: Hex = bytes32(`a block a reorg took away/${signer.address}`)
    ledger.transactions.markBroadcast(chain.chainId, stored.hash)
    ledger.transactions.markMined(chain.chainId, stored.hash, {
      blockNumber: head,
      blockHash: goneBlock,
      status: 'success',
    })
    const { manager, progress } = startManager(signer, ledger)
    await manager.ready()
    expect(progress).toEqual([
      'recovering: reading the wallet nonce',
      'recovering: no transaction pending, next nonce 1',
      'nonces sound, next nonce 1: trading',
    ])
    const onNode = await getTransaction(direct(), { hash: stored.hash })
    expect(onNode.blockHash).not.toBe(goneBlock)
    // Its reorg is recorded for the engine (its fill, if any, to be taken back).
    expect(
      ledger.transactionOutcomes
        .listOutcomes({ limit: 10 })
        .filter((outcome) => outcome.txHash === stored.hash)
        .map((outcome) => outcome.outcome),
    ).toContain('reorged')
  })
})

describe('recoverWallet: a node that cannot be reached', () => {
  it('reports each failure and retries after 500 ms, then 1000 ms, until the node answers', {
    timeout: 15_000,
  }, async () => {
    const { signer } = await wallet()
    const proxy = await faultProxy()
    const { manager, progress } = startManager(signer, newLedger(), proxy.url)
    await until(() => progress.some((line) => line.startsWith('recovery attempt 2 failed')))
    expect(manager.status().state).toBe('recovering')
    proxy.setFaults({})
    await manager.ready()
    expect(progress).toEqual([
      'recovering: reading the wallet nonce',
      expect.stringMatching(/^recovery attempt 1 failed \(.+\); retrying in 500 ms$/),
      'recovering: attempt 2',
      expect.stringMatching(/^recovery attempt 2 failed \(.+\); retrying in 1000 ms$/),
      'recovering: attempt 3',
      'recovering: no transaction pending, next nonce 0',
      'nonces sound, next nonce 0: trading',
    ])
    expect(manager.status()).toMatchObject({ state: 'ready', nextNonce: 0 })
  })

  it('stops retrying when the manager stops: the stop ends the recovery at its wait, which never says it is sound', async () => {
    const { signer } = await wallet()
    const proxy = await faultProxy()
    const { manager, progress } = startManager(signer, newLedger(), proxy.url)
    await until(() => progress.some((line) => line.startsWith('recovery attempt 1 failed')))
    await manager.stop()
    expect(manager.status().state).toBe('stopped')
    expect(progress).toEqual([
      'recovering: reading the wallet nonce',
      expect.stringMatching(/^recovery attempt 1 failed \(.+\); retrying in 500 ms$/),
    ])
  })
})
