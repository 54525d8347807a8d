import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { type Address, encodeFunctionData, erc20Abi, getAddress, type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { swapOutcomeOf } from '../../src/cli/commands/swapOutcome.js'
import { describeSwap, swapResult } from '../../src/cli/commands/swapResult.js'
import { swapOutcomeOfView } from '../../src/cli/daemon/swapOutcomeOfView.js'
import { swapExecutionSchema } from '../../src/daemon/controlApi/contract.js'
import { toSwapExecutionView } from '../../src/daemon/controlApi/views/swapExecutionView.js'
import type { ExecutionOutcome } from '../../src/engine/index.js'
import type { ExecutionRecord, FillRecord, TransactionRecord } from '../../src/store/index.js'

// What `stockroute swap` prints of an outcome, from records shaped as the ledger returns them; and
// the same result when the outcome comes through the control API (a swap through the daemon).

const stock = '0x00000000000000000000000000000000000000a1' as Address
const usdt = '0x00000000000000000000000000000000000000b2' as Address
const executor = '0x0f8d000000000000000000000000000000000ec0' as Address
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

function execution(overrides: Partial<ExecutionRecord>): ExecutionRecord {
  return {
    id: 4,
    intentId: 'test-intent',
    chainId: 31338,
    ticker: 'AAPL',
    exchange: 0,
    side: 'sell',
    amountIn: '0.5',
    amountType: 'stocktoken',
    limitPrice: null,
    strategy: null,
    quoteId: hashOf(9),
    quote: null,
    notional: null,
    marketPrice: null,
    state: 'confirmed',
    version: 5,
    reason: 'settled in block 65',
    createdAtMs: 0,
    updatedAtMs: 100,
    ...overrides,
  }
}

function fill(overrides: Partial<FillRecord>): FillRecord {
  return {
    id: 1,
    chainId: 31338,
    txHash: hashOf(1),
    logIndex: 3,
    quoteId: hashOf(9),
    taker: executor,
    stockToken: stock,
    assetToken: usdt,
    isBuy: false,
    amountIn: 5n * 10n ** 17n,
    amountOut: 113_376_510_000_000_000_001n,
    feeAmount: 113_490_000_000_000_000n as never,
    blockNumber: 65n,
    blockHash: hashOf(2),
    blockTime: 0n,
    ticker: 'AAPLs',
    exchange: 0,
    tokenKind: 'share',
    assetDecimals: 18,
    reversedAtMs: null,
    reversalReason: null,
    seq: 1,
    executionId: 4,
    stockAmount: (5n * 10n ** 17n) as never,
    assetAmount: 113_376_510_000_000_000_001n as never,
    recordedAtMs: 0,
    ...overrides,
  }
}

/**
 * The outcome as `stockroute swap` reads it through a daemon: the daemon's `GET /v1/swaps/:id` view,
 * as JSON on the wire, parsed with the shared schema on the CLI's side. No ledger record crosses.
 */
function throughControlApi(outcome: ExecutionOutcome) {
  const wire = JSON.parse(JSON.stringify(toSwapExecutionView(outcome)))
  return swapOutcomeOfView(swapExecutionSchema.parse(wire))
}

const context = {
  asset: { symbol: 'USDT', decimals: 18 },
  dryRun: false,
  ledgerPath: '/tmp/ledger.sqlite',
  elapsedMs: 12,
  via: { kind: 'ledger' } as const,
}

describe('swapResult and describeSwap', () => {
  it('a sell: amounts without 18-decimal noise, the price labelled net of fee (not "fee included")', () => {
    const outcome: ExecutionOutcome = {
      execution: execution({ ticker: 'AAPLs' }),
      transactions: [],
      fills: [fill({})],
    }
    const result = swapResult(swapOutcomeOf(outcome), context)
    expect(swapResult(throughControlApi(outcome), context)).toEqual(result)
    expect(result.fills[0]?.formatted).toMatchObject({
      amountIn: '0.5 AAPLs',
      amountOut: '113.37651 USDT',
      feeAmount: '0.11349 USDT',
      price: '226.75302 USDT',
      priceBasis: 'net of fee',
    })
    const text = describeSwap(result, outcome.execution)
    expect(text).toMatch(/\n {2}delivered 0\.5 AAPLs\n/)
    expect(text).toMatch(/\n {2}received {2}113\.37651 USDT \(net of fee 0\.11349 USDT\)\n/)
    expect(text).toMatch(/\n {2}price {5}226\.75302 USDT per share, net of fee\n/)
    expect(text).not.toMatch(/fee included/)
    expect(text).not.toMatch(/\d\.\d{7,}/)
  })

  it('an HK buy: the price also in HKD, at the engine FX rate', () => {
    const outcome: ExecutionOutcome = {
      execution: execution({
        ticker: '0700',
        exchange: 1,
        side: 'buy',
        amountType: 'stocktoken',
        amountIn: '100',
      }),
      transactions: [],
      fills: [
        fill({
          ticker: '0700',
          exchange: 1,
          isBuy: true,
          tokenKind: 'stock',
          assetDecimals: 6,
          amountIn: 5_379_010_000n,
          amountOut: 100n,
          feeAmount: 5_374_000n as never,
          stockAmount: 100n as never,
          assetAmount: 5_379_010_000n as never,
        }),
      ],
    }
    const hk = { ...context, asset: { symbol: 'USDC', decimals: 6 }, fxRates: defaultFxRates }
    const result = swapResult(swapOutcomeOf(outcome), hk)
    expect(swapResult(throughControlApi(outcome), hk)).toEqual(result)
    expect(result.fills[0]?.formatted).toMatchObject({
      price: '53.7901 USDC',
      priceBasis: 'fee included',
      priceInCurrency: '418.6 HKD',
    })
    expect(describeSwap(result, outcome.execution)).toMatch(
      /\n {2}price {5}53\.7901 USDC per share, fee included \(418\.6 HKD\)\n/,
    )
  })

  it('a replay says so, in the text and as replay: true', () => {
    const outcome: ExecutionOutcome = { execution: execution({}), transactions: [], fills: [] }
    const replay = swapResult(swapOutcomeOf(outcome), { ...context, replay: true })
    expect(replay.replay).toBe(true)
    expect(describeSwap(replay, outcome.execution)).toMatch(
      /^replay of execution 4, nothing new traded: confirmed: sell AAPL on chain 31338/,
    )
    expect(swapResult(swapOutcomeOf(outcome), context).replay).toBe(false)
  })

  it('a dry run: not failed nor rejected; quantity, price, approval (amount, spender), gas', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const sign = (nonce: number, to: Address, data: Hex, gas: bigint) =>
      account.signTransaction({
        chainId: 31337,
        nonce,
        to,
        data,
        gas,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        type: 'eip1559',
      })
    const usdc = '0x00000000000000000000000000000000000000c3' as Address
    const approveRaw = await sign(
      0,
      usdc,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [executor, 912_631_720n] }),
      100_000n,
    )
    const executeRaw = await sign(1, executor, '0x12345678', 162_406n)
    const record = (id: number, kind: 'approve' | 'execute', raw: Hex, nonce: number): TransactionRecord => ({
      id,
      executionId: 4,
      chainId: 31337,
      from: account.address,
      nonce,
      kind,
      hash: keccak256(raw),
      raw,
      status: 'failed',
      replacesId: null,
      blockNumber: null,
      blockHash: null,
      receiptStatus: null,
      error: 'dry run: never broadcast',
      deadlineMs: null,
      fenceToken: null,
      createdAtMs: 0,
      updatedAtMs: 0,
    })
    const approve = record(1, 'approve', approveRaw, 0)
    const executeTx = record(2, 'execute', executeRaw, 1)
    const quote = {
      quoteId: hashOf(9),
      ticker: 'AAPL',
      exchange: 0,
      tokenKind: 'stock',
      stockToken: stock,
      assetToken: usdc,
      assetDecimals: 6,
      isBuy: true,
      amountType: 'stablecoin_in',
      amountIn: '1000000000',
      amountInUsed: '912631720',
      amountOut: '4',
      feeAmount: '911720',
      price: '227930000',
      expiresAt: 1,
      signature: '0x01',
    }
    const outcome: ExecutionOutcome = {
      execution: execution({
        chainId: 31337,
        side: 'buy',
        amountIn: '1000',
        amountType: 'stablecoin',
        state: 'rejected',
        quote,
        reason: `dry run: not broadcast; would send approve 912.63172 USDC to the executor ${executor} (tx ${approve.hash}, nonce 0), then execute ${executeTx.hash} (nonce 1, gas limit 162406); simulation: simulated with the allowance of its approval (912.63172 USDC), gas 135339`,
      }),
      transactions: [approve, executeTx],
      fills: [],
    }
    const dryRun = { ...context, asset: { symbol: 'USDC', decimals: 6 }, dryRun: true }
    const result = swapResult(swapOutcomeOf(outcome), dryRun)
    // Through the daemon: the plan comes from the calls the API decoded, never from signed bytes.
    const viaApi = throughControlApi(outcome)
    expect(JSON.stringify(toSwapExecutionView(outcome))).not.toContain(approveRaw.slice(2))
    expect(swapResult(viaApi, dryRun)).toEqual(result)
    expect(describeSwap(swapResult(viaApi, dryRun), viaApi.execution)).toBe(
      describeSwap(result, outcome.execution),
    )
    expect(result).toMatchObject({ state: 'dry-run', done: true, dryRun: true })
    expect(result.transactions.map((tx) => tx.status)).toEqual(['not-sent', 'not-sent'])
    expect(result.quote?.formatted).toMatchObject({
      quantity: '4 AAPL',
      assetAmount: '912.63172 USDC',
      price: '228.15793 USDC',
    })
    expect(result.dryRunPlan).toEqual({
      approvals: [
        {
          token: usdc,
          spender: getAddress(executor),
          amount: '912631720',
          formatted: '912.63172 USDC',
          hash: approve.hash,
          nonce: 0,
        },
      ],
      execute: { hash: executeTx.hash, nonce: 1, gasLimit: '162406' },
      simulation: 'simulated with the allowance of its approval (912.63172 USDC), gas 135339',
      gasEstimate: '135339',
    })
    const text = describeSwap(result, outcome.execution)
    expect(text).toMatch(/^dry run ok, nothing sent: buy AAPL on chain 31337/)
    // The labels' column is one wider than usual here: `simulation` fills the usual ten.
    expect(text).toMatch(/\n {2}quantity {3}4 AAPL\n/)
    expect(text).toMatch(/\n {2}price {6}228\.15793 USDC per share, fee included\n/)
    expect(text).toContain(
      `approve    912.63172 USDC to the executor ${getAddress(executor)} (tx ${approve.hash}, nonce 0, signed, not sent)`,
    )
    expect(text).toMatch(/\n {2}gas {8}135339 estimated by the simulation\n/)
    // Every label apart from its value, all values in one column: `simulation` too.
    expect(text).toMatch(
      /\n {2}simulation simulated with the allowance of its approval \(912\.63172 USDC\), gas 135339\n/,
    )
    const valueColumns = text
      .split('\n')
      .slice(1)
      .map((line) => /^ {2}(?:would pay|\S+) +/.exec(line)?.[0].length)
    expect(new Set(valueColumns)).toEqual(new Set([13]))
    expect(text).not.toMatch(/failed/)
  })
})
