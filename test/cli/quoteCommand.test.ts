import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeSandbox } from '@stockroute/sandbox/describe.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import { formatUnits } from 'viem'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { chainWithoutRouter, chainWithRouter, tokenOf } from '../helpers/localChains.js'
import { exitOf, spawnNode } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

const service = useSandboxService()
let configPath: string

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-quote-'))
  configPath = writeSandboxConfig(dir, describeSandbox(inject('localChains'), service()))
})

/** Runs `stockroute quote …` against this file's sandbox; resolves with its exit code and output. */
async function quote(args: readonly string[]) {
  const child = spawnNode(['bin/stockroute.js', 'quote', ...args, '--config', configPath])
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const { code } = await exitOf(child)
  return { code, stdout, stderr }
}

function issued(quoteId: string) {
  const found = service().context.quotes.get(quoteId)
  if (!found) throw new Error(`the sandbox issued no quote ${quoteId}`)
  return found
}

describe('stockroute quote', () => {
  it('--json: the signed quote the sandbox issued, with the asset read from the chain and the time left', async () => {
    const chain = chainWithRouter()
    const run = await quote([
      '--chain',
      String(chain.chainId),
      '--ticker',
      'AAPL',
      '--exchange',
      '0',
      '--side',
      'buy',
      '--amount',
      '1000',
      '--json',
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const printed = JSON.parse(run.stdout)
    const sandbox = issued(printed.quote.quoteId)
    expect(printed.quote).toEqual({
      quoteId: sandbox.quoteId,
      ticker: 'AAPL',
      exchange: 0,
      chainId: chain.chainId,
      tokenKind: 'stock',
      stockToken: tokenOf(chain, 'AAPL'),
      assetToken: chain.defaultAsset.address,
      isBuy: true,
      amountType: 'stablecoin_in',
      amountIn: String(sandbox.amountIn),
      amountInUsed: String(sandbox.amountInUsed),
      amountOut: String(sandbox.amountOut),
      feeAmount: String(sandbox.feeAmount),
      price: String(sandbox.price),
      expiresAt: sandbox.expiresAt,
    })
    expect(printed.signature).toBe(sandbox.signature)
    expect(printed.requiredApprovals).toEqual([
      {
        tokenAddress: chain.defaultAsset.address,
        spender: chain.executorAddress,
        amount: String(sandbox.amountInUsed),
        description: expect.any(String),
      },
    ])
    expect(printed.asset).toEqual({ symbol: 'USDC', address: chain.defaultAsset.address, decimals: 6 })
    expect(printed.tokenDecimals).toBe(0)
    expect(printed.expiresInSeconds).toBeGreaterThan(0)
    expect(printed.expiresInSeconds).toBeLessThanOrEqual(10)
    expect(printed.formatted).toMatchObject({
      amountIn: '1000 USDC',
      amountInUsed: `${formatUnits(sandbox.amountInUsed, 6)} USDC`,
      amountOut: `${sandbox.amountOut} AAPL`,
    })
    // The engine's view of this very quote: the guard passes, nothing halts it, an exact approval.
    expect(printed.guard).toMatchObject({
      evaluated: true,
      wouldExecute: true,
      verdict: { ok: true, formatted: { effectivePrice: expect.stringMatching(/ USDC$/) } },
      riskProblem: null,
      halted: null,
      minValidityMs: expect.any(Number),
    })
    expect(printed.guard.verdict.remainingMs).toBeGreaterThanOrEqual(printed.guard.minValidityMs)
    const allowance = BigInt(printed.guard.approvals.currentAllowance)
    expect(printed.guard.approvals.approvals).toEqual(
      allowance >= sandbox.amountInUsed
        ? []
        : [
            {
              token: chain.defaultAsset.address,
              spender: chain.executorAddress,
              amount: String(sandbox.amountInUsed),
            },
          ],
    )
  })

  it('prints a sell readably: amounts in natural units of an 18-decimal asset, and the seconds left', async () => {
    const chain = chainWithoutRouter()
    const run = await quote([
      '--chain',
      String(chain.chainId),
      '--ticker',
      'AAPLs',
      '--exchange',
      '0',
      '--side',
      'sell',
      '--amount',
      '0.5',
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const quoteId = /quote id\s+(0x[0-9a-f]{64})/.exec(run.stdout)?.[1] ?? ''
    const sandbox = issued(quoteId)
    const symbol = chain.defaultAsset.symbol
    expect(run.stdout).toContain(`sell AAPLs (exchange 0, ShareToken, 18 decimals) on chain ${chain.chainId}`)
    expect(run.stdout).toMatch(/deliver\s+0\.5 AAPLs\n/)
    expect(run.stdout).toContain(
      `${formatUnits(sandbox.amountOut, 18)} ${symbol} (net of fee ${formatUnits(sandbox.feeAmount, 18)} ${symbol})`,
    )
    expect(run.stdout).toContain(`${formatUnits(sandbox.price, 18)} ${symbol} per share`)
    expect(run.stdout).toMatch(/approve\s+0\.5 AAPLs to spender 0x/)
    expect(run.stdout).toMatch(/expires\s+in (10|[1-9]) s \(/)
  })

  it('refuses a bad --side with a clear message, before any request', async () => {
    const before = service().context.quotes.size
    const run = await quote([
      '--chain',
      '31337',
      '--ticker',
      'AAPL',
      '--exchange',
      '0',
      '--side',
      'hold',
      '--amount',
      '10',
    ])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/option '--side <side>' argument 'hold' is invalid\. must be buy or sell/)
    expect(run.stdout).toBe('')
    expect(service().context.quotes.size).toBe(before)
  })

  it.each([
    [['--amount', '1e3'], /--amount <amount>' argument '1e3' is invalid\. It uses exponent notation/],
    [['--amount', '-5'], /--amount <amount>' argument '-5' is invalid\. It is negative/],
    [
      ['--amount', '10', '--exchange', '2'],
      /--exchange <code>' argument '2' is invalid\. must be an exchange code/,
    ],
    [
      ['--amount', '10', '--chain', 'alpha'],
      /--chain <id>' argument 'alpha' is invalid\. must be a chain id/,
    ],
    [['--amount', '10', '--amount-type', 'usd'], /--amount-type <type>' argument 'usd' is invalid/],
    [['--amount', '10', '--side', 'sell', '--amount-type', 'stablecoin'], /stablecoin applies to buys only/],
  ])('refuses %j with a clear message', async (args, message) => {
    const run = await quote([
      '--chain',
      '31337',
      '--ticker',
      'AAPL',
      '--exchange',
      '0',
      '--side',
      'buy',
      ...args,
    ])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(message)
  })

  it('shows the kill switch and the verdict a swap would get while halted', async () => {
    const killSwitch = async (command: 'halt' | 'resume') => {
      const child = spawnNode(['bin/stockroute.js', command, '--config', configPath])
      expect((await exitOf(child)).code).toBe(0)
    }
    await killSwitch('halt')
    try {
      const run = await quote([
        '--chain',
        String(chainWithRouter().chainId),
        '--ticker',
        'AAPL',
        '--exchange',
        '0',
        '--side',
        'buy',
        '--amount',
        '1000',
      ])
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(
        /\n {2}guard {5}ok: [\d.]+ USDC per share, fee included, vs market [\d.]+ USDC/,
      )
      expect(run.stdout).toMatch(/\n {2}risk {6}within limits\n/)
      expect(run.stdout).toMatch(/\n {2}halted {4}yes: operator: stockroute halt\n/)
      expect(run.stdout).toMatch(/\n {2}allowance [\d.]+ USDC allowed: /)
      expect(run.stdout).toMatch(/\n {2}swap {6}would be refused \(kill switch\)\n?$/)
    } finally {
      await killSwitch('resume')
    }
  })

  it("surfaces the service's refusal (HK lot size) and exits non-zero", async () => {
    const run = await quote([
      '--chain',
      String(chainWithRouter().chainId),
      '--ticker',
      '1810',
      '--exchange',
      '1',
      '--side',
      'sell',
      '--amount',
      '150',
    ])
    expect(run.code).toBe(exitCodes.refused)
    expect(run.stderr).toMatch(/Lot size violation/)
  })
})
