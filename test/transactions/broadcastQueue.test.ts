import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Hex, keccak256, type LocalAccount, parseGwei, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getTransactionCount, waitForTransactionReceipt } from 'viem/actions'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { type Ledger, openLedger, type TransactionRecord } from '../../src/store/index.js'
import { createBroadcastQueue } from '../../src/transactions/broadcastQueue.js'
import type { BroadcastResult } from '../../src/transactions/types.js'
import { fundedWallet } from '../chain/fixtures.js'
import { engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'

// One wallet's broadcast queue against the shared anvil chain, seen from a loopback proxy in front
// of the node that records the nonces of every eth_sendRawTransaction in the order they arrive (one
// list per HTTP request) and can hold the answer to a request until the test lets it go: bundles
// leave one at a time in the order they were queued, each whole and in nonce order; a refusal is
// dealt with before the next bundle leaves; a dry run sends nothing. The records are real ones,
// signed by a funded wallet and stored in a ledger file.

const chain = chainWithRouter()
const ledgers = engineLedgers()
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A proxy in front of `target` that records sends and holds the next request carrying one when asked. */
async function sendWatchingProxy(target: string) {
  const sends: number[][] = []
  let hold: { arrived: () => void; release: Promise<void> } | undefined
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const parsed = JSON.parse(body) as
      | { method: string; params: unknown[] }
      | { method: string; params: unknown[] }[]
    const nonces = (Array.isArray(parsed) ? parsed : [parsed])
      .filter((call) => call.method === 'eth_sendRawTransaction')
      .map((call) => parseTransaction(call.params[0] as Hex).nonce ?? -1)
    if (nonces.length > 0) {
      sends.push(nonces)
      const held = hold
      hold = undefined
      if (held) {
        held.arrived()
        await held.release
      }
    }
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    response.writeHead(upstream.status, { 'content-type': 'application/json' })
    response.end(await upstream.text())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The nonces of the sends received, one list per HTTP request, in arrival order. */
    sends,
    /** Holds the next request carrying a send: `arrived` resolves when it is in, `release()` lets it through. */
    holdNext() {
      let arrived: () => void = () => {}
      let release: () => void = () => {}
      const arrival = new Promise<void>((resolve) => {
        arrived = resolve
      })
      hold = {
        arrived,
        release: new Promise<void>((resolve) => {
          release = resolve
        }),
      }
      return { arrived: arrival, release: () => release() }
    },
  }
}

/** A funded wallet, a ledger file, and `sign(nonce)` storing a signed self-transfer at `nonce`. */
async function walletAndLedger(target: LocalChain) {
  const funded = await fundedWallet(target)
  const account: LocalAccount = privateKeyToAccount(funded.privateKey)
  const ledger: Ledger = openLedger({ path: ledgers.path() })
  cleanups.push(() => ledger.close())
  /** `gas` below 21,000 makes the node refuse it ("intrinsic gas too low"). */
  const sign = async (nonce: number, options: { gas?: bigint; value?: bigint } = {}) => {
    const raw = await account.signTransaction({
      chainId: target.chainId,
      type: 'eip1559',
      to: account.address,
      value: options.value ?? 0n,
      nonce,
      gas: options.gas ?? 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    return ledger.atomically(() => {
      ledger.nonces.commitNonce(target.chainId, account.address, nonce)
      return ledger.transactions.recordSignedTransaction({
        chainId: target.chainId,
        from: account.address,
        nonce,
        kind: 'gap-fill',
        hash: keccak256(raw),
        raw,
      })
    })
  }
  return { account, ledger, sign }
}

/** The queue under test, its wallet client on `rpcUrl`, and what its callbacks saw. */
function queueOn(
  account: LocalAccount,
  rpcUrl: string,
  options: {
    dryRun?: boolean
    onRefused?: (
      records: readonly TransactionRecord[],
      results: readonly BroadcastResult[],
      first: number,
    ) => Promise<void>
  } = {},
) {
  const { walletClient } = createChainClients({ chainId: chain.chainId, rpcUrl, account })
  const accepted: Hex[][] = []
  const steps: string[] = []
  const queue = createBroadcastQueue({
    walletClient,
    now: () => 1_700_000_000_000,
    dryRun: options.dryRun ?? false,
    onStep: ({ step, tx }) => steps.push(`${step} ${tx.nonce}`),
    onAccepted: (records) => accepted.push(records.map((record) => record.hash)),
    onRefused: options.onRefused ?? (() => Promise.reject(new Error('nothing should be refused'))),
  })
  return { queue, accepted, steps }
}

const broadcastAt = { status: 'broadcast', atMs: 1_700_000_000_000 }

describe('broadcast queue', () => {
  it('sends bundle after bundle in the order queued, each whole and in nonce order, the next once the one before is answered', async () => {
    const proxy = await sendWatchingProxy(chain.rpcUrl)
    const { account, sign } = await walletAndLedger(chain)
    const [r0, r1, r2, r3] = [
      await sign(0),
      await sign(1),
      await sign(2),
      await sign(3),
    ] as TransactionRecord[]
    if (!r0 || !r1 || !r2 || !r3) throw new Error('not signed')
    const { queue, accepted, steps } = queueOn(account, proxy.url)
    const handed: string[] = []
    const held = proxy.holdNext()
    const first = queue.send([r0, r1], () => handed.push('A'))
    const second = queue.send([r2], () => handed.push('B'))
    const third = queue.send([r3], () => handed.push('C'))
    // Queued or on the wire: nobody else sends them.
    expect([...queue.sending]).toEqual([r0.hash, r1.hash, r2.hash, r3.hash])

    await held.arrived
    // The first bundle is at the node, unanswered: the two others wait their turn, not handed over.
    expect(proxy.sends).toEqual([[0, 1]])
    expect(handed).toEqual(['A'])
    expect(queue.waiting()).toBe(2)
    expect(steps).toEqual(['sending 0', 'sending 1'])
    held.release()

    expect(await Promise.all([first, second, third])).toEqual([
      [broadcastAt, broadcastAt],
      [broadcastAt],
      [broadcastAt],
    ])
    expect(proxy.sends).toEqual([[0, 1], [2], [3]])
    expect(handed).toEqual(['A', 'B', 'C'])
    expect(accepted).toEqual([[r0.hash, r1.hash], [r2.hash], [r3.hash]])
    // Each bundle's sends after every answer of the bundle before.
    expect(steps.indexOf('sending 2')).toBeGreaterThan(
      Math.max(steps.indexOf('broadcast 0'), steps.indexOf('broadcast 1')),
    )
    expect(steps.indexOf('sending 3')).toBeGreaterThan(steps.indexOf('broadcast 2'))
    expect(queue.sending.size).toBe(0)
    expect([...queue.lastSentAt]).toEqual([r0, r1, r2, r3].map((record) => [record.hash, 1_700_000_000_000]))
    await queue.idle()
    // The node mined all four.
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl })
    await waitForTransactionReceipt(publicClient, { hash: r3.hash, pollingInterval: 50 })
    expect(await getTransactionCount(publicClient, { address: account.address })).toBe(4)
  })

  it('deals with a refusal before the next bundle leaves, and answers the bundle once it has', async () => {
    const { account, ledger, sign } = await walletAndLedger(chain)
    const r0 = await sign(0)
    const refused = await sign(1, { gas: 20_000n })
    const r2 = await sign(2)
    const { publicClient, walletClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      account,
    })
    const events: string[] = []
    let refusal: { records: readonly Hex[]; results: readonly BroadcastResult[]; first: number } | undefined
    let refusalSeen: () => void = () => {}
    const seen = new Promise<void>((resolve) => {
      refusalSeen = resolve
    })
    let allowRepair: () => void = () => {}
    const repairAllowed = new Promise<void>((resolve) => {
      allowRepair = resolve
    })
    let repairHash: Hex | undefined
    const { queue, accepted } = queueOn(account, chain.rpcUrl, {
      // The repair of a refused nonce: it is marked failed and filled with a self-transfer of its own.
      onRefused: async (records, results, first) => {
        refusal = { records: records.map((record) => record.hash), results, first }
        events.push('refusal: repair starts')
        refusalSeen()
        await repairAllowed
        ledger.transactions.markFailed(chain.chainId, refused.hash, 'refused: test')
        const fill = await sign(1, { value: 1n })
        repairHash = await walletClient.sendRawTransaction({ serializedTransaction: fill.raw })
        await waitForTransactionReceipt(publicClient, { hash: repairHash, pollingInterval: 50 })
        events.push('refusal: repair mined')
      },
    })
    const bundle = queue.send([r0, refused]).then((results) => {
      events.push('bundle answered')
      return results
    })
    const next = queue.send([r2], () => events.push('next handed over'))

    await seen
    // A round trip to the node: whatever the queue would start at once has started by its answer.
    await publicClient.getBlockNumber({ cacheTime: 0 })
    expect(events).toEqual(['refusal: repair starts'])
    expect(queue.waiting()).toBe(1)
    expect(refusal?.records).toEqual([r0.hash, refused.hash])
    expect(refusal?.first).toBe(1)
    expect(refusal?.results[0]).toEqual(broadcastAt)
    expect(refusal?.results[1]).toMatchObject({
      status: 'refused',
      error: expect.stringMatching(/intrinsic gas too low/i),
    })
    // Only what the node accepted is handed on as accepted.
    expect(accepted).toEqual([[r0.hash]])
    allowRepair()

    expect((await bundle).map((result) => result.status)).toEqual(['broadcast', 'refused'])
    expect(await next).toEqual([broadcastAt])
    expect(events.slice(0, 2)).toEqual(['refusal: repair starts', 'refusal: repair mined'])
    expect(events.slice(2).sort()).toEqual(['bundle answered', 'next handed over'])
    expect(accepted).toEqual([[r0.hash], [r2.hash]])
    const mined = await waitForTransactionReceipt(publicClient, { hash: r2.hash, pollingInterval: 50 })
    expect(mined.status).toBe('success')
    expect(await getTransactionCount(publicClient, { address: account.address })).toBe(3)
  })

  it('a dry run sends nothing: every transaction not sent, nothing accepted, nothing at the node', async () => {
    const proxy = await sendWatchingProxy(chain.rpcUrl)
    const { account, sign } = await walletAndLedger(chain)
    const records = [await sign(0), await sign(1)]
    const { queue, accepted, steps } = queueOn(account, proxy.url, { dryRun: true })
    let handed = 0
    expect(
      await queue.send(records, () => {
        handed += 1
      }),
    ).toEqual([{ status: 'not-sent' }, { status: 'not-sent' }])
    expect(handed).toBe(1)
    expect(proxy.sends).toEqual([])
    expect(accepted).toEqual([])
    expect(steps).toEqual([])
    expect(queue.sending.size).toBe(0)
    expect(queue.lastSentAt.size).toBe(0)
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl })
    expect(await getTransactionCount(publicClient, { address: account.address, blockTag: 'pending' })).toBe(0)
  })
})
