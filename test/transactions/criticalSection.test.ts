import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'
import { engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { approveOneRequest, startTestManager } from '../helpers/transactionManager.js'

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
  const { manager, stop } = await startTestManager({ chain, account, ledgerPath: ledgers.path() })
  try {
    const other = microtaskChain()
    let atCheck = -1
    let atStore = -1
    const { records, broadcast } = await manager.sendAll(() => [approveOneRequest(chain)], {
      executionId: null,
      check: () => {
        other.start()
        atCheck = other.steps()
      },
      // Inside the ledger transaction, right before its COMMIT.
      alsoInLedger: () => {
        atStore = other.steps()
      },
    })
    other.stop()
    expect(records).toHaveLength(1)
    expect((await broadcast)[0]?.status).toBe('broadcast')
    return atStore - atCheck
  } finally {
    await stop()
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
