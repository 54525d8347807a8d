import type { Address, Hex } from 'viem'
import { generateLedger } from '../../bench/report/generateLedger.js'
import { benchChains } from '../../bench/report/universe.js'
import { type NewFill, type NewIncome, openLedger } from '../../src/store/index.js'

// A ledger with the widest values a report meets, for the terminal-width tests (no chain needed):
// the report benchmark's generated ledger (two chains, one of them with an 18-decimal asset,
// StockTokens and ShareTokens, failed, expired and rejected executions with their reasons,
// splits, delistings, a ticker change, dividends with transaction hashes), then, written through
// the ledger's repositories, what makes lines longer still: a long ticker, a strategy with a long
// name, an execution that failed with a long revert message holding hex data, a fill and an income
// of that ticker in 18-decimal amounts, the assets' symbols, and the kill switch halted with a long
// reason.

/** The values written on top of the generated ledger, for the tests to look for. */
export const wideValues = {
  ticker: 'BRK.B-CLASS-Bs',
  strategy: 'rebalance-core-alpha-quarterly-drift',
  reason:
    'simulation failed: execution reverted with 0x08c379a00000000000000000000000000000000000000000000000000000000000000020 "ERC20: transfer amount exceeds balance" (allowance of 0x7a1E0003…)',
  fillTxHash: '0x9f1c4b2e8d7a6f5e4d3c2b1a09f8e7d6c5b4a3928176f5e4d3c2b1a0f9e8d7c6' as Hex,
  incomeReference: 'corporate-action:2026-10-30:BRK.B-CLASS-Bs:cash-dividend:0.2500-USD',
  haltReason:
    'operator: exchange outage on chain 31338, the service answered 503 to every quote for forty minutes',
  token: '0x7b0000000000000000000000000000000000b0b1' as Address,
} as const

/**
 * Writes the ledger at `path` (replacing it) and returns the time to report it at (its last instant).
 *
 * @example
 * const now = writeWideLedger(join(dir, 'stockroute.sqlite'))
 * runReport('fills', { ledger, now: () => now }, { limit: 1000 })
 */
export function writeWideLedger(path: string): number {
  const meta = generateLedger({ path, fills: 1500, days: 10 })
  const now = meta.endMs
  const ledger = openLedger({ path, now: () => now })
  try {
    const [six, eighteen] = benchChains
    if (!six || !eighteen) throw new Error('the generated ledger has two chains')
    ledger.chainAssets.record({ chainId: six.chainId, address: six.assetToken, symbol: 'USDC', decimals: 6 })
    ledger.chainAssets.record({
      chainId: eighteen.chainId,
      address: eighteen.assetToken,
      symbol: 'USDT0',
      decimals: 18,
    })
    const execution = ledger.executions.createExecution({
      intentId: 'wide-values',
      chainId: eighteen.chainId,
      ticker: wideValues.ticker,
      exchange: 0,
      side: 'sell',
      amountIn: '271.828182845904523536',
      amountType: 'stocktoken',
      strategy: wideValues.strategy,
    })
    ledger.executions.transition(execution.id, 'intent', 'failed', wideValues.reason)
    const fill: NewFill = {
      chainId: eighteen.chainId,
      txHash: wideValues.fillTxHash,
      logIndex: 0,
      quoteId: '0x5e1f0c2a7b3d4e6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7',
      taker: eighteen.wallets[0] as Address,
      stockToken: wideValues.token,
      assetToken: eighteen.assetToken,
      isBuy: true,
      amountIn: 1_234_567_890_123_456_789_012_345n,
      amountOut: 2_718_281_828_459_045_235_360n,
      feeAmount: 1_234_567_890_123_456_789_012n as NewFill['feeAmount'],
      blockNumber: 21_999_999n,
      blockTime: BigInt(Math.floor(now / 1000) - 60),
      ticker: wideValues.ticker,
      exchange: 0,
      tokenKind: 'share',
      assetDecimals: 18,
    }
    ledger.fills.recordFill(fill)
    ledger.income.recordIncome({
      chainId: eighteen.chainId,
      tokenAddress: wideValues.token,
      ticker: wideValues.ticker,
      kind: 'dividend',
      amount: 579_981_234_567_890_123_456n as NewIncome['amount'],
      assetToken: eighteen.assetToken,
      assetDecimals: 18,
      quantity: 2_718_281_828_459_045_235_360n,
      original: {
        currency: 'USD',
        gross: '679.570457',
        tax: '101.935569',
        fee: '0.5',
        net: '577.134888',
        taxRate: 15,
      },
      txHash: '0x0c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d',
      logIndex: 3,
      reference: wideValues.incomeReference,
      reason: `dividend 0.25 USD per share of ${wideValues.ticker}, paid in USDT0 after 15% withholding tax`,
    })
    ledger.risk.halt(wideValues.haltReason)
  } finally {
    ledger.close()
  }
  return now
}
