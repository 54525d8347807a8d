import { startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { encodeFunctionData, erc20Abi } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { simulateAfterPending } from '../../src/engine/simulateAfterPending.js'
import { buyQuote } from '../chain/fixtures.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter, clientsFor, signForChain } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The simulation of an execute after the approvals it needs were sent, on an engine's real chain
// runtime and wallet (its transaction manager), reaching the shared anvil chain through the
// sandbox's fault proxy. The proxy withholds the wallet's approvals: it answers with their hash and
// never forwards them, so the manager counts one in flight that the node's `pending` state does not
// hold (as after interval mining, or a dropped approval sent again). The test then hands the same
// signed bytes to the node itself, when the simulation is seen waiting.

const service = useSandboxService()
const ledgers = engineLedgers()
const chain = chainWithRouter()
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * An engine whose wallet reaches the chain through a proxy that withholds its approvals, a buy
 * quote for that wallet signed by the chain's operator, and `approve()`, which sends the approval
 * the quote needs through the wallet's transaction manager (withheld).
 */
async function engineWithWithheldApprovals() {
  const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl })
  cleanups.push(() => proxy.stop())
  const test = await createTestEngine(service(), {
    ledgerPath: ledgers.path(),
    funding: { asset: '5000' },
    rpcUrlOf: (each) => (each.chainId === chain.chainId ? proxy.url : each.rpcUrl),
  })
  cleanups.push(() => test.close())
  const asset = chain.defaultAsset.address
  proxy.withholdTransactions((tx) => tx.to?.toLowerCase() === asset.toLowerCase())
  const runtime = test.engine.chains.get(chain.chainId)
  const wallet = runtime?.wallets[0]
  if (!runtime || !wallet) throw new Error(`no runtime for chain ${chain.chainId}`)
  const quote = buyQuote(chain)
  const parameters = {
    executor: chain.executorAddress,
    quote,
    signature: await signForChain(chain, quote),
    taker: test.account.address,
    blockTag: 'pending' as const,
  }
  const approve = async () => {
    const sent = await wallet.transactions.send(
      {
        kind: 'approve',
        to: asset,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [chain.executorAddress, quote.amountIn],
        }),
        gas: 100_000n,
      },
      { executionId: null },
    )
    expect(await sent.broadcast).toMatchObject({ status: 'broadcast' })
    expect(wallet.transactions.status().pending).toBe(1)
    return sent.record
  }
  return { runtime, wallet, parameters, approve, proxy }
}

/** The node itself, past the proxy. */
const node = () => clientsFor(chain, chain.roles.deployer.privateKey)

describe('simulateAfterPending', () => {
  it('nothing of the wallet in flight: the allowance failure is the answer at once, without asking to wait', async () => {
    const { runtime, wallet, parameters } = await engineWithWithheldApprovals()
    let asked = 0
    const result = await simulateAfterPending(runtime, wallet, parameters, {
      // Asked, it says no: a wrong wait ends at once and shows in the count.
      canWait: () => {
        asked += 1
        return false
      },
    })
    expect(result).toMatchObject({
      ok: false,
      errorName: 'ERC20InsufficientAllowance',
      args: [chain.executorAddress, 0n, parameters.quote.amountIn - parameters.quote.feeAmount],
    })
    expect(asked).toBe(0)
  })

  it('an approval in flight the node does not hold yet: waits for the next block and simulates again, ok once it landed', async () => {
    const { runtime, wallet, parameters, approve } = await engineWithWithheldApprovals()
    const approval = await approve()
    const { publicClient, testClient } = node()
    let asked = 0
    let landed = false
    let nudged = false
    const result = await simulateAfterPending(runtime, wallet, parameters, {
      canWait: () => {
        asked += 1
        // The second ask comes from the wait for a new block: the approval reaches the node now.
        if (asked === 2)
          void publicClient
            .sendRawTransaction({ serializedTransaction: approval.raw })
            .then((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 }))
            .then(() => {
              landed = true
            })
        // Its block was the head the wait started from (another test file's block came in
        // between): one more block ends the wait.
        else if (landed && !nudged) {
          nudged = true
          void testClient.mine({ blocks: 1 })
        }
        return true
      },
    })
    expect(result).toEqual({ ok: true, gas: expect.any(BigInt) })
    expect(asked).toBeGreaterThanOrEqual(2)
    const receipt = await publicClient.waitForTransactionReceipt({ hash: approval.hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
  })

  it('a failure other than the allowance is the answer at once, even with an approval in flight', async () => {
    const { runtime, wallet, parameters, approve } = await engineWithWithheldApprovals()
    await approve()
    const expired = { ...parameters.quote, expiresAt: BigInt(Math.floor(Date.now() / 1000) - 30) }
    let asked = 0
    const result = await simulateAfterPending(
      runtime,
      wallet,
      { ...parameters, quote: expired, signature: await signForChain(chain, expired) },
      {
        canWait: () => {
          asked += 1
          return false
        },
      },
    )
    expect(result).toMatchObject({ ok: false, errorName: 'QuoteExpired' })
    expect(asked).toBe(0)
  })

  it('stops waiting as soon as the quote can no longer wait: the allowance failure is the answer', async () => {
    const { runtime, wallet, parameters, approve } = await engineWithWithheldApprovals()
    await approve()
    let asked = 0
    const result = await simulateAfterPending(runtime, wallet, parameters, {
      canWait: () => {
        asked += 1
        return asked < 2
      },
    })
    expect(result).toMatchObject({ ok: false, errorName: 'ERC20InsufficientAllowance' })
    expect(asked).toBe(2)
  })

  it('an abort while waiting ends it with the abort’s reason', async () => {
    const { runtime, wallet, parameters, approve } = await engineWithWithheldApprovals()
    await approve()
    const stopping = new AbortController()
    const reason = new Error('test: the execution is cancelled')
    let asked = 0
    await expect(
      simulateAfterPending(runtime, wallet, parameters, {
        signal: stopping.signal,
        canWait: () => {
          asked += 1
          if (asked === 2) stopping.abort(reason)
          return true
        },
      }),
    ).rejects.toBe(reason)
  })
})
