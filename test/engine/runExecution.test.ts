import { erc20Abi } from 'viem'
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

/** Polls `probe` (every 50 ms, at most 20 s) until it returns something. */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('not reached in 20 s')
}

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
      halt = () => {}
      operator.close()
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(/^kill switch: trading is halted \(operator: halt mid-trade\)/)
      expect(outcome.transactions.map((tx) => tx.kind)).toEqual(['approve'])
      expect(await nonceOnChain(test.account.address)).toBe(1)
      // The approval's allowance stays on chain: recorded as open, with the approval that left it.
      const [open] = await until(() => {
        const found = test.ledger.allowances.listOpenAllowances({ chainId: chain.chainId })
        return found.length > 0 ? found : undefined
      })
      expect(open?.approveTxHash).toBe(outcome.transactions[0]?.hash)
      expect(open?.reason).toMatch(/ended rejected after approving \d+ and before sending its execute/)
      // The nonce reserved for nothing is not a hole: the next transaction takes it, and the next
      // trade of the same token spends the open allowance (policy reuse) instead of approving again.
      test.ledger.risk.resume()
      const next = await test.engine.execute(buy(chain.chainId, 'after'))
      expect(next.transactions.map((tx) => tx.nonce)).toEqual([1])
      expect(test.ledger.allowances.listOpenAllowances()).toEqual([])
      const closed = test.ledger.database
        .prepare<[], { state: string; closed_reason: string }>(
          'SELECT state, closed_reason FROM open_allowances',
        )
        .all()
      expect(closed).toEqual([
        {
          state: 'used',
          closed_reason: `spent by execution ${next.execution.id} (${next.transactions[0]?.hash})`,
        },
      ])
    } finally {
      await test.close()
    }
  })

  it('with openAllowances revoke, an approval left by a stopped execution is approved back to zero', async () => {
    const chain = chainWithRouter()
    const path = ledgers.path()
    let halt = () => {}
    const test = await createTestEngine(service(), {
      ledgerPath: path,
      funding: { asset: '5000' },
      settings: { openAllowances: 'revoke' },
      hooks: { onStep: (step) => step.kind === 'approve' && step.step === 'broadcast' && halt() },
    })
    try {
      const { openLedger } = await import('../../src/store/index.js')
      const operator = openLedger({ path, owner: false })
      halt = () => operator.risk.halt('operator: halt mid-trade')
      const outcome = await test.engine.execute(buy(chain.chainId, 'revoked'))
      halt = () => {}
      operator.close()
      expect(outcome.execution.state).toBe('rejected')
      const revoked = await until(() =>
        test.ledger.database
          .prepare<[], { state: string; closed_reason: string }>(
            "SELECT state, closed_reason FROM open_allowances WHERE state = 'revoked'",
          )
          .get(),
      )
      expect(revoked.closed_reason).toMatch(/^approval to zero 0x[0-9a-f]{64} mined in block \d+$/)
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const allowance = await publicClient.readContract({
        address: chain.defaultAsset.address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [test.account.address, chain.executorAddress],
      })
      expect(allowance).toBe(0n)
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
