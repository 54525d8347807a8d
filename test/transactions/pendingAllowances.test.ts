import { encodeFunctionData, erc20Abi, type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { executorAbi } from '../../src/chain/executorAbi.js'
import type { TransactionRecord } from '../../src/store/index.js'
import { allowanceAfterPending } from '../../src/transactions/index.js'

const account = privateKeyToAccount(generatePrivateKey())
const usdc = '0x00000000000000000000000000000000000000a1' as const
const stock = '0x00000000000000000000000000000000000000b2' as const
const router = '0x00000000000000000000000000000000000000c3' as const

let id = 0
async function stored(
  kind: 'approve' | 'execute',
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

describe('allowanceAfterPending', () => {
  it('is the on-chain allowance when nothing is pending', () => {
    expect(allowanceAfterPending([], { token: usdc, spender: router, onChain: 70n })).toBe(70n)
  })

  it('subtracts what pending executes will spend: a second execution does not count the same allowance', async () => {
    const pending = [await execute(3, 60n)]
    expect(allowanceAfterPending(pending, { token: usdc, spender: router, onChain: 100n })).toBe(40n)
  })

  it('the last pending approval sets it; executes after it spend from it, those before from the old one', async () => {
    const pending = [await execute(1, 30n), await approve(2, 500n), await execute(3, 200n)]
    expect(allowanceAfterPending(pending, { token: usdc, spender: router, onChain: 30n })).toBe(300n)
  })

  it('ignores other tokens and other spenders, and never goes below zero', async () => {
    const pending = [await approve(1, 999n, stock), await execute(2, 80n, false), await execute(3, 500n)]
    expect(allowanceAfterPending(pending, { token: usdc, spender: router, onChain: 100n })).toBe(0n)
    expect(allowanceAfterPending(pending, { token: stock, spender: router, onChain: 0n })).toBe(919n)
  })

  it('counts only the newest transaction at a nonce (a replacement)', async () => {
    const original = await execute(4, 90n)
    const cancel = { ...(await approve(4, 0n, stock)), kind: 'cancel' as const }
    expect(allowanceAfterPending([original, cancel], { token: usdc, spender: router, onChain: 100n })).toBe(
      100n,
    )
  })
})
