import { describe, expect, it } from 'vitest'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Stage two holds the wallet's turn: the bundle is signed first, then the kill switch and the
// quote's validity are read, and the bundle is committed with the move to submitted. From that
// read to the commit nothing awaits, so no other work (a burst has plenty queued) runs in between,
// whichever account signs: the test engine signs with viem's own account, which is awaited.

const service = useSandboxService()
const ledgers = engineLedgers()

/** A chain of microtasks: each of its steps that runs between two points was let in by an await. */
function microtaskChain() {
  let steps = 0
  let stopped = false
  const step = () => {
    if (stopped || steps >= 100_000) return
    steps += 1
    queueMicrotask(step)
  }
  queueMicrotask(step)
  return {
    steps: () => steps,
    stop: () => {
      stopped = true
    },
  }
}

describe('submitPrepared: the wallet turn', () => {
  it('runs from the kill switch read to the commit of the move to submitted in one stretch', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '5000' } })
    // Spies on the real ledger the engine writes: where the check reads, and where the commit writes.
    const { risk, executions } = test.ledger
    const readKillSwitch = risk.killSwitch.bind(risk)
    const transition = executions.transition.bind(executions)
    let chainAtCheck: ReturnType<typeof microtaskChain> | undefined
    const stretches: number[] = []
    Object.assign(risk, {
      killSwitch: () => {
        chainAtCheck?.stop()
        chainAtCheck = microtaskChain()
        return readKillSwitch()
      },
    })
    Object.assign(executions, {
      transition: (...args: Parameters<typeof executions.transition>) => {
        if (args[2] === 'submitted' && chainAtCheck) stretches.push(chainAtCheck.steps())
        return transition(...args)
      },
    })
    try {
      const result = await test.engine.execute({
        intentId: 'one-stretch',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
      })
      expect(result.execution.state, result.execution.reason).toBe('confirmed')
      expect(stretches).toEqual([0])
    } finally {
      chainAtCheck?.stop()
      await test.close()
    }
  })
})
