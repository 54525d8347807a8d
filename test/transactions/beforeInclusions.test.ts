import { encodeFunctionData, erc20Abi } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'
import { openLedger } from '../../src/store/index.js'
import { createTransactionManager, defaultTransactionManagerSettings } from '../../src/transactions/index.js'
import { engineLedgers, testTransactionSettings } from '../helpers/engine.js'
import { chainWithRouter, fundAddress } from '../helpers/localChains.js'

// The engine's held quotes go before the inclusions of transactions already sent: the manager
// awaits `beforeInclusions` with the receipts in hand, and records nothing until it resolves.

const ledgers = engineLedgers()

describe('beforeInclusions', () => {
  it('holds the recording of a mined transaction (status, handler) until it resolves, and tells when it was seen', async () => {
    const chain = chainWithRouter()
    const account = privateKeyToFastAccount(generatePrivateKey())
    await fundAddress(chain, account.address)
    const ledger = openLedger({ path: ledgers.path() })
    const { publicClient, walletClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      account,
    })
    let asked!: () => void
    const gateAsked = new Promise<void>((resolve) => {
      asked = resolve
    })
    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    let included!: () => void
    const wasIncluded = new Promise<void>((resolve) => {
      included = resolve
    })
    const handled: string[] = []
    let seenAtMs: number | undefined
    const manager = createTransactionManager({
      chainId: chain.chainId,
      ledger,
      account,
      publicClient,
      walletClient,
      // Only the block watcher records inclusions here: the periodic check would find it too.
      settings: { ...defaultTransactionManagerSettings, ...testTransactionSettings, checkMs: 600_000 },
      handler: {
        included(tx, _receipt, block) {
          handled.push(tx.hash)
          seenAtMs = block.seenAtMs
          included()
        },
        reorged() {},
        abandoned() {},
        deadlineOf: () => undefined,
      },
      inclusionMs: () => 1_000,
      beforeInclusions: () => {
        asked()
        return gate
      },
    })
    manager.start()
    try {
      await manager.ready()
      const { records, broadcast } = await manager.sendAll(
        () => [
          {
            kind: 'approve',
            to: chain.defaultAsset.address,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: 'approve',
              args: [chain.executorAddress, 1n],
            }),
            gas: 100_000n,
          },
        ],
        { executionId: null },
      )
      const [record] = records
      if (!record) throw new Error('no transaction signed')
      expect((await broadcast)[0]?.status).toBe('broadcast')
      // Mined at once (automine); the block watcher found it and asks before recording it.
      await gateAsked
      const receipt = await publicClient.getTransactionReceipt({ hash: record.hash })
      expect(receipt.status).toBe('success')
      // Not mined in the ledger yet (its broadcast is marked with the next commit: signed or broadcast).
      expect(['signed', 'broadcast']).toContain(
        ledger.transactions.getTransaction(chain.chainId, record.hash)?.status,
      )
      expect(handled).toEqual([])
      const openedAtMs = Date.now()
      open()
      await wasIncluded
      expect(handled).toEqual([record.hash])
      // The chain's time to include ends when the receipt was in hand, not when the wait ended.
      expect(seenAtMs).toBeLessThanOrEqual(openedAtMs)
      expect(ledger.transactions.getTransaction(chain.chainId, record.hash)).toMatchObject({
        status: 'mined',
        blockNumber: receipt.blockNumber,
      })
    } finally {
      open()
      await manager.stop()
      ledger.close()
    }
  })
})
