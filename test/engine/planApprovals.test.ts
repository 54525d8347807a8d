import { decodeFunctionData, erc20Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { type AllowanceReading, approvalTarget, planFromReading } from '../../src/engine/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// Approval policies on real tokens: exact by default (the allowance is used up by the trade),
// skipped when the allowance suffices, buffered, and a reset to zero first on the USDT-like asset.

const service = useSandboxService()
const ledgers = engineLedgers()

async function allowanceOf(chain: ReturnType<typeof chainWithRouter>, owner: `0x${string}`) {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  return publicClient.readContract({
    address: chain.defaultAsset.address,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, chain.executorAddress],
  })
}

const buy = (chainId: number, intentId: string) =>
  ({ intentId, chainId, ticker: 'AAPL', exchange: 0, side: 'buy', amountIn: '1000' }) as const

describe('approvals', () => {
  it('computes the policy targets', () => {
    expect(approvalTarget(1_000_000n, { kind: 'exact' })).toBe(1_000_000n)
    expect(approvalTarget(1_000_001n, { kind: 'buffered', bufferBps: 1_000 })).toBe(1_100_002n)
    expect(approvalTarget(1n, { kind: 'unlimited' })).toBe(2n ** 256n - 1n)
  })

  it('approves exactly what the quote needs, which the trade uses up', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path(), funding: { asset: '5000' } })
    try {
      const outcome = await test.engine.execute(buy(chain.chainId, 'exact'))
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
      expect(outcome.transactions.map((tx) => tx.kind)).toEqual(['approve', 'execute'])
      expect(await allowanceOf(chain, test.account.address)).toBe(0n)
    } finally {
      await test.close()
    }
  })

  it('skips the approval when the allowance suffices (unlimited: one approval for two trades)', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { approvalPolicy: { kind: 'unlimited' } },
    })
    try {
      const first = await test.engine.execute(buy(chain.chainId, 'unlimited-1'))
      const second = await test.engine.execute(buy(chain.chainId, 'unlimited-2'))
      expect(first.transactions.map((tx) => tx.kind)).toEqual(['approve', 'execute'])
      expect(second.transactions.map((tx) => tx.kind)).toEqual(['execute'])
      expect(second.execution.state, second.execution.reason).toBe('confirmed')
      expect(
        test.ledger.executions.listExecutionEvents(second.execution.id).map((event) => event.to),
      ).not.toContain('approving')
    } finally {
      await test.close()
    }
  })

  it('resets a USDT-like allowance to zero before raising it (buffered policy leaves a rest)', async () => {
    const chain = chainWithoutRouter() // default asset: USDT, 18 decimals, zero-first approvals
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
      settings: { approvalPolicy: { kind: 'buffered', bufferBps: 1_000 } },
    })
    try {
      const first = await test.engine.execute(buy(chain.chainId, 'buffered-1'))
      expect(first.execution.state, first.execution.reason).toBe('confirmed')
      const paid = first.fills[0]?.amountIn ?? 0n
      const rest = await allowanceOf(chain, test.account.address)
      expect(rest).toBeGreaterThan(0n)
      expect(rest).toBe(approvalTarget(paid, { kind: 'buffered', bufferBps: 1_000 }) - paid)
      const second = await test.engine.execute(buy(chain.chainId, 'buffered-2'))
      expect(second.execution.state, second.execution.reason).toBe('confirmed')
      expect(second.transactions.map((tx) => tx.kind)).toEqual(['approve', 'approve', 'execute'])
      expect(second.transactions.map((tx) => tx.nonce)).toEqual([2, 3, 4])
    } finally {
      await test.close()
    }
  })
})

describe('planFromReading', () => {
  const token = '0x00000000000000000000000000000000000000a1' as const
  const spender = '0x00000000000000000000000000000000000000c3' as const
  const reading = (onChain: bigint, resetFirst: boolean | undefined): AllowanceReading => ({
    token,
    spender,
    needed: 100n,
    target: 100n,
    onChain,
    resetFirst,
  })
  const amounts = (plan: ReturnType<typeof planFromReading>) =>
    plan.approvals.map((approval) => decodeFunctionData({ abi: erc20Abi, data: approval.data }).args?.[1])

  it('sends nothing when the least the allowance can be covers the quote', () => {
    const plan = planFromReading(reading(150n, true), { expected: 150n, atLeast: 100n, dependsOn: [7] })
    expect(plan.approvals).toEqual([])
    expect(plan.dependsOn).toEqual([7])
  })

  it('approves when only the estimate covers the quote: a cancelled execute of ours may still land', () => {
    const plan = planFromReading(reading(100n, false), { expected: 100n, atLeast: 10n, dependsOn: [4] })
    expect(amounts(plan)).toEqual([100n])
  })

  it('on a reset-first token, resets first whenever something of ours touching the allowance is not final', () => {
    // The chain reads zero and the estimate is zero: the pending execute spends it all, unless it is cancelled.
    const pending = { expected: 0n, atLeast: 0n, dependsOn: [3, 4] }
    expect(amounts(planFromReading(reading(0n, true), pending))).toEqual([0n, 100n])
    // A token that could not be told is treated as one that refuses.
    expect(amounts(planFromReading(reading(0n, undefined), pending))).toEqual([0n, 100n])
    // An ordinary token: the approval sets the allowance whatever it was.
    expect(amounts(planFromReading(reading(0n, false), pending))).toEqual([100n])
  })

  it('on a reset-first token, approves at once only an allowance known to be zero', () => {
    const settled = (onChain: bigint) => ({ expected: onChain, atLeast: onChain, dependsOn: [] })
    expect(amounts(planFromReading(reading(0n, true), settled(0n)))).toEqual([100n])
    expect(amounts(planFromReading(reading(40n, true), settled(40n)))).toEqual([0n, 100n])
  })
})
