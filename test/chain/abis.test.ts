import {
  assetTokenAbi,
  platformRouterAbi,
  rfqSettlementAbi,
  shareTokenAbi,
  stockTokenAbi,
} from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { executorAbi } from '../../src/chain/executorAbi.js'
import { erc20ErrorsAbi, serviceTokenErrorsAbi } from '../../src/chain/tokenErrorsAbis.js'

// chain/ keeps its own copy of the executor's ABI (the real deployment's interface); the sandbox
// compiles its own contracts. These tests make the two impossible to drift apart unnoticed.

type Fragment = { type: string; name?: string }

function fragment(abi: Abi, type: string, name: string | undefined): unknown {
  const found = (abi as readonly Fragment[]).filter((item) => item.type === type && item.name === name)
  expect(found, `${type} ${name} in the sandbox artifact`).toHaveLength(1)
  return found[0]
}

function expectCopied(copy: readonly Fragment[], artifacts: Record<string, Abi>) {
  for (const item of copy) {
    for (const [artifact, abi] of Object.entries(artifacts)) {
      expect(item, `${item.type} ${item.name} differs from ${artifact}'s`).toEqual(
        fragment(abi, item.type, item.name),
      )
    }
  }
}

describe('chain ABI copies (executorAbi.ts, tokenErrorsAbis.ts) of the sandbox artifacts', () => {
  it("every executor fragment equals RFQSettlement's and PlatformRouter's", () => {
    expect(executorAbi.length).toBeGreaterThan(0)
    expectCopied(executorAbi, { RFQSettlement: rfqSettlementAbi, PlatformRouter: platformRouterAbi })
  })

  it('the copy has execute, QuoteExecuted, eip712Domain and every error execute can raise', () => {
    const names = (type: string, abi: readonly Fragment[]) =>
      abi.filter((item) => item.type === type).map((item) => item.name)
    expect(names('function', executorAbi)).toEqual(
      expect.arrayContaining(['execute', 'eip712Domain', 'quoteUsed', 'hashQuote', 'operator']),
    )
    expect(names('event', executorAbi)).toEqual(['QuoteExecuted'])
    // Errors of construction and of owner-only functions cannot come out of execute.
    const notFromExecute = [
      'InvalidShortString',
      'StringTooLong',
      'OwnableInvalidOwner',
      'OwnableUnauthorizedAccount',
    ]
    const contractErrors = names('error', rfqSettlementAbi).filter(
      (name) => !notFromExecute.includes(name ?? ''),
    )
    expect(names('error', executorAbi).sort()).toEqual(contractErrors.sort())
  })

  it('the ERC-20 errors equal those of the asset, stock and share tokens', () => {
    expect(erc20ErrorsAbi).toHaveLength(6)
    expectCopied(erc20ErrorsAbi, {
      AssetToken: assetTokenAbi,
      StockToken: stockTokenAbi,
      ShareToken: shareTokenAbi,
    })
  })

  it("the service tokens' own errors equal the artifacts'", () => {
    const [allowanceNotZero, tokenPaused, ...rest] = serviceTokenErrorsAbi
    expect(rest).toEqual([])
    expectCopied([allowanceNotZero], { AssetToken: assetTokenAbi })
    expectCopied([tokenPaused], { StockToken: stockTokenAbi, ShareToken: shareTokenAbi })
  })
})
