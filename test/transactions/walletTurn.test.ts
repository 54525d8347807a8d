import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'
import { TransactionManagerError } from '../../src/transactions/index.js'
import { engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { approveOneRequest, startTestManager } from '../helpers/transactionManager.js'

// A wallet turn, held by its caller: what it signs takes nonces only once the caller's own ledger
// transaction stored it and committed; a rolled-back commit or a check that throws leaves no nonce
// taken, and a stored bundle is never left unsent.

const ledgers = engineLedgers()

async function managerOfOwn() {
  const chain = chainWithRouter()
  const started = await startTestManager({
    chain,
    account: privateKeyToFastAccount(generatePrivateKey()),
    ledgerPath: ledgers.path(),
  })
  return { chain, ...started }
}

describe('a wallet turn', () => {
  it('takes no nonce when the commit that stores its bundle rolls back: the next send signs at it', async () => {
    const { chain, manager, ledger, stop } = await managerOfOwn()
    try {
      const first = manager.status().nextNonce
      const turn = await manager.takeTurn()
      try {
        const bundle = await turn.sign([approveOneRequest(chain), approveOneRequest(chain)], {
          executionId: null,
        })
        expect(() =>
          ledger.atomically(() => {
            turn.store(bundle)
            throw new Error('a risk limit breached in the same commit')
          }),
        ).toThrow('a risk limit breached')
        expect(() => turn.send(bundle)).toThrow(TransactionManagerError)
      } finally {
        turn.end()
      }
      expect(manager.status().nextNonce).toBe(first)
      expect(ledger.nonces.peekNextNonce(chain.chainId, manager.address) ?? 0).toBe(first)
      const { record, broadcast } = await manager.send(approveOneRequest(chain), { executionId: null })
      expect(record.nonce).toBe(first)
      expect((await broadcast).status).toBe('broadcast')
    } finally {
      await stop()
    }
  })

  it('refuses to send inside the ledger transaction that stores the bundle', async () => {
    const { chain, manager, ledger, stop } = await managerOfOwn()
    try {
      const turn = await manager.takeTurn()
      try {
        const bundle = await turn.sign([approveOneRequest(chain)], { executionId: null })
        ledger.atomically(() => {
          turn.store(bundle)
          expect(() => turn.send(bundle)).toThrow(/after the commit that stored the bundle/)
        })
        const { records, broadcast } = turn.send(bundle)
        expect((await broadcast)[0]?.status).toBe('broadcast')
        expect(manager.status().nextNonce).toBe((records[0]?.nonce ?? -1) + 1)
      } finally {
        turn.end()
      }
    } finally {
      await stop()
    }
  })

  it('sends a bundle stored and committed when its holder ends the turn without sending it', async () => {
    const { chain, manager, ledger, publicClient, stop } = await managerOfOwn()
    try {
      const turn = await manager.takeTurn()
      const bundle = await turn.sign([approveOneRequest(chain)], { executionId: null })
      const [record] = turn.store(bundle)
      turn.end()
      if (!record) throw new Error('nothing stored')
      expect(manager.status().nextNonce).toBe(record.nonce + 1)
      const receipt = await publicClient.waitForTransactionReceipt({ hash: record.hash, timeout: 10_000 })
      expect(receipt.status).toBe('success')
      expect(ledger.transactions.getTransaction(chain.chainId, record.hash)).toBeDefined()
    } finally {
      await stop()
    }
  })

  it('holds the critical section: a second turn, and a plain send, wait until the first ends', async () => {
    const { chain, manager, publicClient, stop } = await managerOfOwn()
    try {
      const turn = await manager.takeTurn()
      const order: string[] = []
      const second = manager.takeTurn().then((next) => {
        order.push('second turn')
        next.end()
      })
      const plain = manager.send(approveOneRequest(chain), { executionId: null }).then(({ record }) => {
        order.push(`send at ${record.nonce}`)
      })
      // The first turn signs and stores, and a call to the node goes there and back (the event
      // loop turns over on I/O): neither waiting caller got in meanwhile.
      const bundle = await turn.sign([approveOneRequest(chain)], { executionId: null })
      await publicClient.getBlockNumber({ cacheTime: 0 })
      const [mine] = turn.store(bundle)
      expect(order).toEqual([])
      turn.send(bundle)
      await Promise.all([second, plain])
      expect(order).toEqual(['second turn', `send at ${(mine?.nonce ?? -1) + 1}`])
      expect(() => turn.store(bundle)).toThrow(/ended/)
    } finally {
      await stop()
    }
  })
})
