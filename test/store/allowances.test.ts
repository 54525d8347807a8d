import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { LedgerInputError, openLedger } from '../../src/store/index.js'
import { bytes32, intent, ledgerFolder, tokens } from './ledgerFiles.js'

// The open allowances of the ledger, on a real file: an approval whose execution never sent its
// execute is recorded once per approval transaction, listed while open (oldest first, by chain,
// token and spender), and closed, all of a (chain, token, spender) at once and only those, when an
// execution uses it or a revoke is mined. The expected rows are written out by hand.

const folder = ledgerFolder()
const owner = '0x4000000000000000000000000000000000000001' as Address
const router = '0x5000000000000000000000000000000000000001' as Address
const settlement = '0x5000000000000000000000000000000000000002' as Address

/** A ledger on a new file whose clock reads `clock.ms` (set it before each write). */
function ledgerAt(path = folder.path()) {
  const clock = { ms: 1_700_000_000_000 }
  const ledger = openLedger({ path, now: () => clock.ms })
  return { ledger, clock, path }
}

/** An open allowance of `owner` on chain 31337: 5 USDC to the router unless told otherwise. */
function allowance(label: string, parts: Partial<Parameters<typeof recordArguments>[0]> = {}) {
  return recordArguments({ approveTxHash: bytes32(`approve/${label}`), ...parts })
}
function recordArguments(parts: {
  chainId?: number
  token?: Address
  spender?: Address
  amount?: bigint
  approveTxHash: `0x${string}`
  executionId?: number
  reason?: string
}) {
  return {
    chainId: 31337,
    owner,
    token: tokens.usdc,
    spender: router,
    amount: 5_000_000n,
    reason: 'execution expired after approving',
    ...parts,
  }
}

describe('open allowances: recording', () => {
  it('records an approval once: the same transaction again returns the first row, not created', () => {
    const { ledger, clock } = ledgerAt()
    try {
      const execution = ledger.executions.createExecution(intent('approved-then-expired'))
      const first = ledger.allowances.recordOpenAllowance(
        allowance('once', { executionId: execution.id, reason: 'execution 1 expired after approving' }),
      )
      expect(first).toEqual({
        created: true,
        allowance: {
          id: 1,
          chainId: 31337,
          owner,
          token: tokens.usdc,
          spender: router,
          amount: 5_000_000n,
          approveTxHash: bytes32('approve/once'),
          executionId: execution.id,
          state: 'open',
          reason: 'execution 1 expired after approving',
          closedReason: null,
          recordedAtMs: 1_700_000_000_000,
          updatedAtMs: 1_700_000_000_000,
        },
      })
      // Recorded again later (a restart's recovery sees the same approval), with other words and amount.
      clock.ms += 5_000
      const again = ledger.allowances.recordOpenAllowance(
        allowance('once', { amount: 9n, reason: 'seen again at restart' }),
      )
      expect(again).toEqual({ created: false, allowance: first.allowance })
      expect(ledger.allowances.listOpenAllowances()).toEqual([first.allowance])
    } finally {
      ledger.close()
    }
  })

  it('a closed allowance recorded again stays closed (its row is returned as it is)', () => {
    const { ledger, clock } = ledgerAt()
    try {
      ledger.allowances.recordOpenAllowance(allowance('closed-then-seen'))
      clock.ms += 1_000
      expect(ledger.allowances.closeOpenAllowances(31337, tokens.usdc, router, 'used', 'spent by 7')).toBe(1)
      clock.ms += 1_000
      const again = ledger.allowances.recordOpenAllowance(allowance('closed-then-seen'))
      expect(again.created).toBe(false)
      expect(again.allowance).toMatchObject({
        state: 'used',
        closedReason: 'spent by 7',
        recordedAtMs: 1_700_000_000_000,
        updatedAtMs: 1_700_000_001_000,
      })
      expect(ledger.allowances.listOpenAllowances()).toEqual([])
    } finally {
      ledger.close()
    }
  })

  it('the same approval hash on another chain is another allowance', () => {
    const { ledger } = ledgerAt()
    try {
      const a = ledger.allowances.recordOpenAllowance(allowance('two-chains'))
      const b = ledger.allowances.recordOpenAllowance(allowance('two-chains', { chainId: 8453 }))
      expect([a.created, b.created]).toEqual([true, true])
      expect(ledger.allowances.listOpenAllowances().map((row) => row.chainId)).toEqual([31337, 8453])
    } finally {
      ledger.close()
    }
  })

  it('keeps the amount whole (a max approval) and the addresses checksummed, whatever case they came in', () => {
    const { ledger, path } = ledgerAt()
    const max = 2n ** 256n - 1n
    ledger.allowances.recordOpenAllowance(
      allowance('max', {
        amount: max,
        token: tokens.usdc.toUpperCase().replace('0X', '0x') as Address,
        spender: '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd',
      }),
    )
    ledger.close()
    // Read back from the file by another connection.
    const reopened = openLedger({ path })
    try {
      const [row] = reopened.allowances.listOpenAllowances()
      expect(row?.amount).toBe(
        115792089237316195423570985008687907853269984665640564039457584007913129639935n,
      )
      expect(row?.token).toBe('0x2000000000000000000000000000000000000001')
      expect(row?.spender).toBe('0xABcdEFABcdEFabcdEfAbCdefabcdeFABcDEFabCD')
      expect(row?.executionId).toBeNull()
      // A filter in another case finds it.
      expect(
        reopened.allowances.listOpenAllowances({ spender: '0xABCDEFABCDEFABCDEFABCDEFABCDEFABCDEFABCD' }),
      ).toHaveLength(1)
    } finally {
      reopened.close()
    }
  })

  it('refuses an allowance without a reason, and writes nothing', () => {
    const { ledger } = ledgerAt()
    try {
      expect(() => ledger.allowances.recordOpenAllowance(allowance('no-reason', { reason: '' }))).toThrow(
        LedgerInputError,
      )
      expect(() =>
        ledger.allowances.recordOpenAllowance(allowance('bad-hash', { approveTxHash: '0x1234' })),
      ).toThrow(LedgerInputError)
      expect(ledger.allowances.listOpenAllowances()).toEqual([])
    } finally {
      ledger.close()
    }
  })
})

describe('open allowances: listing and closing', () => {
  /** Five open allowances, recorded 1 s apart: two of (31337, USDC, router), then one differing in each part. */
  function fiveOpen() {
    const opened = ledgerAt()
    const { ledger, clock } = opened
    const labels = ['usdc-router-1', 'usdc-router-2', 'usdc-settlement', 'aapl-router', 'usdc-router-8453']
    const parts = [
      {},
      { amount: 7_000_000n },
      { spender: settlement },
      { token: tokens.aapl, amount: 3n },
      { chainId: 8453 },
    ]
    labels.forEach((label, index) => {
      clock.ms = 1_700_000_000_000 + index * 1_000
      ledger.allowances.recordOpenAllowance(allowance(label, parts[index]))
    })
    const hashesOf = (rows: { approveTxHash: string }[]) =>
      rows.map((row) => labels.find((label) => bytes32(`approve/${label}`) === row.approveTxHash))
    return { ...opened, hashesOf }
  }

  it('lists the open ones oldest first, by chain, token and spender, each filter alone or together', () => {
    const { ledger, hashesOf } = fiveOpen()
    try {
      const list = (filter?: Parameters<typeof ledger.allowances.listOpenAllowances>[0]) =>
        hashesOf(ledger.allowances.listOpenAllowances(filter))
      expect(list()).toEqual([
        'usdc-router-1',
        'usdc-router-2',
        'usdc-settlement',
        'aapl-router',
        'usdc-router-8453',
      ])
      expect(list({ chainId: 8453 })).toEqual(['usdc-router-8453'])
      expect(list({ token: tokens.aapl })).toEqual(['aapl-router'])
      expect(list({ spender: settlement })).toEqual(['usdc-settlement'])
      expect(list({ chainId: 31337, token: tokens.usdc, spender: router })).toEqual([
        'usdc-router-1',
        'usdc-router-2',
      ])
      expect(list({ chainId: 1 })).toEqual([])
    } finally {
      ledger.close()
    }
  })

  it('closes every open allowance of the (chain, token, spender), and no other', () => {
    const { ledger, clock, hashesOf } = fiveOpen()
    try {
      clock.ms = 1_700_000_060_000
      expect(
        ledger.allowances.closeOpenAllowances(31337, tokens.usdc, router, 'used', 'spent by execution 5'),
      ).toBe(2)
      expect(hashesOf(ledger.allowances.listOpenAllowances())).toEqual([
        'usdc-settlement',
        'aapl-router',
        'usdc-router-8453',
      ])
      const closed = ledger.allowances.recordOpenAllowance(allowance('usdc-router-2')).allowance
      expect(closed).toMatchObject({
        state: 'used',
        closedReason: 'spent by execution 5',
        amount: 7_000_000n,
        recordedAtMs: 1_700_000_001_000,
        updatedAtMs: 1_700_000_060_000,
      })
      // A revoke of the settlement's allowance, with the token's address in lower case.
      clock.ms = 1_700_000_070_000
      expect(
        ledger.allowances.closeOpenAllowances(
          31337,
          tokens.usdc.toLowerCase() as Address,
          settlement,
          'revoked',
          'approval to zero mined',
        ),
      ).toBe(1)
      expect(hashesOf(ledger.allowances.listOpenAllowances())).toEqual(['aapl-router', 'usdc-router-8453'])
      expect(ledger.allowances.recordOpenAllowance(allowance('usdc-settlement')).allowance).toMatchObject({
        state: 'revoked',
        closedReason: 'approval to zero mined',
        updatedAtMs: 1_700_000_070_000,
      })
    } finally {
      ledger.close()
    }
  })

  it('closes nothing twice: a second close finds none open and leaves the first close as it was', () => {
    const { ledger, clock } = fiveOpen()
    try {
      clock.ms = 1_700_000_060_000
      expect(ledger.allowances.closeOpenAllowances(31337, tokens.usdc, router, 'used', 'spent by 5')).toBe(2)
      clock.ms = 1_700_000_090_000
      expect(
        ledger.allowances.closeOpenAllowances(31337, tokens.usdc, router, 'revoked', 'revoke mined'),
      ).toBe(0)
      expect(ledger.allowances.recordOpenAllowance(allowance('usdc-router-1')).allowance).toMatchObject({
        state: 'used',
        closedReason: 'spent by 5',
        updatedAtMs: 1_700_000_060_000,
      })
      // A new approval of the same (chain, token, spender) after the close is open again, alone.
      const next = ledger.allowances.recordOpenAllowance(allowance('usdc-router-after'))
      expect(next.created).toBe(true)
      expect(
        ledger.allowances
          .listOpenAllowances({ chainId: 31337, token: tokens.usdc, spender: router })
          .map((row) => row.id),
      ).toEqual([next.allowance.id])
    } finally {
      ledger.close()
    }
  })

  it('what is closed stays closed in the file', () => {
    const { ledger, path } = fiveOpen()
    ledger.allowances.closeOpenAllowances(8453, tokens.usdc, router, 'used', 'spent on 8453')
    ledger.close()
    const reopened = openLedger({ path })
    try {
      expect(reopened.allowances.listOpenAllowances({ chainId: 8453 })).toEqual([])
      expect(reopened.allowances.listOpenAllowances()).toHaveLength(4)
    } finally {
      reopened.close()
    }
  })
})
