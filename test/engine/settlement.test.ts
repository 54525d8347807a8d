import { keccak256, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { ChainRuntime, EngineContext } from '../../src/engine/index.js'
import { defaultEngineSettings } from '../../src/engine/index.js'
import { createSettlementLoop, createSettlementWaiters } from '../../src/engine/settlement.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { engineLedgers } from '../helpers/engine.js'
import { bytes32, intent } from '../store/ledgerFiles.js'

// The settlement loop on a real ledger file: an outcome it cannot settle (here, an execution whose
// stored quote is unreadable) is undone alone and stays; the other transactions' outcomes are settled.

const ledgers = engineLedgers()
const chainId = 31337
const account = privateKeyToAccount(bytes32('settlement-test-signer'))

async function storedTransaction(ledger: Ledger, nonce: number, executionId?: number) {
  ledger.nonces.commitNonce(chainId, account.address, nonce)
  const raw = await account.signTransaction({
    chainId,
    nonce,
    to: account.address,
    gas: 21_000n,
    maxFeePerGas: parseGwei('2'),
    maxPriorityFeePerGas: parseGwei('1'),
    type: 'eip1559',
  })
  return ledger.transactions.recordSignedTransaction({
    executionId,
    chainId,
    from: account.address,
    nonce,
    kind: executionId === undefined ? 'gap-fill' : 'execute',
    hash: keccak256(raw),
    raw,
  })
}

describe('the settlement loop', () => {
  it('settles the outcomes it can and keeps, alone, one it cannot', async () => {
    const ledger = openLedger({ path: ledgers.path() })
    try {
      const execution = ledger.executions.createExecution(intent('unreadable-quote'))
      ledger.database
        .prepare(`UPDATE executions SET quote_json = '{"not":"a quote"}' WHERE id = ?`)
        .run(execution.id)
      const poisoned = await storedTransaction(ledger, 0, execution.id)
      const plain = await storedTransaction(ledger, 1)
      const block = { number: 5n, hash: bytes32('block 5'), timestamp: 1_750_000_000n }
      ledger.transactionOutcomes.recordOutcome({
        chainId,
        txHash: poisoned.hash,
        outcome: 'included',
        receipt: { status: 'success', logs: [] },
        block,
      })
      ledger.transactionOutcomes.recordOutcome({
        chainId,
        txHash: poisoned.hash,
        outcome: 'reorged',
        reason: 'after the inclusion: waits for it',
      })
      ledger.transactionOutcomes.recordOutcome({
        chainId,
        txHash: plain.hash,
        outcome: 'abandoned',
        reason: 'refused',
      })
      const errors: string[] = []
      const context = {
        ledger,
        settings: defaultEngineSettings,
        now: Date.now,
        hooks: {},
        logger: {
          debug() {},
          info() {},
          warn() {},
          error: (_: unknown, message: string) => errors.push(message),
        },
      } as unknown as EngineContext
      const chain = {
        chainId,
        executorAddress: account.address,
        broadcastTimes: new Map(),
      } as unknown as ChainRuntime
      const settlement = createSettlementLoop(
        context,
        { ids: () => [chainId], of: () => chain },
        createSettlementWaiters(),
      )
      await settlement.settleNow()
      await settlement.stop()
      expect(
        ledger.transactionOutcomes
          .listOutcomes({ limit: 10 })
          .map((outcome) => [outcome.txHash, outcome.outcome]),
      ).toEqual([
        [poisoned.hash, 'included'],
        [poisoned.hash, 'reorged'],
      ])
      expect(errors).toEqual(['could not settle a transaction outcome; it stays recorded and is tried again'])
    } finally {
      ledger.close()
    }
  })
})
