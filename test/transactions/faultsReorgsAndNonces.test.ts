import { encodeFunctionData, erc20Abi, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getTransactionCount } from 'viem/actions'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { clientsFor, fundAddress } from '../helpers/localChains.js'
import {
  buy,
  chain,
  chainClients,
  expectPositionsEqualBalances,
  running,
  startEngine,
  until,
  useFaultsChain,
} from './faultsChain.js'

// Blocks rewritten under a running engine (anvil_reorg, anvil_rollback), also below what a restarted
// run saw, and the nonces a restart finds: a gap left by a previous run, a nonce another program used.

const ledgers = useFaultsChain(31_378)

describe('reorgs', () => {
  it('a reorg that re-mines the execute in another block reverses its fill once and applies it again once', {
    timeout: 40_000,
  }, async () => {
    const { engine, ledger, account } = await startEngine()
    const outcome = await engine.execute(buy('reorged'))
    expect(outcome.execution.state).toBe('confirmed')
    // The mined one: on a loaded machine a slow watcher may have re-priced the execute first.
    const execute = outcome.transactions.find((tx) => tx.kind === 'execute' && tx.status === 'mined')
    if (!execute?.blockHash) throw new Error('no mined execute')
    const { testClient, publicClient } = chainClients()
    // Approval and execute are sent at once: anvil may mine them in one block, and the reorg must
    // then bring both back (the execute alone would wait for its approval's nonce).
    const sameBlock = outcome.transactions.filter((tx) => tx.blockHash === execute.blockHash)
    await testClient.request({
      method: 'anvil_reorg',
      params: [1, sameBlock.map((tx) => [tx.raw, 0])],
    } as never)
    const receipt = await publicClient.getTransactionReceipt({ hash: execute.hash })
    expect(receipt.blockHash).not.toBe(execute.blockHash)
    await until('the fill applied again', () => {
      const fills = ledger.fills.listFills({ executionId: outcome.execution.id, includeReversed: true })
      return fills.length === 2 && fills.some((fill) => fill.reversedAtMs === null) ? fills : undefined
    })
    const fills = ledger.fills.listFills({ executionId: outcome.execution.id, includeReversed: true })
    expect(fills.map((fill) => [fill.blockHash, fill.reversedAtMs === null])).toEqual([
      [execute.blockHash, false],
      [receipt.blockHash, true],
    ])
    const events = ledger.executions.listExecutionEvents(outcome.execution.id).map((event) => event.to)
    expect(events.slice(-3)).toEqual(['confirmed', 'submitted', 'confirmed'])
    expect(ledger.transactions.getTransaction(chain.chainId, execute.hash)?.blockHash).toBe(receipt.blockHash)
    await expectPositionsEqualBalances(ledger, account.address)
  })

  it('a rollback that removes the execute: its fill is reversed, the same bytes are sent again and the fill re-applied', {
    timeout: 40_000,
  }, async () => {
    const { engine, ledger, account } = await startEngine()
    const outcome = await engine.execute(buy('rolled-back'))
    const execute = outcome.transactions.find((tx) => tx.kind === 'execute')
    if (!execute?.blockNumber) throw new Error('no mined execute')
    const { testClient, publicClient } = chainClients()
    await testClient.request({ method: 'anvil_rollback', params: [1] } as never)
    await until('the execute mined again', async () => {
      const tx = ledger.transactions.getTransaction(chain.chainId, execute.hash)
      const live = ledger.fills.listFills({ executionId: outcome.execution.id })
      return tx?.status === 'mined' && tx.blockHash !== execute.blockHash && live.length === 1
        ? tx
        : undefined
    })
    const all = ledger.fills.listFills({ executionId: outcome.execution.id, includeReversed: true })
    expect(all.filter((fill) => fill.reversedAtMs !== null)).toHaveLength(1)
    expect(ledger.executions.getExecution(outcome.execution.id)?.state).toBe('confirmed')
    expect((await publicClient.getTransactionReceipt({ hash: execute.hash })).status).toBe('success')
    await expectPositionsEqualBalances(ledger, account.address)
  })
})

describe('reorgs after a restart', () => {
  it('a reorg reaching below the blocks this run saw re-checks the fills of before, and does not halt', {
    timeout: 40_000,
  }, async () => {
    const first = await startEngine()
    const ledgerPath = first.ledger.path
    const outcome = await first.engine.execute(buy('before-restart'))
    expect(outcome.execution.state).toBe('confirmed')
    const execute = outcome.transactions.find((tx) => tx.kind === 'execute')
    if (!execute?.blockNumber) throw new Error('no mined execute')
    await first.engine.close()
    first.ledger.close()
    running.splice(0)

    const { testClient, publicClient } = chainClients()
    const second = await startEngine({ privateKey: first.privateKey, ledgerPath })
    await second.recovery
    await testClient.mine({ blocks: 1 })
    const head = await publicClient.getBlockNumber({ cacheTime: 0 })
    // Replace every block from the execute's up: the watcher of this run never saw the execute's.
    const depth = Number(head - execute.blockNumber) + 1
    await testClient.request({ method: 'anvil_reorg', params: [depth, [[execute.raw, 0]]] } as never)
    const moved = await until('the execute recorded in its new block', () => {
      const tx = second.ledger.transactions.getTransaction(chain.chainId, execute.hash)
      return tx?.status === 'mined' && tx.blockHash !== execute.blockHash ? tx : undefined
    })
    const receipt = await publicClient.getTransactionReceipt({ hash: execute.hash })
    expect(moved.blockHash).toBe(receipt.blockHash)
    const fills = second.ledger.fills.listFills({ executionId: outcome.execution.id, includeReversed: true })
    expect(fills.map((fill) => fill.reversedAtMs === null)).toEqual([false, true])
    expect(second.ledger.risk.killSwitch().halted).toBe(false)
    expect(second.ledger.executions.getExecution(outcome.execution.id)?.state).toBe('confirmed')
    await expectPositionsEqualBalances(second.ledger, second.account.address)
  })
})

describe('recovery of the nonces', () => {
  it('fills a nonce gap left below a stored transaction with a zero-value self-transfer', {
    timeout: 30_000,
  }, async () => {
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    await fundAddress(chain, account.address, { asset: '1000' })
    const ledgerPath = ledgers.path()
    // A previous run: nonce 0 refused by the node (failed), nonce 1 an approval stored, never sent.
    const previous = openLedger({ path: ledgerPath })
    const fees = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
    const sign = (nonce: number) =>
      account.signTransaction({
        chainId: chain.chainId,
        type: 'eip1559',
        to: chain.defaultAsset.address,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [chain.executorAddress, BigInt(nonce + 1)],
        }),
        nonce,
        gas: 100_000n,
        ...fees,
      })
    for (const nonce of [0, 1]) {
      const raw = await sign(nonce)
      previous.atomically(() => {
        previous.nonces.commitNonce(chain.chainId, account.address, nonce)
        previous.transactions.recordSignedTransaction({
          chainId: chain.chainId,
          from: account.address,
          nonce,
          kind: 'approve',
          hash: keccak256(raw),
          raw,
        })
      })
      if (nonce === 0) previous.transactions.markFailed(chain.chainId, keccak256(raw), 'refused: test')
    }
    previous.close()

    const { engine, ledger } = await startEngine({ privateKey, ledgerPath })
    await engine.chains.get(chain.chainId)?.wallets[0]?.transactions.ready()
    const gapFill = await until('the gap filled and mined', () =>
      ledger.transactions
        .listTransactionsAtNonce(chain.chainId, account.address, 0)
        .find((tx) => tx.kind === 'gap-fill' && tx.status === 'mined'),
    )
    expect(gapFill.nonce).toBe(0)
    const approval = await until('the stored approval mined', () =>
      ledger.transactions
        .listTransactionsAtNonce(chain.chainId, account.address, 1)
        .find((tx) => tx.kind === 'approve' && tx.status === 'mined'),
    )
    expect(approval.nonce).toBe(1)
    const { publicClient } = chainClients()
    expect(await getTransactionCount(publicClient, { address: account.address })).toBe(2)
    expect(ledger.nonces.peekNextNonce(chain.chainId, account.address)).toBe(2)
    expect(engine.transactionStatus()[0]?.gapsFilled).toBe(1)
  })

  it('names the transaction of another program that used a stored nonce, and drops ours', {
    timeout: 30_000,
  }, async () => {
    const privateKey = generatePrivateKey()
    const account = privateKeyToAccount(privateKey)
    await fundAddress(chain, account.address, { asset: '1000' })
    const ledgerPath = ledgers.path()
    const previous = openLedger({ path: ledgerPath })
    const raw = await account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      to: chain.defaultAsset.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [chain.executorAddress, 5n] }),
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    previous.atomically(() => {
      previous.nonces.commitNonce(chain.chainId, account.address, 0)
      previous.transactions.recordSignedTransaction({
        chainId: chain.chainId,
        from: account.address,
        nonce: 0,
        kind: 'approve',
        hash: keccak256(raw),
        raw,
      })
    })
    previous.close()
    // Another program sends from the same wallet first, at nonce 0.
    const wallet = clientsFor(chain, privateKey)
    const foreign = await wallet.walletClient.sendTransaction({ to: account.address, value: 1n })
    await wallet.publicClient.waitForTransactionReceipt({ hash: foreign })

    const { engine, ledger } = await startEngine({ privateKey, ledgerPath })
    await engine.chains.get(chain.chainId)?.wallets[0]?.transactions.ready()
    const ours = ledger.transactions.getTransaction(chain.chainId, keccak256(raw))
    expect(ours?.status).toBe('dropped')
    expect(ours?.error).toContain(foreign)
    expect(ours?.error).toMatch(/another program sends from this wallet/)
    expect(engine.transactionStatus()[0]?.nextNonce).toBe(1)
  })
})
