import Database from 'better-sqlite3'
import { type Hex, keccak256, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { migrations, openLedger } from '../../src/store/index.js'
import { migrate } from '../../src/store/schemaVersion.js'
import { bytes32, intent, ledgerFolder } from './ledgerFiles.js'

// The hand-off from the transaction managers to the engine's settlement loop (migration 9): what
// the chain decided is kept in order until settled, survives a re-open, and a ledger of version 8
// gives its pending executes their quote's deadline.

const folder = ledgerFolder()
const account = privateKeyToAccount(bytes32('outcomes-test-signer'))
const txA = bytes32('tx A')
const txB = bytes32('tx B')
const block = {
  number: 41n,
  hash: bytes32('block 41'),
  timestamp: 1_750_000_000n,
  seenAtMs: 1_750_000_000_500,
}
const log = { address: account.address, topics: [bytes32('topic')], data: '0x01' as Hex, logIndex: 3 }

describe('transaction outcomes', () => {
  it('keeps outcomes in the order recorded, by chain, across a re-open, until each is deleted', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const included = ledger.transactionOutcomes.recordOutcome({
      chainId: 31337,
      txHash: txA,
      outcome: 'included',
      receipt: { status: 'success', logs: [log] },
      block,
    })
    ledger.transactionOutcomes.recordOutcome({
      chainId: 31338,
      txHash: txB,
      outcome: 'abandoned',
      reason: 'refused',
    })
    ledger.transactionOutcomes.recordOutcome({
      chainId: 31337,
      txHash: txA,
      outcome: 'reorged',
      reason: 'fork at 40',
    })
    ledger.close()

    const reopened = openLedger({ path })
    try {
      const all = reopened.transactionOutcomes.listOutcomes({ limit: 10 })
      expect(all.map((outcome) => [outcome.chainId, outcome.outcome])).toEqual([
        [31337, 'included'],
        [31338, 'abandoned'],
        [31337, 'reorged'],
      ])
      expect(all[0]).toEqual({ ...included, receipt: { status: 'success', logs: [log] }, block })
      expect(reopened.transactionOutcomes.listOutcomes({ chainIds: [31338], limit: 10 })).toMatchObject([
        { txHash: txB, outcome: 'abandoned', reason: 'refused' },
      ])
      expect(reopened.transactionOutcomes.listOutcomes({ limit: 1 })).toHaveLength(1)
      reopened.transactionOutcomes.deleteOutcome(included.id)
      reopened.transactionOutcomes.deleteOutcome(included.id)
      expect(reopened.transactionOutcomes.countOutcomes()).toBe(2)
    } finally {
      reopened.close()
    }
  })

  it('refuses an inclusion without its block, and stores a hash in lower case', () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      expect(() =>
        ledger.database
          .prepare(
            `INSERT INTO transaction_outcomes (chain_id, tx_hash, outcome, receipt_status, recorded_at_ms)
             VALUES (1, ?, 'included', 'success', 0)`,
          )
          .run(txA),
      ).toThrow(/CHECK constraint failed/)
      expect(() =>
        ledger.transactionOutcomes.recordOutcome({
          chainId: 1,
          txHash: txA.toUpperCase().replace('0X', '0x') as Hex,
          outcome: 'abandoned',
          reason: 'x',
        }),
      ).not.toThrow()
      expect(ledger.transactionOutcomes.listOutcomes({ limit: 1 })[0]?.txHash).toBe(txA)
    } finally {
      ledger.close()
    }
  })

  it('migration 9 gives an execute still on its way the expiry of its stored quote, and nothing to the others', async () => {
    const path = folder.path()
    const db = new Database(path)
    migrate(db, path, migrations.slice(0, 8), () => 0)
    const expiresAt = 1_750_000_010
    const quoteJson = JSON.stringify({ quoteId: bytes32('quote'), expiresAt })
    const { intentId } = intent('migration-9')
    db.prepare(
      `INSERT INTO executions (id, intent_id, chain_id, ticker, exchange, side, amount_in, amount_type, state, reason,
         quote_json, created_at_ms, updated_at_ms)
       VALUES (1, ?, 31337, 'AAPL', 0, 'buy', '1000', 'stablecoin', 'submitted', 'sent', ?, 0, 0)`,
    ).run(intentId, quoteJson)
    db.prepare(
      'INSERT INTO nonces (chain_id, address, next_nonce, updated_at_ms) VALUES (31337, ?, 3, 0)',
    ).run(account.address)
    const insert = db.prepare(
      `INSERT INTO transactions (execution_id, chain_id, from_address, nonce, kind, hash, raw, status, created_at_ms,
         updated_at_ms)
       VALUES (1, 31337, ?, ?, ?, ?, ?, ?, 0, 0)`,
    )
    const rows: [number, string, string][] = [
      [0, 'approve', 'broadcast'],
      [1, 'execute', 'broadcast'],
      [2, 'execute', 'failed'],
    ]
    for (const [nonce, kind, status] of rows) {
      const raw = await account.signTransaction({
        chainId: 31337,
        nonce,
        to: account.address,
        gas: 21_000n,
        maxFeePerGas: parseGwei('2'),
        maxPriorityFeePerGas: parseGwei('1'),
        type: 'eip1559',
      })
      insert.run(account.address, nonce, kind, keccak256(raw), raw, status)
    }
    db.close()

    const ledger = openLedger({ path })
    try {
      const deadlines = ledger.transactions
        .listTransactionsForExecution(1)
        .map((tx) => [tx.nonce, tx.deadlineMs])
      expect(deadlines).toEqual([
        [0, null],
        [1, expiresAt * 1000],
        [2, null],
      ])
    } finally {
      ledger.close()
    }
  })
})
