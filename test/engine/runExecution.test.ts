import { startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { erc20Abi } from 'viem'
import { getTransactionCount } from 'viem/actions'
import { describe, expect, it } from 'vitest'
import type { EngineSettings, InclusionWait } from '../../src/engine/index.js'
import { openLedger } from '../../src/store/index.js'
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
      // The market price the guard compared the quote with is kept with it (for slippage reports).
      const kept = resumed.execution.marketPrice
      expect(kept?.price).toBeGreaterThan(0n)
      expect(kept?.atMs).toBeGreaterThanOrEqual(resumed.execution.createdAtMs)
      expect(kept?.atMs).toBeLessThanOrEqual(resumed.execution.updatedAtMs)
    } finally {
      await test.close()
    }
  })

  it('without allowance overrides, stops between the approval and the execute when halted meanwhile (from another connection)', async () => {
    const chain = chainWithRouter()
    // Buffered: the sandbox's price walks every second, and a whole-lot buy's amount_in_used with
    // it; an exact allowance left by the first quote may fall short of the next one by a cent.
    const { test, outcome } = await haltedMidTrade('mid-trade', {
      approvalPolicy: { kind: 'buffered', bufferBps: 2_000 },
    })
    try {
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
      expect(open?.reason).toMatch(
        /ended rejected after approving \d+, and no execute of it spent the allowance/,
      )
      // The nonce reserved for nothing is not a hole: the next transaction takes it, and the next
      // trade of the same token spends the open allowance (policy reuse) instead of approving again.
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
    const { test, outcome } = await haltedMidTrade('revoked', { openAllowances: 'revoke' })
    try {
      expect(outcome.execution.state).toBe('rejected')
      await expectRevoked(test)
    } finally {
      await test.close()
    }
  })

  it('with openAllowances revoke, a restart revokes an allowance left open by an earlier run', async () => {
    // The earlier run kept it (reuse), as a process killed between recording it and revoking it would.
    const { test: earlier } = await haltedMidTrade('left-open')
    await until(() => earlier.ledger.allowances.listOpenAllowances().at(0))
    const path = earlier.ledger.path
    const privateKey = earlier.privateKey
    await earlier.close()
    const test = await createTestEngine(service(), {
      ledgerPath: path,
      privateKey,
      settings: { openAllowances: 'revoke' },
    })
    try {
      await expectRevoked(test)
    } finally {
      await test.close()
    }
  })
})

/**
 * An execution halted by an operator (another connection) right after its approval was broadcast.
 * Only without allowance overrides is there such a moment: the approval then goes first, and the
 * execute is signed after it is pending (with overrides both are signed in one critical section).
 */
async function haltedMidTrade(intentId: string, extra: Partial<EngineSettings> = {}) {
  const settings: Partial<EngineSettings> = { allowanceOverride: false, ...extra }
  const chain = chainWithRouter()
  const path = ledgers.path()
  let halt = () => {}
  const test = await createTestEngine(service(), {
    ledgerPath: path,
    funding: { asset: '5000' },
    settings,
    hooks: { onStep: (step) => step.kind === 'approve' && step.step === 'broadcast' && halt() },
  })
  const operator = openLedger({ path, owner: false })
  halt = () => operator.risk.halt('operator: halt mid-trade')
  try {
    const outcome = await test.engine.execute(buy(chain.chainId, intentId))
    test.ledger.risk.resume('test: halt over')
    return { test, outcome }
  } catch (error) {
    await test.close()
    throw error
  } finally {
    halt = () => {}
    operator.close()
  }
}

/** The open allowance is closed as revoked by a mined approval to zero, and the chain says 0. */
async function expectRevoked(test: Awaited<ReturnType<typeof createTestEngine>>) {
  const chain = chainWithRouter()
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
}

describe('dry run', () => {
  it('quotes, guards, simulates with the approval, signs and stores both, never broadcasts, and gives the nonces back', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path('dry-run.sqlite'),
      funding: { asset: '5000' },
      settings: { dryRun: true },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'dry'))
      // A terminal rejection whose reason says what a dry run would have sent (no failure).
      expect(outcome.execution.state).toBe('rejected')
      expect(outcome.execution.reason).toMatch(
        /^dry run: not broadcast; would send approve \d+(\.\d{1,6})? USDC to the executor 0x[0-9a-fA-F]{40} \(tx 0x[0-9a-f]{64}, nonce 0\), then execute 0x[0-9a-f]{64} \(nonce 1, gas limit \d+\); simulation: simulated with the allowance of its approval \(\d+(\.\d{1,6})? USDC\), gas \d+$/,
      )
      expect(outcome.transactions.map((tx) => [tx.kind, tx.status])).toEqual([
        ['approve', 'failed'],
        ['execute', 'failed'],
      ])
      expect(await nonceOnChain(test.account.address)).toBe(0)
      expect(test.ledger.nonces.peekNextNonce(chain.chainId, test.account.address)).toBe(0)
    } finally {
      await test.close()
    }
  })

  it('simulates the execute with its approval by a state override even without allowanceOverride (nothing is sent to wait for)', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path('dry-run-no-override.sqlite'),
      funding: { asset: '5000' },
      settings: { dryRun: true, allowanceOverride: false },
    })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'dry-no-override'))
      expect(outcome.execution.reason).toMatch(
        /; simulation: simulated with the allowance of its approval \(\d+(\.\d{1,6})? USDC\), gas \d+$/,
      )
      expect(outcome.execution.reason).not.toMatch(/skipped/)
      expect(await nonceOnChain(test.account.address)).toBe(0)
    } finally {
      await test.close()
    }
  })
})

describe('quote windows', () => {
  // A's execute is mined while B holds its quote (B asked for it as A's arrived; B's simulation
  // is held 2.5 s at a loopback RPC proxy, A's 300 ms): A's inclusion is recorded only once B's
  // execute is handed to the node.
  it('records an inclusion only after the quote another execution holds is acted on', {
    timeout: 60_000,
  }, async () => {
    const chain = chainWithRouter()
    const rpc = await startRpcFaultProxy({ upstream: chain.rpcUrl, seed: 12 })
    const order: string[] = []
    const waits: InclusionWait[] = []
    let watching = false
    let first: number | undefined
    let second: Promise<unknown> | undefined
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      // The bound would let A's inclusion through after 150 ms: here only B's hand-over may.
      settings: { maxInclusionDelayMs: 60_000 },
      rpcUrlOf: (local) => (local.chainId === chain.chainId ? rpc.url : local.rpcUrl),
      hooks: {
        onStage: (event) => {
          if (!watching || event.stage !== 'quoteReceived') return
          if (first === undefined) {
            first = event.executionId
            second = test.engine.execute(buy(chain.chainId, 'window-b'))
          } else if (event.executionId !== first)
            rpc.setFaults({ delayMs: 2_500, methods: ['eth_simulateV1'] })
        },
        onStep: (step) => {
          if (watching && step.step === 'sending' && step.kind === 'execute')
            order.push(`${step.executionId === first ? 'A' : 'B'} handed over`)
        },
        onInclusionWait: (wait) => {
          if (watching) waits.push(wait)
        },
        onTransition: (_event, execution) => {
          if (watching && execution.state === 'confirmed')
            order.push(`${execution.id === first ? 'A' : 'B'} confirmed`)
        },
      },
    })
    try {
      // The token's allowance slot is looked up on its first trade: A's simulation then leaves as its quote arrives.
      const warm = await test.engine.execute(buy(chain.chainId, 'window-warm-up'))
      expect(warm.execution.state, warm.execution.reason).toBe('confirmed')
      rpc.setFaults({ delayMs: 300, methods: ['eth_simulateV1'] })
      watching = true
      const a = await test.engine.execute(buy(chain.chainId, 'window-a'))
      await second
      expect(a.execution.state, a.execution.reason).toBe('confirmed')
      expect(order).toEqual(['A handed over', 'B handed over', 'A confirmed', 'B confirmed'])
      // The engine's hook heard of the wait, ended by B's hand-over, not by the bound.
      expect(waits.some((wait) => !wait.ranOut && wait.waitedMs > 0)).toBe(true)
    } finally {
      await test.close()
      await rpc.stop()
    }
  })
})
