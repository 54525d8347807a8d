import { encodeFunctionData, erc20Abi, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'
import { openLedger } from '../../src/store/index.js'
import { createTransactionManager, defaultTransactionManagerSettings } from '../../src/transactions/index.js'
import { engineLedgers, testTransactionSettings } from '../helpers/engine.js'
import { chainWithRouter, fundAddress } from '../helpers/localChains.js'

// The wallet's critical section (kill switch and validity checked, nonce taken, signed, stored) is
// meant to run in one stretch of the JS thread: with the daemon's signer nothing awaits in it, so
// no other execution's work (a burst has plenty queued) runs between the check and the commit.

const ledgers = engineLedgers()

/** A chain of microtasks started at the check: each of its steps that runs before the commit was let in by an await. */
function microtaskChain() {
  let steps = 0
  let stopped = false
  const step = () => {
    if (stopped || steps >= 100_000) return
    steps += 1
    queueMicrotask(step)
  }
  return {
    start: () => queueMicrotask(step),
    steps: () => steps,
    stop: () => {
      stopped = true
    },
  }
}

/** Sends one approval through a fresh manager, and counts the other work that ran inside its critical section. */
async function stepsInsideCriticalSection(account: LocalAccount) {
  const chain = chainWithRouter()
  await fundAddress(chain, account.address)
  const ledger = openLedger({ path: ledgers.path() })
  const { publicClient, walletClient } = createChainClients({
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    account,
  })
  const manager = createTransactionManager({
    chainId: chain.chainId,
    ledger,
    account,
    publicClient,
    walletClient,
    settings: { ...defaultTransactionManagerSettings, ...testTransactionSettings },
    handler: { included() {}, reorged() {}, abandoned() {}, deadlineOf: () => undefined },
    inclusionMs: () => 1_000,
  })
  manager.start()
  try {
    await manager.ready()
    const other = microtaskChain()
    let atCheck = -1
    let atStore = -1
    const { records, broadcast } = await manager.sendAll(
      () => [
        {
          kind: 'approve',
          to: chain.defaultAsset.address,
          data: encodeFunctionData({
            abi: erc20Abi,
            functionName: 'approve',
            args: [chain.executorAddress, 1n],
          }),
          gas: 100_000n,
        },
      ],
      {
        executionId: null,
        check: () => {
          other.start()
          atCheck = other.steps()
        },
        // Inside the ledger transaction, right before its COMMIT.
        alsoInLedger: () => {
          atStore = other.steps()
        },
      },
    )
    other.stop()
    expect(records).toHaveLength(1)
    expect((await broadcast)[0]?.status).toBe('broadcast')
    return atStore - atCheck
  } finally {
    await manager.stop()
    ledger.close()
  }
}

describe('the wallet critical section', () => {
  it("runs in one stretch with the daemon's signer (privateKeyToFastAccount): nothing else runs between the check and the commit", async () => {
    expect(await stepsInsideCriticalSection(privateKeyToFastAccount(generatePrivateKey()))).toBe(0)
  })

  it("with another account (viem's own, awaited), other work runs inside it: what the synchronous signer spares", async () => {
    expect(await stepsInsideCriticalSection(privateKeyToAccount(generatePrivateKey()))).toBeGreaterThan(0)
  })
})
