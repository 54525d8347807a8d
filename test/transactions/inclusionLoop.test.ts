import { type Hex, keccak256, parseGwei, type TransactionReceipt } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { openLedger, type TransactionRecord } from '../../src/store/index.js'
import { commitInclusion, includeFromBlocks } from '../../src/transactions/inclusionLoop.js'
import type { ManagerCore } from '../../src/transactions/managerCore.js'
import { bytes32, ledgerFolder } from '../store/ledgerFiles.js'

// The inclusions' one door (commitInclusion), on a real ledger file: which receipt may record a
// transaction mined, and which must wait for the block watcher. The race it guards was seen under
// load in faultsReorgsAndNonces.test.ts: a check read the receipt after a reorg, from a list taken
// before the first inclusion, moved the transaction to the new block, and the reorg then took back
// that block's fill (reversed and written again).

const folder = ledgerFolder()
const chainId = 31337
const account = privateKeyToAccount(bytes32('follow-transactions-test-signer'))
const blockA = bytes32('block A')
const blockB = bytes32('block B')

async function broadcastIn(ledger: ReturnType<typeof openLedger>): Promise<TransactionRecord> {
  const nonce = ledger.nonces.peekNextNonce(chainId, account.address) ?? 0
  ledger.nonces.commitNonce(chainId, account.address, nonce)
  const raw = await account.signTransaction({
    chainId,
    nonce,
    to: '0x1000000000000000000000000000000000000001',
    gas: 21_000n,
    maxFeePerGas: parseGwei('2'),
    maxPriorityFeePerGas: parseGwei('1'),
    type: 'eip1559',
  })
  ledger.transactions.recordSignedTransaction({
    chainId,
    from: account.address,
    nonce,
    kind: 'gap-fill',
    hash: keccak256(raw),
    raw,
  })
  return ledger.transactions.markBroadcast(chainId, keccak256(raw))
}

/** The part of a manager's core an inclusion touches; `included()` reads the outcomes it recorded for the engine. */
function coreOver(ledger: ReturnType<typeof openLedger>) {
  let told = 0
  ledger.transactionOutcomes.onRecorded(() => {
    told += 1
  })
  const core = {
    ledger,
    chainId,
    onReceipt() {},
    markBroadcasts() {},
    emit() {},
  } as unknown as ManagerCore
  const included = () =>
    ledger.transactionOutcomes
      .listOutcomes({ limit: 100 })
      .flatMap((outcome) =>
        outcome.outcome === 'included'
          ? [{ hash: outcome.txHash, blockHash: outcome.block.hash as Hex | null }]
          : [],
      )
  return { core, included, told: () => told }
}

const receiptIn = (blockHash: Hex) =>
  ({ status: 'success', blockHash, blockNumber: 12n, logs: [] }) as unknown as TransactionReceipt

describe('commitInclusion', () => {
  it('records a broadcast transaction mined in the block its receipt names, once', async () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      const { core, included, told } = coreOver(ledger)
      const tx = await broadcastIn(ledger)
      const block = { number: 12n, hash: blockA, timestamp: 1_700_000_000n }
      expect(commitInclusion(core, tx, receiptIn(blockA), block)).toBe(true)
      // The block watcher and a check can both see it: the second is nothing.
      expect(commitInclusion(core, tx, receiptIn(blockA), block)).toBe(false)
      expect(included()).toEqual([{ hash: tx.hash, blockHash: blockA }])
      expect(told()).toBe(1)
      expect(ledger.transactions.getTransaction(chainId, tx.hash)).toMatchObject({
        status: 'mined',
        blockHash: blockA,
      })
    } finally {
      ledger.close()
    }
  })

  it('leaves a mined transaction in its block when a receipt read later names another (only a reported reorg moves it)', async () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      const { core, included } = coreOver(ledger)
      const stale = await broadcastIn(ledger)
      expect(
        commitInclusion(core, stale, receiptIn(blockA), { number: 12n, hash: blockA, timestamp: 1n }),
      ).toBe(true)
      // The check's list was taken while it was broadcast; its receipt came after a reorg re-mined it.
      expect(
        commitInclusion(core, stale, receiptIn(blockB), { number: 12n, hash: blockB, timestamp: 2n }),
      ).toBe(false)
      expect(included().map((entry) => entry.blockHash)).toEqual([blockA])
      expect(ledger.transactions.getTransaction(chainId, stale.hash)).toMatchObject({
        status: 'mined',
        blockHash: blockA,
      })
    } finally {
      ledger.close()
    }
  })
})

describe('includeFromBlocks', () => {
  it('records the version a block mined at a replaced nonce, the replaced one included (a speed-up that lost the race)', async () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      const { core, included } = coreOver(ledger)
      const original = await broadcastIn(ledger)
      const raw = await account.signTransaction({
        chainId,
        nonce: original.nonce,
        to: '0x1000000000000000000000000000000000000001',
        gas: 21_000n,
        maxFeePerGas: parseGwei('3'),
        maxPriorityFeePerGas: parseGwei('2'),
        type: 'eip1559',
      })
      const speedUp = ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce: original.nonce,
        kind: 'gap-fill',
        hash: keccak256(raw),
        raw,
        replaces: original.hash,
      })
      const block = {
        number: 12n,
        hash: blockA,
        parentHash: blockB,
        timestamp: 1n,
        baseFeePerGas: null,
        transactions: [original.hash],
      }
      const following = {
        ...core,
        address: account.address,
        now: Date.now,
        beforeInclusions: () => Promise.resolve(),
        signal: new AbortController().signal,
        earlyReceipts: { ask() {}, take: () => Promise.resolve(receiptIn(blockA)) },
      } as unknown as ManagerCore
      await includeFromBlocks(following, [block])
      expect(ledger.transactions.getTransaction(chainId, original.hash)).toMatchObject({
        status: 'mined',
        blockHash: blockA,
      })
      expect(ledger.transactions.getTransaction(chainId, speedUp.hash)?.status).toBe('replaced')
      expect(included()).toEqual([{ hash: original.hash, blockHash: blockA }])
    } finally {
      ledger.close()
    }
  })
})
