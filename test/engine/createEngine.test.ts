import { erc20Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { quoteAndExecute } from '../api/actions/quoteExecution.js'
import { createTestEngine, engineLedgers, positionsAgainstChain } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter, clientsFor, tokenOf } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// End to end on the sandbox over HTTP and both anvil chains (one with a router and a 6-decimal
// asset, one without and an 18-decimal asset): intents become quotes, approvals, execute
// transactions, fills and positions, and the ledger's positions equal the chain's balances.

const service = useSandboxService()
const ledgers = engineLedgers()
const chains = [
  ['router, 6-decimal asset', chainWithRouter],
  ['settlement, 18-decimal asset', chainWithoutRouter],
] as const

async function assetBalance(chain: ReturnType<typeof chainWithRouter>, owner: `0x${string}`) {
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  return publicClient.readContract({
    address: chain.defaultAsset.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}

describe('engine end to end', () => {
  it.each(chains)('buys and sells a US StockToken (%s)', async (_label, pickChain) => {
    const chain = pickChain()
    const { engine, ledger, account, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
    })
    try {
      const buy = await engine.execute({
        intentId: 'buy-aapl',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
      })
      expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      expect(buy.fills).toHaveLength(1)
      const bought = buy.fills[0]?.amountOut ?? 0n
      expect(bought).toBeGreaterThan(0n)
      expect(buy.transactions.map((tx) => [tx.kind, tx.status])).toEqual([
        ['approve', 'mined'],
        ['execute', 'mined'],
      ])
      const sell = await engine.execute({
        intentId: 'sell-aapl',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'sell',
        amountIn: bought.toString(),
      })
      expect(sell.execution.state, sell.execution.reason).toBe('confirmed')
      expect(sell.fills[0]?.amountIn).toBe(bought)
      const events = ledger.executions.listExecutionEvents(sell.execution.id).map((event) => event.to)
      // The approval and the execute are signed together: no 'approving' stop between them.
      expect(events).toEqual(['intent', 'quoting', 'quoted', 'submitted', 'confirmed'])
      const sold = sell.transactions.map((tx) => [tx.kind, tx.nonce])
      expect(sold).toEqual([
        ['approve', expect.any(Number)],
        ['execute', (sold[0]?.[1] as number) + 1],
      ])
      for (const position of await positionsAgainstChain(ledger, account.address))
        expect(position.ledger).toBe(position.onChain)
      expect(ledger.positions.getPosition(chain.chainId, tokenOf(chain, 'AAPL'))?.balance).toBe(0n)
    } finally {
      await close()
    }
  })

  it.each(chains)('buys a fractional ShareToken (%s)', async (_label, pickChain) => {
    const chain = pickChain()
    const { engine, ledger, account, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '500' },
    })
    try {
      const buy = await engine.execute({
        intentId: 'buy-aapls',
        chainId: chain.chainId,
        ticker: 'AAPLs',
        exchange: 0,
        side: 'buy',
        amountIn: '100',
      })
      expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      const fill = buy.fills[0]
      expect(fill?.tokenKind).toBe('share')
      // Less than one share for 100 of the asset: a fraction, in 18-decimal units.
      expect(fill?.amountOut).toBeLessThan(10n ** 18n)
      for (const position of await positionsAgainstChain(ledger, account.address))
        expect(position.ledger).toBe(position.onChain)
    } finally {
      await close()
    }
  })

  it.each(chains)(
    'buys an HK stock with stablecoin-in: whole lots, the unused amount not spent (%s)',
    async (_label, pickChain) => {
      const chain = pickChain()
      const { engine, ledger, account, close } = await createTestEngine(service(), {
        ledgerPath: ledgers.path(),
        funding: { asset: '20000' },
      })
      try {
        const before = await assetBalance(chain, account.address)
        const buy = await engine.execute({
          intentId: 'buy-0700',
          chainId: chain.chainId,
          ticker: '0700',
          exchange: 1,
          side: 'buy',
          amountIn: '15000',
        })
        expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
        const fill = buy.fills[0]
        if (!fill) throw new Error('no fill')
        expect(fill.amountOut % 100n).toBe(0n)
        const offered = 15_000n * 10n ** BigInt(chain.defaultAsset.decimals)
        expect(fill.amountIn).toBeLessThan(offered)
        // Exactly what the fill says was paid left the wallet; the rest of the offer stayed.
        expect(before - (await assetBalance(chain, account.address))).toBe(fill.amountIn)
        const approve = buy.transactions.find((tx) => tx.kind === 'approve')
        expect(approve).toBeDefined()
        for (const position of await positionsAgainstChain(ledger, account.address))
          expect(position.ledger).toBe(position.onChain)
      } finally {
        await close()
      }
    },
  )

  it.each(chains)('sells a KR stock (%s)', async (_label, pickChain) => {
    const chain = pickChain()
    const { engine, ledger, account, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '1000' },
    })
    try {
      const buy = await engine.execute({
        intentId: 'buy-005930',
        chainId: chain.chainId,
        ticker: '005930',
        exchange: 3,
        side: 'buy',
        amountIn: '5',
        amountType: 'stocktoken',
      })
      expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      const sell = await engine.execute({
        intentId: 'sell-005930',
        chainId: chain.chainId,
        ticker: '005930',
        exchange: 3,
        side: 'sell',
        amountIn: '3',
      })
      expect(sell.execution.state, sell.execution.reason).toBe('confirmed')
      expect(sell.fills[0]?.amountIn).toBe(3n)
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const held = await publicClient.readContract({
        address: tokenOf(chain, '005930'),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [account.address],
      })
      expect(held).toBe(2n)
      for (const position of await positionsAgainstChain(ledger, account.address))
        expect(position.ledger).toBe(position.onChain)
    } finally {
      await close()
    }
  })
})

describe('engine.syncSettlements', () => {
  it('finds nothing new after its own executions, and counts a settlement made outside it', async () => {
    const chain = chainWithRouter()
    const { engine, ledger, privateKey, client, close } = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '5000' },
    })
    try {
      const buy = await engine.execute({
        intentId: 'sync-1',
        chainId: chain.chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '500',
      })
      expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      const { publicClient, testClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      const headBefore = await publicClient.getBlockNumber({ cacheTime: 0 })
      expect(await engine.syncSettlements()).toEqual({ fillsRecorded: 0, unattributedFills: 0 })
      const headAfter = await publicClient.getBlockNumber({ cacheTime: 0 })
      // The checkpoint covers final blocks only: the head minus the chain's confirmations (1 here).
      // The chains are shared with the other test files, whose trades may mine blocks meanwhile.
      const checkpoint = ledger.checkpoints.getCheckpoint(chain.chainId)
      expect(checkpoint).toBeGreaterThanOrEqual(headBefore - 1n)
      expect(checkpoint).toBeLessThanOrEqual(headAfter - 1n)

      // The same wallet trades by hand: the ledger holds no execution for that quote.
      await quoteAndExecute(client, chain, clientsFor(chain, privateKey), {
        ticker: 'AAPL',
        isBuy: true,
        amountIn: '300',
      })
      await testClient.mine({ blocks: 1 })
      expect(await engine.syncSettlements()).toEqual({ fillsRecorded: 0, unattributedFills: 1 })
      expect(ledger.fills.listFills()).toHaveLength(1)
    } finally {
      await close()
    }
  })
})
