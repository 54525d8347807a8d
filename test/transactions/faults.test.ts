import { encodeFunctionData, erc20Abi, type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { getTransaction, getTransactionCount } from 'viem/actions'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createServiceClient } from '../../src/api/createServiceClient.js'
import { createEngine, type Engine, type EngineSettings, type SwapIntent } from '../../src/engine/index.js'
import { type LocalChain, type LocalChains, startLocalChains } from '../../src/sandbox/localChains.js'
import { type SandboxService, startSandboxService } from '../../src/sandbox/service/startSandboxService.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import type { TransactionManagerSettings } from '../../src/transactions/index.js'
import { engineChainsOf, engineLedgers, settlementsOf, testEngineSettings } from '../helpers/engine.js'
import { clientsFor, fundAddress } from '../helpers/localChains.js'

// The transaction manager against faults the sandbox chain really produces: anvil with automine
// off (a transaction waits in the pool), anvil_dropTransaction (the node forgets it), anvil_reorg and
// anvil_rollback (its block is replaced or removed), a transaction of another program at our nonce.
// The file runs a chain of its own, since it stops mining and rewrites blocks.

let local: LocalChains
let service: SandboxService
let chain: LocalChain
const ledgers = engineLedgers()
const running: { engine: Engine; ledger: Ledger }[] = []

beforeAll(async () => {
  local = await startLocalChains({
    specs: [
      {
        chainId: 31_377,
        name: 'Sandbox Faults',
        withPlatformRouter: true,
        assets: [{ symbol: 'USDC', name: 'USD Coin (sandbox)', decimals: 6, zeroAllowanceFirst: false }],
      },
    ],
  })
  service = await startSandboxService({ local })
  const [only] = local.chains
  if (!only) throw new Error('no chain')
  chain = only
}, 60_000)
afterEach(async () => {
  const { testClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  await testClient.setAutomine(true)
  for (const { engine, ledger } of running.splice(0)) {
    await engine.close()
    ledger.close()
  }
})
afterAll(async () => {
  await service?.stop()
  await local?.stop()
})

/** An engine over a new ledger for a new funded wallet, recovered. */
async function startEngine(
  parameters: {
    privateKey?: Hex
    ledgerPath?: string
    settings?: Partial<EngineSettings>
    transactions?: Partial<TransactionManagerSettings>
  } = {},
) {
  const privateKey = parameters.privateKey ?? generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  if (!parameters.privateKey) await fundAddress(chain, account.address, { asset: '100000' })
  const ledger = openLedger({ path: parameters.ledgerPath ?? ledgers.path() })
  const engine = await createEngine({
    ledger,
    service: createServiceClient({
      baseUrl: service.url,
      credentials: service.credential,
      makerAddress: account.address,
    }),
    account,
    chains: engineChainsOf(local.chains).map((config) => ({
      ...config,
      transactions: { ...config.transactions, ...parameters.transactions },
    })),
    settings: { ...testEngineSettings, cancelGraceMs: 500, ...parameters.settings },
  })
  running.push({ engine, ledger })
  const recovery = engine.recover()
  return { engine, ledger, account, privateKey, recovery }
}

const buy = (intentId: string, amountIn = '1000'): SwapIntent => ({
  intentId,
  chainId: chain.chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn,
})

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const chainClients = () => clientsFor(chain, chain.roles.deployer.privateKey)

async function expectPositionsEqualBalances(ledger: Ledger, owner: `0x${string}`) {
  const { publicClient } = chainClients()
  for (const position of ledger.positions.listPositions()) {
    const onChain = await publicClient.readContract({
      address: position.tokenAddress,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })
    expect(position.balance).toBe(onChain)
  }
}

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
    const { engine, ledger, account } = await startEngine({
      transactions: { checkMs: 20, stuckAfterMs: 60_000 },
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
    await new Promise((resolve) => setTimeout(resolve, 100))
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
    const cancel = await until('a cancel', () =>
      ledger.transactions
        .listUnresolvedTransactions(chain.chainId, account.address)
        .find((tx) => tx.kind === 'cancel'),
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
