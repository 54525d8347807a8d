import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, type Hex, keccak256, toHex } from 'viem'
import { afterAll } from 'vitest'
import { type NewFill, openLedger } from '../../src/store/index.js'
import { builtFixture } from '../helpers/builtFixture.js'
import { repoRoot } from '../helpers/processes.js'

/**
 * A fresh folder under the OS temp dir for this test file's ledgers, removed after the file's tests.
 * Every ledger in these tests is a real SQLite file: WAL, fsync and locking only exist on files.
 */
export function ledgerFolder(): { path(name?: string): string; migratedPath(name?: string): string } {
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-store-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let count = 0
  const path = (name?: string) => join(dir, name ?? `ledger-${++count}.sqlite`)
  let template: string | undefined
  return {
    path,
    /**
     * Like `path`, with a ledger already there: a copy of one this folder created and closed (its
     * schema current, nothing in it). For tests that open hundreds of ledgers: creating the schema
     * takes about 50 ms of CPU a file, a copy well under 1 ms.
     */
    migratedPath: (name) => {
      if (template === undefined) {
        template = path('migrated-template.sqlite')
        openLedger({ path: template }).close()
      }
      const copy = path(name)
      copyFileSync(template, copy)
      return copy
    },
  }
}

/** A new execution's fields: a buy of AAPL for 100 units of chain 31337's asset, under `intentId`. */
export function intent(intentId: string) {
  return {
    intentId,
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0 as const,
    side: 'buy' as const,
    amountIn: '100',
    amountType: 'stablecoin' as const,
  }
}

/** A deterministic 32-byte value for hashes and quote ids in tests. */
export function bytes32(label: string): Hex {
  return keccak256(toHex(label))
}

export const tokens = {
  aapl: '0x1000000000000000000000000000000000000001' as Address,
  aapls: '0x1000000000000000000000000000000000000002' as Address,
  tsla: '0x1000000000000000000000000000000000000003' as Address,
  usdc: '0x2000000000000000000000000000000000000001' as Address,
  taker: '0x3000000000000000000000000000000000000001' as Address,
}

/** A QuoteExecuted fill on chain 31337 in a 6-decimal asset; override what the test is about. */
export function fillOf(overrides: Partial<NewFill> & { txLabel: string }): NewFill {
  const { txLabel, ...rest } = overrides
  return {
    chainId: 31337,
    txHash: bytes32(`tx/${txLabel}`),
    logIndex: 0,
    quoteId: bytes32(`quote/${txLabel}`),
    taker: tokens.taker,
    stockToken: tokens.aapl,
    assetToken: tokens.usdc,
    isBuy: true,
    amountIn: 1_000_000_000n,
    amountOut: 5n,
    feeAmount: 1_000_000n as NewFill['feeAmount'],
    blockNumber: 100n,
    blockTime: 1_750_000_000n,
    ticker: 'AAPL',
    exchange: 0,
    tokenKind: 'stock',
    assetDecimals: 6,
    ...rest,
  }
}

/**
 * Runs two test/store/fixtures/ledgerWorker.ts processes at once (each its own SQLite connection and
 * locks), released together by a barrier once both have opened the ledger; resolves with their
 * JSON outputs.
 */
export function raceLedgerWorkers<T>(
  mode: 'commit' | 'transition',
  path: string,
  argsA: readonly string[],
  argsB: readonly string[],
): Promise<[T, T]> {
  const barrier = mkdtempSync(join(tmpdir(), 'stockroute-barrier-'))
  const run = (args: readonly string[]) => runLedgerWorker<T>([mode, path, barrier, ...args])
  return Promise.all([run(argsA), run(argsB)]).finally(() =>
    rmSync(barrier, { recursive: true, force: true }),
  )
}

function runLedgerWorker<T>(args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtFixture('test/store/fixtures/ledgerWorker.ts'), ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`ledger worker exited with ${code}:\n${stderr}`))
      else resolve(JSON.parse(stdout) as T)
    })
  })
}
