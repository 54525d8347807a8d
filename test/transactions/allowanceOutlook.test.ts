import { encodeFunctionData, erc20Abi, type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { executorAbi } from '../../src/chain/executorAbi.js'
import type { TransactionRecord } from '../../src/store/index.js'
import { allowanceOutlook } from '../../src/transactions/index.js'

const account = privateKeyToAccount(generatePrivateKey())
const usdc = '0x00000000000000000000000000000000000000a1' as const
const stock = '0x00000000000000000000000000000000000000b2' as const
const router = '0x00000000000000000000000000000000000000c3' as const

let id = 0
async function stored(
  kind: 'approve' | 'execute' | 'cancel',
  nonce: number,
  to: Hex,
  data: Hex,
): Promise<TransactionRecord> {
  const raw = await account.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    to,
    data,
    nonce,
    gas: 100_000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  })
  id += 1
  return {
    id,
    executionId: null,
    deadlineMs: null,
    fenceToken: null,
    chainId: 31337,
    from: account.address,
    nonce,
    kind,
    hash: keccak256(raw),
    raw,
    status: 'broadcast',
    replacesId: null,
    blockNumber: null,
    blockHash: null,
    receiptStatus: null,
    error: null,
    createdAtMs: 0,
    updatedAtMs: 0,
  }
}
const approve = (nonce: number, amount: bigint, token: Hex = usdc) =>
  stored(
    'approve',
    nonce,
    token,
    encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, amount] }),
  )
const execute = (nonce: number, amountIn: bigint, isBuy = true) =>
  stored(
    'execute',
    nonce,
    router,
    encodeFunctionData({
      abi: executorAbi,
      functionName: 'execute',
      args: [
        {
          quoteId: `0x${'11'.repeat(32)}`,
          stockToken: stock,
          assetToken: usdc,
          isBuy,
          amountIn,
          amountOut: 1n,
          feeAmount: 0n,
          expiresAt: 1n,
        },
        '0x',
      ],
    }),
  )

const outlook = (
  notFinal: TransactionRecord[],
  onChain: bigint,
  options: { token?: Hex; readAtBlock?: bigint } = {},
) =>
  allowanceOutlook(notFinal, {
    token: options.token ?? usdc,
    spender: router,
    onChain,
    readAtBlock: options.readAtBlock,
  })
const cancel = (nonce: number) => stored('cancel', nonce, account.address, '0x')
const mined = (
  tx: TransactionRecord,
  blockNumber: bigint,
  receiptStatus: 'success' | 'reverted' = 'success',
) => ({
  ...tx,
  status: 'mined' as const,
  blockNumber,
  receiptStatus,
})
const replaced = (tx: TransactionRecord) => ({ ...tx, status: 'replaced' as const })

describe('allowanceOutlook', () => {
  it('is the on-chain allowance, depending on nothing, when nothing of ours is pending', () => {
    expect(outlook([], 70n)).toEqual({ expected: 70n, atLeast: 70n, dependsOn: [] })
  })

  it('subtracts what pending executes will spend: a second execution does not count the same allowance', async () => {
    expect(outlook([await execute(3, 60n)], 100n)).toEqual({ expected: 40n, atLeast: 40n, dependsOn: [3] })
  })

  it('never counts on a pending approval: it may be refused and its nonce cancelled', async () => {
    const pending = [await execute(1, 30n), await approve(2, 500n), await execute(3, 200n)]
    // The estimate: 30 - 30, set to 500, less 200. The least: the approval may not land.
    expect(outlook(pending, 30n)).toEqual({ expected: 300n, atLeast: 0n, dependsOn: [1, 2, 3] })
  })

  it('counts the execute a cancel replaced: the cancel may lose the race to it', async () => {
    const pending = [replaced(await execute(4, 90n)), await cancel(4)]
    // The newest version (the cancel) spends nothing; the execute it replaced may still land.
    expect(outlook(pending, 100n)).toEqual({ expected: 100n, atLeast: 10n, dependsOn: [4] })
  })

  it('a nonce mined at or below the reading block is in the reading, but still not final: it is depended on', async () => {
    const pending = [mined(await execute(5, 40n), 10n), await execute(6, 25n)]
    expect(outlook(pending, 60n, { readAtBlock: 10n })).toEqual({
      expected: 35n,
      atLeast: 35n,
      dependsOn: [5, 6],
    })
  })

  it('a nonce mined after the reading block counts as it landed; a reverted one spent nothing', async () => {
    const spent = [mined(await execute(5, 40n), 11n)]
    expect(outlook(spent, 60n, { readAtBlock: 10n })).toEqual({ expected: 20n, atLeast: 20n, dependsOn: [5] })
    const reverted = [mined(await execute(5, 40n), 11n, 'reverted')]
    expect(outlook(reverted, 60n, { readAtBlock: 10n })).toEqual({
      expected: 60n,
      atLeast: 20n,
      dependsOn: [5],
    })
  })

  it('ignores other tokens, other spenders and cancels, and never goes below zero', async () => {
    const pending = [
      await approve(1, 999n, stock),
      await execute(2, 80n, false),
      await cancel(3),
      await execute(4, 500n),
    ]
    expect(outlook(pending, 100n)).toEqual({ expected: 0n, atLeast: 0n, dependsOn: [4] })
    expect(outlook(pending, 0n, { token: stock })).toEqual({ expected: 919n, atLeast: 0n, dependsOn: [1, 2] })
  })
})
