import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { decodeFunctionData, erc20Abi, type Hex, isAddressEqual, parseTransaction } from 'viem'
import { getTransaction, getTransactionCount } from 'viem/actions'
import { afterEach, describe, expect, it } from 'vitest'
import { terminalExecutionStates } from '../../src/store/executionStates.js'
import type { Ledger, TransactionRecord } from '../../src/store/index.js'
import { readStoredQuoteForTest, settlementsOf } from '../helpers/engine.js'
import {
  advanceClocks,
  alignChainClock,
  buy,
  chain,
  chainClients,
  expectPositionsEqualBalances,
  fileNow,
  startEngine,
  until,
  useFaultsChain,
} from './faultsChain.js'

// Blocks that batch several of our transactions (interval mining, a block every 2 s) on a chain
// whose asset refuses to change a non-zero allowance (USDT-like). What is signed behind an
// unresolved transaction must hold whichever way that one ends: an execute cancelled after its
// approval landed (withheld by the fault proxy, so the node never has it), an execute a reorg puts
// back in the pool after its quote expired. No transaction of ours may revert.

useFaultsChain(31_378, {
  symbol: 'USDT',
  name: 'Tether USD (sandbox)',
  decimals: 6,
  zeroAllowanceFirst: true,
})

const proxies: RpcFaultProxy[] = []
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()))
})

/** The amount an approval of ours sets, from the signed bytes the ledger keeps. */
const approvedAmount = (tx: TransactionRecord) => {
  const call = decodeFunctionData({ abi: erc20Abi, data: parseTransaction(tx.raw).data ?? '0x' })
  return call.functionName === 'approve' ? call.args[1] : undefined
}

/** Every transaction of `owner` the chain mined since `fromBlock`, with its receipt's status. */
async function minedOnChain(owner: Hex, fromBlock: bigint) {
  const { publicClient } = chainClients()
  const head = await publicClient.getBlockNumber({ cacheTime: 0 })
  const mined: { hash: Hex; nonce: number; to: Hex | null; status: 'success' | 'reverted'; block: bigint }[] =
    []
  for (let number = fromBlock; number <= head; number++) {
    const block = await publicClient.getBlock({ blockNumber: number, includeTransactions: true })
    for (const tx of block.transactions) {
      if (!isAddressEqual(tx.from, owner)) continue
      const receipt = await publicClient.getTransactionReceipt({ hash: tx.hash })
      mined.push({ hash: tx.hash, nonce: tx.nonce, to: tx.to, status: receipt.status, block: number })
    }
  }
  return mined
}

/** Ledger and chain agree: every nonce mined once, the same transactions, fills = settlements, positions = balances. */
async function expectLedgerEqualsChain(ledger: Ledger, owner: Hex, fromBlock: bigint) {
  const { publicClient } = chainClients()
  const onChain = await minedOnChain(owner, fromBlock)
  const reverted = onChain.filter((tx) => tx.status === 'reverted')
  expect(
    reverted,
    `reverted on chain: ${JSON.stringify(reverted, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
  ).toEqual([])
  const minedInLedger = ledger.transactions
    .listMinedTransactions(chain.chainId, { fromBlock })
    .filter((tx) => isAddressEqual(tx.from, owner))
  expect(minedInLedger.map((tx) => tx.hash).sort()).toEqual(onChain.map((tx) => tx.hash).sort())
  expect(minedInLedger.every((tx) => tx.receiptStatus === 'success')).toBe(true)
  expect(new Set(onChain.map((tx) => tx.nonce)).size).toBe(onChain.length)
  expect(ledger.transactions.listUnresolvedTransactions(chain.chainId, owner)).toEqual([])
  expect(await getTransactionCount(publicClient, { address: owner, blockTag: 'latest' })).toBe(onChain.length)
  const fills = ledger.fills.listFills({ chainId: chain.chainId })
  expect(fills.length).toBe((await settlementsOf(chain, owner, fromBlock)).length)
  await expectPositionsEqualBalances(ledger, owner)
}

describe('batched blocks on a reset-first asset', () => {
  it('20 buys at once, one execute cancelled after its approval landed: no transaction reverts', {
    timeout: 120_000,
  }, async () => {
    const { publicClient, testClient } = chainClients()
    const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl })
    proxies.push(proxy)
    // The first execute the engine sends, and every send of it again, never reach the node: its
    // approval lands, and it is cancelled at its nonce once its quote can no longer be met.
    let victim: number | undefined
    proxy.withholdTransactions((tx) => {
      if (!tx.to || !isAddressEqual(tx.to, chain.executorAddress)) return false
      victim ??= tx.nonce
      return tx.nonce === victim
    })
    const { engine, ledger, account, recovery } = await startEngine({ rpcUrl: proxy.url })
    await recovery
    const fromBlock = (await publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    await testClient.setAutomine(false)
    await testClient.setIntervalMining({ interval: 2 })
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => engine.execute(buy(`batched-${index}`, '300'))),
    )
    for (const { execution } of outcomes)
      expect(terminalExecutionStates as readonly string[], `${execution.id}: ${execution.reason}`).toContain(
        execution.state,
      )
    expect(proxy.stats().withheld).toBeGreaterThan(0)
    const all = outcomes.flatMap((outcome) => outcome.transactions)
    const withheld = all.find((tx) => tx.kind === 'execute' && tx.nonce === victim)
    const victimOutcome = outcomes.find((outcome) => outcome.execution.id === withheld?.executionId)
    expect(victimOutcome?.execution.state).toBe('expired')
    const cancel = all.find((tx) => tx.kind === 'cancel' && tx.nonce === victim)
    expect(cancel?.status).toBe('mined')
    // Its approval landed, and the executions planned behind it reset the allowance to zero first.
    const victimApproval = victimOutcome?.transactions.find((tx) => tx.kind === 'approve')
    expect(victimApproval?.status).toBe('mined')
    const resetsAfter = all.filter(
      (tx) =>
        tx.kind === 'approve' &&
        tx.nonce > (victim ?? 0) &&
        tx.status === 'mined' &&
        approvedAmount(tx) === 0n,
    )
    expect(resetsAfter.length).toBeGreaterThan(0)
    await expectLedgerEqualsChain(ledger, account.address, fromBlock)
  })

  it('an execute a reorg returns to the pool after its quote expired is cancelled before a block mines it', {
    timeout: 120_000,
  }, async () => {
    const { publicClient, testClient } = chainClients()
    const { engine, ledger, account, recovery } = await startEngine()
    await recovery
    const fromBlock = (await publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    await testClient.setAutomine(false)
    await testClient.setIntervalMining({ interval: 2 })
    const first = await engine.execute(buy('before-reorg', '300'))
    expect(first.execution.state, first.execution.reason).toBe('confirmed')
    const execute = first.transactions.find((tx) => tx.kind === 'execute' && tx.status === 'mined')
    const executeBlock = execute?.blockNumber
    if (!execute || !executeBlock) throw new Error('no mined execute')
    // Mining stops; the quote's deadline passes (the file's clocks skip a second past its expiry,
    // its deadline's grace included, instead of waiting); the blocks from the execute's up are
    // replaced with empty ones and our transactions go back to the pool, as a node's reorg puts them
    // back. anvil_reorg sets the chain's clock back to the fork's block: it is moved on again, so
    // that the quote expired on the chain clock too and a block that mined the execute would revert.
    await testClient.setIntervalMining({ interval: 0 })
    const { expiresAt } = readStoredQuoteForTest(first.execution)
    await advanceClocks(Math.max(0, Math.floor((expiresAt * 1000 + 1_000 - fileNow()) / 1000) + 1))
    const head = await publicClient.getBlockNumber({ cacheTime: 0 })
    const depth = Number(head - executeBlock) + 1
    const removed = first.transactions.filter(
      (tx) => tx.status === 'mined' && (tx.blockNumber ?? 0n) >= executeBlock,
    )
    await testClient.request({ method: 'anvil_reorg', params: [depth, []] } as never)
    await alignChainClock()
    for (const tx of removed)
      await publicClient
        .request({ method: 'eth_sendRawTransaction', params: [tx.raw] })
        .catch((error: Error) => {
          // The manager was quicker: its cancel already holds the nonce.
          expect(error.message).toMatch(/underpriced|already known|nonce/i)
        })
    const cancel = await until('a cancel at the execute nonce', () =>
      ledger.transactions
        .listTransactionsAtNonce(chain.chainId, account.address, execute.nonce)
        .find((tx) => tx.kind === 'cancel'),
    )
    await until('the cancel in the pool', () =>
      getTransaction(publicClient, { hash: cancel.hash }).then(
        (tx) => tx ?? undefined,
        () => undefined,
      ),
    )
    await testClient.setIntervalMining({ interval: 2 })
    const ended = await until('the execution ends again', () => {
      const execution = ledger.executions.getExecution(first.execution.id)
      return execution && execution.state !== 'submitted' && execution.state !== 'confirmed'
        ? execution
        : undefined
    })
    expect(ended.state).toBe('expired')
    // The cancel took the nonce in a block past the quote's expiry: one the execute would have reverted in.
    const minedAtNonce = ledger.transactions
      .listTransactionsAtNonce(chain.chainId, account.address, execute.nonce)
      .filter((tx) => tx.status === 'mined')
    expect(minedAtNonce.map((tx) => tx.hash)).toEqual([cancel.hash])
    const cancelBlock = await publicClient.getBlock({ blockNumber: minedAtNonce[0]?.blockNumber ?? 0n })
    expect(cancelBlock.timestamp).toBeGreaterThan(BigInt(expiresAt))
    // Its approval landed again and stays open: a larger buy resets it to zero first, and lands.
    const next = await engine.execute(buy('after-reorg', '700'))
    expect(next.execution.state, next.execution.reason).toBe('confirmed')
    const approvals = next.transactions.filter((tx) => tx.kind === 'approve').map(approvedAmount)
    expect(approvals).toHaveLength(2)
    expect(approvals[0]).toBe(0n)
    await expectLedgerEqualsChain(ledger, account.address, fromBlock)
  })
})
