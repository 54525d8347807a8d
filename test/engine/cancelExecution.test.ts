import { getTransactionCount } from 'viem/actions'
import { describe, expect, it } from 'vitest'
import type { CancelOutcome, Engine, SwapIntent } from '../../src/engine/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Cancelling an execution: taken while nothing is signed (quoting, prepared and waiting for the
// wallet, queued behind the pipeline, or not running at all), refused once a transaction is signed
// or the execution has ended. Cancels are issued from the engine's own hooks at each stage, so the
// moment is exact without any timing.

const service = useSandboxService()
const ledgers = engineLedgers()

const buy = (intentId: string): SwapIntent => ({
  intentId,
  chainId: chainWithRouter().chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '300',
})

describe('cancelExecution', () => {
  it('cancels while quoting, after stage one, and in the pipeline queue; nothing is signed, the nonce is untouched', async () => {
    let engine: Engine | undefined
    const cancels = new Map<string, Promise<CancelOutcome>>()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { pipelineDepth: 1 },
      hooks: {
        onStage(event) {
          const execution = test.ledger.executions.getExecution(event.executionId)
          if (execution?.intentId === 'while-quoting' && event.stage === 'quoteRequested')
            cancels.set(
              execution.intentId,
              engine?.cancel(execution.id, 'operator: wrong size') as Promise<CancelOutcome>,
            )
          if (execution?.intentId === 'after-stage-one' && event.stage === 'prepared')
            cancels.set(
              execution.intentId,
              engine?.cancel(execution.id, 'operator: changed my mind') as Promise<CancelOutcome>,
            )
        },
      },
    })
    engine = test.engine
    try {
      const quoting = await test.engine.execute(buy('while-quoting'))
      expect(quoting.execution.state).toBe('rejected')
      expect(quoting.execution.reason).toBe('cancelled: operator: wrong size; nothing was signed')
      expect(await cancels.get('while-quoting')).toMatchObject({ cancelled: true })

      const prepared = await test.engine.execute(buy('after-stage-one'))
      expect(prepared.execution.state).toBe('rejected')
      expect(prepared.execution.reason).toContain('cancelled: operator: changed my mind')
      expect(await cancels.get('after-stage-one')).toMatchObject({ cancelled: true })

      // Depth 1: the second waits in the wallet's pipeline queue while the first runs.
      const first = await test.engine.submit(buy('runs-first'))
      const queued = await test.engine.submit(buy('queued'))
      const cancelled = await test.engine.cancel(queued.executionId, 'operator: queued one')
      expect(cancelled).toMatchObject({ cancelled: true, execution: { state: 'rejected' } })
      expect((await first.done).execution.state).toBe('confirmed')
      expect((await queued.done).execution.state).toBe('rejected')

      for (const intentId of ['while-quoting', 'after-stage-one', 'queued']) {
        const execution = test.ledger.executions.getExecutionByIntent(intentId)
        expect(test.ledger.transactions.listTransactionsForExecution(execution?.id ?? 0)).toEqual([])
      }
      // Only the confirmed one used nonces: the chain's count equals its transactions.
      const chain = chainWithRouter()
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const signed = (await first.done).transactions.length
      expect(await getTransactionCount(publicClient, { address: test.account.address })).toBe(signed)
    } finally {
      await test.close()
    }
  })

  it('refuses once signed or finished, names unknown ids, and cancels an execution nobody runs', async () => {
    let engine: Engine | undefined
    let whileSubmitted: Promise<CancelOutcome> | undefined
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      hooks: {
        onTransition(event, execution) {
          if (event.to === 'submitted') whileSubmitted = engine?.cancel(execution.id, 'operator: too late')
        },
      },
    })
    engine = test.engine
    try {
      const done = await test.engine.execute(buy('signed'))
      expect(done.execution.state).toBe('confirmed')
      const refused = await whileSubmitted
      expect(refused).toMatchObject({ cancelled: false, code: 'ALREADY_SIGNED' })
      expect(refused?.cancelled === false && refused.reason).toMatch(
        /signed (approve 0x[0-9a-f]{64}, )?execute 0x[0-9a-f]{64}/,
      )

      expect(await test.engine.cancel(done.execution.id, 'operator: after the fact')).toMatchObject({
        cancelled: false,
        code: 'ALREADY_FINISHED',
      })
      await expect(test.engine.cancel(999_999, 'x')).rejects.toMatchObject({ code: 'EXECUTION_NOT_FOUND' })

      // Recorded but never run (as a stopped daemon leaves one before the next start's recovery).
      const idle = test.ledger.executions.createExecution({
        intentId: 'idle',
        chainId: chainWithRouter().chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '300',
        amountType: 'stablecoin',
      })
      const outcome = await test.engine.cancel(idle.id, 'operator: stale intent')
      expect(outcome).toMatchObject({
        cancelled: true,
        execution: { state: 'rejected', reason: 'cancelled: operator: stale intent' },
      })
    } finally {
      await test.close()
    }
  })
})
