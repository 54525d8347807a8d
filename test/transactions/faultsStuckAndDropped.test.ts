import { startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getTransaction, getTransactionCount } from 'viem/actions'
import { describe, expect, it, onTestFinished } from 'vitest'
import { readStoredQuoteForTest, settlementsOf } from '../helpers/engine.js'
import { clientsFor, fundAddress } from '../helpers/localChains.js'
import {
  advanceClocks,
  buy,
  chain,
  chainClients,
  expectPositionsEqualBalances,
  fileNow,
  startEngine,
  until,
  useFaultsChain,
} from './faultsChain.js'

// Transactions that wait in the pool of a chain with automine off: re-priced when stuck, sent again
// when dropped, cancelled when their quote would expire first, and overlapping executions.

useFaultsChain(31_377)

describe('stuck and dropped transactions (automine off)', () => {
  it('re-prices a stuck execute at the same nonce, and the replacement lands', {
    timeout: 40_000,
  }, async () => {
    const { engine, ledger, account } = await startEngine({ transactions: { stuckAfterMs: 1_000 } })
    await chainClients().testClient.setAutomine(false)
    const done = engine.execute(buy('stuck'))
    const speedUp = await until('a re-priced execute', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'execute' && tx.replacesId !== null),
    )
    // The replacement is in the ledger before it is sent: mine only once the node holds it, or the
    // block takes the original (seen on a loaded CI machine).
    const { publicClient } = chainClients()
    await until('the re-priced execute in the pool', () =>
      getTransaction(publicClient, { hash: speedUp.hash }).then(
        (tx) => tx ?? undefined,
        () => undefined,
      ),
    )
    await chainClients().testClient.mine({ blocks: 1 })
    const outcome = await done
    expect(outcome.execution.state).toBe('confirmed')
    // The approval waited in the pool too, so it may have been re-priced as well: per nonce, one mined.
    expect(
      outcome.transactions
        .filter((tx) => tx.kind === 'execute')
        .map((tx) => [tx.hash === speedUp.hash, tx.status]),
    ).toEqual([
      [false, 'replaced'],
      [true, 'mined'],
    ])
    const nonces = new Set(outcome.transactions.map((tx) => tx.nonce))
    for (const nonce of nonces)
      expect(outcome.transactions.filter((tx) => tx.nonce === nonce && tx.status === 'mined')).toHaveLength(1)
    expect(await settlementsOf(chain, account.address)).toHaveLength(1)
    await expectPositionsEqualBalances(ledger, account.address)
  })

  it('leaves alone a transaction the node accepted moments ago whose mark is not written yet', {
    timeout: 40_000,
  }, async () => {
    // Checks every 20 ms: several fall between the node's answer and the mark (written within 200 ms).
    // The engine reaches the chain through a proxy that counts its calls (no fault set).
    const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl })
    onTestFinished(() => proxy.stop())
    const { engine, ledger, account } = await startEngine({
      transactions: { checkMs: 20, stuckAfterMs: 60_000 },
      rpcUrl: proxy.url,
    })
    const { testClient, publicClient } = chainClients()
    await testClient.setAutomine(false)
    const done = engine.execute(buy('just-sent'))
    const execute = await until('the execute signed', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'execute'),
    )
    await until('the execute in the pool', () =>
      getTransaction(publicClient, { hash: execute.hash }).then(
        (tx) => tx ?? undefined,
        () => undefined,
      ),
    )
    await until('the execute marked broadcast', () =>
      ledger.transactions.getTransaction(chain.chainId, execute.hash)?.status === 'broadcast'
        ? true
        : undefined,
    )
    // Each pending check asks the node for the execute, one check at a time: the third such call
    // after the mark means the checks that ran across the mark, and one wholly after it, are over.
    const askedForIt = () => proxy.stats().byMethod.eth_getTransactionByHash?.requests ?? 0
    const atMark = askedForIt()
    await until('two whole pending checks after the mark', () => askedForIt() >= atMark + 3)
    const [status] = engine.transactionStatus().filter((wallet) => wallet.address === account.address)
    expect(status?.rebroadcasts).toBe(0)
    await testClient.mine({ blocks: 1 })
    expect((await done).execution.state).toBe('confirmed')
  })

  it('sends a dropped execute again, the same bytes, while its quote can still land', {
    timeout: 40_000,
  }, async () => {
    const { engine, ledger, account } = await startEngine({ transactions: { stuckAfterMs: 60_000 } })
    const { testClient, publicClient } = chainClients()
    await testClient.setAutomine(false)
    const done = engine.execute(buy('dropped'))
    const execute = await until('the execute broadcast', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'execute' && tx.status === 'broadcast'),
    )
    await testClient.request({ method: 'anvil_dropTransaction', params: [execute.hash] } as never)
    expect(await getTransaction(publicClient, { hash: execute.hash }).catch(() => null)).toBeNull()
    await until('the execute back in the pool', () =>
      getTransaction(publicClient, { hash: execute.hash }).then(
        (tx) => tx ?? undefined,
        () => undefined,
      ),
    )
    await testClient.mine({ blocks: 1 })
    const outcome = await done
    expect(outcome.execution.state).toBe('confirmed')
    expect(
      outcome.transactions.filter((tx) => tx.kind === 'execute').map((tx) => [tx.hash, tx.status]),
    ).toEqual([[execute.hash, 'mined']])
  })

  it('cancels with a self-transfer at the same nonce an execute that can no longer land before its quote expires', {
    timeout: 40_000,
  }, async () => {
    const { engine, ledger, account } = await startEngine({ transactions: { stuckAfterMs: 60_000 } })
    const { testClient, publicClient } = chainClients()
    await testClient.setAutomine(false)
    const done = engine.execute(buy('expires'))
    const execute = await until('the execute broadcast', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'execute' && tx.status === 'broadcast'),
    )
    // Nothing mines while its quote runs out: the clocks skip to 0.7–1.7 s before its deadline, still
    // ahead of the last check's stretch (300 ms before it), which the checks must then fall in.
    if (execute.deadlineMs === null) throw new Error('an execute with no deadline')
    await advanceClocks(Math.max(0, Math.floor((execute.deadlineMs - 700 - fileNow()) / 1000)))
    expect(
      ledger.transactions.listTransactionsAtNonce(chain.chainId, account.address, execute.nonce),
    ).toEqual([execute])
    const cancel = await until('a cancel', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'cancel'),
    )
    // Stored before it is sent: a block mined before the node has it would mine the execute.
    await until('the cancel in the pool', () =>
      getTransaction(publicClient, { hash: cancel.hash }).then(
        (tx) => tx ?? undefined,
        () => undefined,
      ),
    )
    await testClient.mine({ blocks: 1 })
    const outcome = await done
    expect(outcome.execution.state).toBe('expired')
    expect(outcome.execution.reason).toMatch(
      /^execute cancelled by replacement 0x[0-9a-f]{64} in block \d+: it was not mined before the quote expired$/,
    )
    expect(outcome.transactions.map((tx) => [tx.kind, tx.status])).toEqual([
      ['approve', 'mined'],
      ['execute', 'replaced'],
      ['cancel', 'mined'],
    ])
    expect(outcome.transactions[2]?.hash).toBe(cancel.hash)
    // Signed at the last check before its deadline (the quote's expiry and this file's 500 ms of
    // grace), not after it: a block that came between the deadline and a later cancel would have
    // mined the execute to revert.
    expect(cancel.createdAtMs).toBeLessThan(readStoredQuoteForTest(outcome.execution).expiresAt * 1000 + 500)
    expect(outcome.fills).toEqual([])
    expect(await settlementsOf(chain, account.address)).toEqual([])
    expect(await getTransactionCount(publicClient, { address: account.address })).toBe(2)
  })

  it('overlapping executions of one token do not revert: the second approves what the first will spend', {
    timeout: 40_000,
  }, async () => {
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    await fundAddress(chain, account.address, { asset: '100000' })
    // An allowance for one trade, on chain before the engine starts.
    const wallet = clientsFor(chain, privateKey)
    const hash = await wallet.walletClient.writeContract({
      address: chain.defaultAsset.address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [chain.executorAddress, 1_000_000_000n],
    })
    await wallet.publicClient.waitForTransactionReceipt({ hash })
    const { engine, ledger } = await startEngine({ privateKey, transactions: { stuckAfterMs: 60_000 } })
    const { testClient } = chainClients()
    await testClient.setAutomine(false)
    const first = engine.execute(buy('overlap-1'))
    await until('the first execute broadcast', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'execute' && tx.status === 'broadcast'),
    )
    const second = engine.execute(buy('overlap-2'))
    await until('the second execute broadcast', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .filter((tx) => tx.kind === 'execute' && tx.status === 'broadcast')
        .at(1),
    )
    await testClient.mine({ blocks: 1 })
    const outcomes = await Promise.all([first, second])
    expect(outcomes.map((outcome) => outcome.execution.state)).toEqual(['confirmed', 'confirmed'])
    expect(outcomes[0]?.transactions.map((tx) => tx.kind)).toEqual(['execute'])
    expect(outcomes[1]?.transactions.map((tx) => tx.kind)).toEqual(['approve', 'execute'])
    await expectPositionsEqualBalances(ledger, account.address)
  })
})
