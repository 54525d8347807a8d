import { getTransactionCount } from 'viem/actions'
import { describe, expect, it } from 'vitest'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Signing: the kill switch is read before every signature; a dry run signs and stores but never
// broadcasts, and gives its nonce back.

const service = useSandboxService()
const ledgers = engineLedgers()
const buy = (chainId: number, intentId: string) =>
  ({ intentId, chainId, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' }) as const

async function nonceOnChain(address: `0x${string}`) {
  const chain = chainWithRouter()
  return getTransactionCount(clientsFor(chain, chain.roles.deployer.privateKey).publicClient, { address })
}

describe('kill switch', () => {
  it('rejects before any signature while halted, and trades again once resumed', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '5000' } })
    try {
      test.ledger.risk.halt('operator: test')
      const halted = await test.engine.execute(buy(chain.chainId, 'halted'))
      expect(halted.execution.state).toBe('rejected')
      expect(halted.execution.reason).toBe(
        'kill switch: trading is halted (operator: test); nothing was signed. Run stockroute resume to trade again.',
      )
      expect(halted.transactions).toEqual([])
      expect(await nonceOnChain(test.account.address)).toBe(0)
      test.ledger.risk.resume('operator: test over')
      const resumed = await test.engine.execute(buy(chain.chainId, 'resumed'))
      expect(resumed.execution.state, resumed.execution.reason).toBe('confirmed')
    } finally {
      await test.close()
    }
  })

  it('stops between the approval and the execute when halted meanwhile (from another connection)', async () => {
    const chain = chainWithRouter()
    const path = ledgers.path()
    let halt = () => {}
    const test = await createTestEngine(service(), {
      ledgerPath: path,
      funding: { asset: '5000' },
      hooks: { onStep: (step) => step.kind === 'approve' && step.step === 'broadcast' && halt() },
    })
    try {
      const { openLedger } = await import('../../src/store/index.js')
      const operator = openLedger({ path })
      halt = () => operator.risk.halt('operator: halt mid-trade')
      const outcome = await test.engine.execute(buy(chain.chainId, 'mid-trade'))
      operator.close()
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(/^kill switch: trading is halted \(operator: halt mid-trade\)/)
      expect(outcome.transactions.map((tx) => tx.kind)).toEqual(['approve'])
      expect(await nonceOnChain(test.account.address)).toBe(1)
      // The nonce reserved for nothing is not a hole: the next transaction takes it.
      test.ledger.risk.resume()
      const next = await test.engine.execute(buy(chain.chainId, 'after'))
      expect(next.transactions.map((tx) => tx.nonce)).toEqual([1])
    } finally {
      await test.close()
    }
  })
})

describe('dry run', () => {
  it('quotes, guards, signs and stores the execute, never broadcasts, and gives the nonce back', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path('dry-run.sqlite'),
      funding: { asset: '5000' },
      settings: { dryRun: true },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'dry'))
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(
        /^dry run: execute 0x[0-9a-f]{64} signed \(simulation skipped: it needs the approval, which a dry run does not send\) and not broadcast; would first send approve\(0x[0-9a-fA-F]{40}, \d+\)$/,
      )
      expect(outcome.transactions.map((tx) => [tx.kind, tx.status])).toEqual([['execute', 'failed']])
      expect(await nonceOnChain(test.account.address)).toBe(0)
      expect(test.ledger.nonces.peekNextNonce(chain.chainId, test.account.address)).toBe(0)
    } finally {
      await test.close()
    }
  })
})
