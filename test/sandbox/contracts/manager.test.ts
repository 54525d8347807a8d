import {
  shareTokenAbi,
  stockTokenAbi,
  stockTokenBytecode,
  stockTokenManagerAbi,
} from '@stockroute/sandbox/contracts/artifacts/index.js'
import { type Address, parseEventLogs } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  balanceOf,
  chainWithoutRouter,
  chainWithRouter,
  clientsFor,
  deployerClient,
  freshWallet,
  newQuoteId,
  tokenOf,
} from '../../helpers/localChains.js'
import { expectRevert } from '../../helpers/reverts.js'

const chain = chainWithRouter()

/** A StockToken of the test's own, so renaming or pausing it cannot disturb other test files. */
async function ownStockToken(symbol: string): Promise<Address> {
  const deployer = await deployerClient(chain)
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const hash = await deployer.deployContract({
    abi: stockTokenAbi,
    bytecode: stockTokenBytecode,
    args: [`${symbol} test stock`, symbol, chain.managerAddress],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (!receipt.contractAddress) throw new Error('no contract address')
  return receipt.contractAddress
}

async function manage(functionName: string, args: readonly unknown[]) {
  const deployer = await deployerClient(chain)
  const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const hash = await deployer.writeContract({
    address: chain.managerAddress,
    abi: stockTokenManagerAbi,
    // biome-ignore lint/suspicious/noExplicitAny: one helper for several manager functions
    functionName: functionName as any,
    // biome-ignore lint/suspicious/noExplicitAny: their argument tuples differ
    args: args as any,
  })
  return publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

describe('StockTokenManager corporate actions', () => {
  it('a 3-for-2 split multiplies holdings by 3/2 and records the lost half share as compensation', async () => {
    const token = await ownStockToken('SPLT')
    const [a, b] = [await freshWallet(chain), await freshWallet(chain)]
    await manage('mintBatch', [token, [a.account.address, b.account.address], [5n, 10n]])
    const actionId = newQuoteId()

    const receipt = await manage('applySplit', [
      actionId,
      token,
      [a.account.address, b.account.address],
      3n,
      2n,
    ])

    expect(await balanceOf(chain, token, a.account.address)).toBe(7n)
    expect(await balanceOf(chain, token, b.account.address)).toBe(15n)
    const compensation = (holder: Address) =>
      a.publicClient.readContract({
        address: chain.managerAddress,
        abi: stockTokenManagerAbi,
        functionName: 'compensation',
        args: [actionId, holder],
      })
    expect(await compensation(a.account.address)).toBe(500_000_000_000_000_000n)
    expect(await compensation(b.account.address)).toBe(0n)
    const events = parseEventLogs({
      abi: stockTokenManagerAbi,
      logs: receipt.logs,
      eventName: 'HoldingAdjusted',
    })
    expect(events.map((e) => [e.args.actionType, e.args.balanceBefore, e.args.balanceAfter])).toEqual([
      [1, 5n, 7n],
      [1, 10n, 15n],
    ])
  })

  it('a 1-for-10 reverse split divides holdings by 10, rounding down, with compensation', async () => {
    const token = await ownStockToken('RVRS')
    const holder = await freshWallet(chain)
    await manage('mint', [token, holder.account.address, 25n])
    const actionId = newQuoteId()

    const receipt = await manage('applySplit', [actionId, token, [holder.account.address], 1n, 10n])

    expect(await balanceOf(chain, token, holder.account.address)).toBe(2n)
    const [event] = parseEventLogs({
      abi: stockTokenManagerAbi,
      logs: receipt.logs,
      eventName: 'HoldingAdjusted',
    })
    expect(event?.args).toMatchObject({ actionType: 2, balanceBefore: 25n, balanceAfter: 2n })
    expect(event?.args.compensationE18).toBe(500_000_000_000_000_000n)
  })

  it('a split of a ShareToken scales 18-decimal balances exactly', async () => {
    const other = chainWithoutRouter()
    const holder = await freshWallet(other, { tokens: { TSLAs: 1_500_000_000_000_000_000n } })
    const tsla = tokenOf(other, 'TSLAs')
    const deployer = await deployerClient(other)
    const hash = await deployer.writeContract({
      address: other.managerAddress,
      abi: stockTokenManagerAbi,
      functionName: 'applySplit',
      args: [newQuoteId(), tsla, [holder.account.address], 2n, 1n],
    })
    await holder.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(await balanceOf(other, tsla, holder.account.address)).toBe(3_000_000_000_000_000_000n)
    const underlying = await holder.publicClient.readContract({
      address: tsla,
      abi: shareTokenAbi,
      functionName: 'underlying',
    })
    expect(underlying).toBe(tokenOf(other, 'TSLA'))
  })

  it('a delisting burns the holdings', async () => {
    const token = await ownStockToken('DLST')
    const holder = await freshWallet(chain)
    await manage('mint', [token, holder.account.address, 300n])
    await manage('delist', [newQuoteId(), token, [holder.account.address]])
    expect(await balanceOf(chain, token, holder.account.address)).toBe(0n)
  })

  it('a ticker change renames the token symbol and emits TickerChanged', async () => {
    const token = await ownStockToken('OLDT')
    const receipt = await manage('changeTicker', [newQuoteId(), token, 'NEWT'])
    const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    expect(
      await publicClient.readContract({ address: token, abi: stockTokenAbi, functionName: 'symbol' }),
    ).toBe('NEWT')
    const [event] = parseEventLogs({
      abi: stockTokenManagerAbi,
      logs: receipt.logs,
      eventName: 'TickerChanged',
    })
    expect(event?.args).toMatchObject({ previousSymbol: 'OLDT', newSymbol: 'NEWT' })
  })

  it('while a token is paused, holders cannot transfer it; the manager can still adjust balances', async () => {
    const token = await ownStockToken('PAUS')
    const holder = await freshWallet(chain)
    await manage('mint', [token, holder.account.address, 10n])
    await manage('pauseToken', [token])
    await expectRevert(
      holder.publicClient.simulateContract({
        account: holder.account,
        address: token,
        abi: stockTokenAbi,
        functionName: 'transfer',
        args: [chain.payerAddress, 1n],
      }),
      'TokenPaused',
    )
    await manage('applySplit', [newQuoteId(), token, [holder.account.address], 2n, 1n])
    expect(await balanceOf(chain, token, holder.account.address)).toBe(20n)
    await manage('unpauseToken', [token])
    const hash = await holder.walletClient.writeContract({
      address: token,
      abi: stockTokenAbi,
      functionName: 'transfer',
      args: [chain.payerAddress, 1n],
    })
    expect((await holder.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe(
      'success',
    )
  })

  it('only the manager mints, and only role holders act through the manager', async () => {
    const outsider = await freshWallet(chain)
    await expectRevert(
      outsider.publicClient.simulateContract({
        account: outsider.account,
        address: tokenOf(chain, 'AAPL'),
        abi: stockTokenAbi,
        functionName: 'mint',
        args: [outsider.account.address, 1n],
      }),
      'NotManager',
    )
    await expectRevert(
      outsider.publicClient.simulateContract({
        account: outsider.account,
        address: chain.managerAddress,
        abi: stockTokenManagerAbi,
        functionName: 'mint',
        args: [tokenOf(chain, 'AAPL'), outsider.account.address, 1n],
      }),
      'AccessControlUnauthorizedAccount',
    )
  })
})
