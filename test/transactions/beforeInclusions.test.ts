import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'
import { defaultTransactionManagerSettings } from '../../src/transactions/index.js'
import { engineLedgers, testTransactionSettings } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { approveOneRequest, startTestManager } from '../helpers/transactionManager.js'

// The engine's held quotes go before the inclusions of transactions already sent: the manager
// awaits `beforeInclusions` with the receipts in hand, and records nothing until it resolves.

const ledgers = engineLedgers()

/** A promise and the function that resolves it. */
function signal<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

describe('beforeInclusions', () => {
  it('holds the recording of a mined transaction (status, outcome) until it resolves, and tells when it was seen', async () => {
    const chain = chainWithRouter()
    const asked = signal()
    const gate = signal()
    const included = signal()
    const { manager, ledger, publicClient, stop } = await startTestManager({
      chain,
      account: privateKeyToFastAccount(generatePrivateKey()),
      ledgerPath: ledgers.path(),
      // Only the block watcher records inclusions here: the periodic check would find it too.
      settings: { ...defaultTransactionManagerSettings, ...testTransactionSettings, checkMs: 600_000 },
      beforeInclusions: () => {
        asked.resolve()
        return gate.promise
      },
    })
    ledger.transactionOutcomes.onRecorded(() => included.resolve())
    try {
      const { record, broadcast } = await manager.send(approveOneRequest(chain), { executionId: null })
      expect((await broadcast).status).toBe('broadcast')
      // Mined at once (automine); the block watcher found it and asks before recording it.
      await asked.promise
      const receipt = await publicClient.getTransactionReceipt({ hash: record.hash })
      expect(receipt.status).toBe('success')
      // Not mined in the ledger yet (its broadcast is marked with the next commit: signed or broadcast).
      expect(['signed', 'broadcast']).toContain(
        ledger.transactions.getTransaction(chain.chainId, record.hash)?.status,
      )
      expect(ledger.transactionOutcomes.listOutcomes({ limit: 10 })).toEqual([])
      const openedAtMs = Date.now()
      gate.resolve()
      await included.promise
      const outcomes = ledger.transactionOutcomes.listOutcomes({ limit: 10 })
      expect(outcomes.map((outcome) => [outcome.txHash, outcome.outcome])).toEqual([
        [record.hash, 'included'],
      ])
      const [outcome] = outcomes
      if (outcome?.outcome !== 'included') throw new Error('no inclusion recorded')
      // The chain's time to include ends when the receipt was in hand, not when the wait ended.
      expect(outcome.block.seenAtMs).toBeLessThanOrEqual(openedAtMs)
      expect(ledger.transactions.getTransaction(chain.chainId, record.hash)).toMatchObject({
        status: 'mined',
        blockNumber: receipt.blockNumber,
      })
    } finally {
      gate.resolve()
      await stop()
    }
  })
})
