import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  type ExecutionState,
  ExecutionStateError,
  executionStates,
  executionTransitions,
  isAllowedTransition,
  type Ledger,
  LedgerInputError,
  type NewExecution,
  openLedger,
} from '../../src/store/index.js'
import { bytes32, ledgerFolder, raceLedgerWorkers } from './ledgerFiles.js'

const folder = ledgerFolder()

function executionError(run: () => unknown): ExecutionStateError {
  try {
    run()
  } catch (error) {
    if (error instanceof ExecutionStateError) return error
    throw error
  }
  throw new Error('expected an ExecutionStateError, nothing was thrown')
}

function newExecution(intentId: string, overrides: Partial<NewExecution> = {}): NewExecution {
  return {
    intentId,
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
    amountType: 'stablecoin',
    ...overrides,
  }
}

/** A shortest allowed path from `intent` to each state. */
const pathTo: Record<ExecutionState, ExecutionState[]> = {
  intent: [],
  quoting: ['quoting'],
  quoted: ['quoting', 'quoted'],
  approving: ['quoting', 'quoted', 'approving'],
  submitted: ['quoting', 'quoted', 'submitted'],
  confirmed: ['quoting', 'quoted', 'submitted', 'confirmed'],
  failed: ['failed'],
  expired: ['quoting', 'expired'],
  rejected: ['rejected'],
}

function driveTo(
  ledger: Ledger,
  intentId: string,
  target: ExecutionState,
  overrides: Partial<NewExecution> = {},
): number {
  const { id } = ledger.executions.createExecution(newExecution(intentId, overrides))
  let state: ExecutionState = 'intent'
  for (const next of pathTo[target]) {
    ledger.executions.transition(id, state, next, `to ${next}`)
    state = next
  }
  return id
}

describe('executions', () => {
  it('walks the happy path, storing the quote with the transition and logging every move', () => {
    let clock = 1_000
    const ledger = openLedger({ path: folder.path(), now: () => clock++ })
    const created = ledger.executions.createExecution(
      newExecution('intent-1', { limitPrice: parsePrice('420.5') }),
    )
    expect(created).toMatchObject({ state: 'intent', quoteId: null, limitPrice: 42_050_000_000n })
    const quoteId = bytes32('quote-1')
    ledger.executions.transition(created.id, 'intent', 'quoting', 'executor free')
    const quoted = ledger.executions.transition(created.id, 'quoting', 'quoted', 'quote received', {
      quoteId,
      quote: { quoteId, amountIn: 1_000_000_000n, isBuy: true },
      notional: { amount: toAssetAmount(999_000_000n), decimals: 6 },
    })
    expect(quoted.quoteId).toBe(quoteId)
    expect(quoted.quote).toEqual({ quoteId, amountIn: '1000000000', isBuy: true })
    expect(quoted.notional).toEqual({ amount: 999_000_000n, decimals: 6 })
    ledger.executions.transition(created.id, 'quoted', 'submitted', 'allowance suffices')
    const done = ledger.executions.transition(created.id, 'submitted', 'confirmed', 'receipt success')
    expect(done).toMatchObject({ state: 'confirmed', reason: 'receipt success', quoteId })
    expect(done.updatedAtMs).toBeGreaterThan(done.createdAtMs)

    expect(
      ledger.executions.listExecutionEvents(created.id).map(({ from, to, reason, quoteId }) => ({
        from,
        to,
        reason,
        quoteId,
      })),
    ).toEqual([
      { from: null, to: 'intent', reason: 'intent recorded', quoteId: null },
      { from: 'intent', to: 'quoting', reason: 'executor free', quoteId: null },
      { from: 'quoting', to: 'quoted', reason: 'quote received', quoteId },
      { from: 'quoted', to: 'submitted', reason: 'allowance suffices', quoteId },
      { from: 'submitted', to: 'confirmed', reason: 'receipt success', quoteId },
    ])
    expect(ledger.executions.getExecutionByQuoteId(quoteId)?.id).toBe(created.id)
    ledger.close()
  })

  it('refuses every move outside the transition table, and leaves state and log untouched', () => {
    const ledger = openLedger({ path: folder.path() })
    let refused = 0
    for (const from of executionStates) {
      for (const to of executionStates) {
        if (isAllowedTransition(from, to)) continue
        const id = driveTo(ledger, `illegal-${from}-${to}`, from)
        const eventsBefore = ledger.executions.listExecutionEvents(id).length
        const error = executionError(() => ledger.executions.transition(id, from, to, 'try'))
        expect(error.code).toBe('ILLEGAL_TRANSITION')
        expect(ledger.executions.getExecution(id)?.state).toBe(from)
        expect(ledger.executions.listExecutionEvents(id)).toHaveLength(eventsBefore)
        refused++
      }
    }
    // 81 pairs, 25 allowed moves (quoting → quoting: a restart abandons the request in flight;
    // confirmed, failed and expired → submitted: a reorg took the deciding transaction away).
    const allowed = Object.values(executionTransitions).reduce((n, targets) => n + targets.length, 0)
    expect(allowed).toBe(25)
    expect(refused).toBe(81 - allowed)
    // Terminal states and the fact that a sent transaction is never re-quoted.
    expect(isAllowedTransition('submitted', 'quoting')).toBe(false)
    expect(isAllowedTransition('confirmed', 'failed')).toBe(false)
    ledger.close()
  })

  it('allows every move of the table', () => {
    const ledger = openLedger({ path: folder.path() })
    for (const from of executionStates) {
      for (const to of executionTransitions[from]) {
        const id = driveTo(ledger, `legal-${from}-${to}`, from)
        expect(ledger.executions.transition(id, from, to, 'ok').state).toBe(to)
      }
    }
    ledger.close()
  })

  it('compare-and-set: of two handles on the same file, the second mover loses and changes nothing', () => {
    const path = folder.path()
    const a = openLedger({ path })
    const b = openLedger({ path })
    const id = driveTo(a, 'cas', 'quoted')
    // Both saw `quoted`; b moves first.
    expect(b.executions.transition(id, 'quoted', 'approving', 'b: approvals needed').state).toBe('approving')
    const error = executionError(() => a.executions.transition(id, 'quoted', 'rejected', 'a: guard'))
    expect(error.code).toBe('EXECUTION_STATE_CONFLICT')
    expect(error.details).toMatchObject({ expected: 'quoted', actual: 'approving', to: 'rejected' })
    expect(a.executions.getExecution(id)?.state).toBe('approving')
    expect(a.executions.listExecutionEvents(id).map((event) => event.reason)).not.toContain('a: guard')
    expect(executionError(() => a.executions.transition(999, 'quoted', 'approving', 'x')).code).toBe(
      'EXECUTION_NOT_FOUND',
    )
    a.close()
    b.close()
  })

  it('compare-and-set across processes: two workers racing on the same executions win each exactly once', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const ids = Array.from({ length: 150 }, (_, i) => driveTo(ledger, `race-${i}`, 'quoted'))
    const first = String(ids[0])
    const last = String(ids.at(-1))
    const [approving, rejected] = await raceLedgerWorkers<number[]>(
      'transition',
      path,
      ['approving', first, last],
      ['rejected', first, last],
    )
    expect([...approving, ...rejected].sort((x, y) => x - y)).toEqual(ids)
    // The race was real: both workers won some.
    expect(approving.length).toBeGreaterThan(0)
    expect(rejected.length).toBeGreaterThan(0)
    for (const id of ids) {
      const execution = ledger.executions.getExecution(id)
      expect(execution?.state).toBe(approving.includes(id) ? 'approving' : 'rejected')
      const events = ledger.executions.listExecutionEvents(id)
      expect(events.filter((event) => event.from === 'quoted')).toHaveLength(1)
    }
    ledger.close()
  })

  it('at most one execution per intent, even from another handle, and the database enforces it too', () => {
    const path = folder.path()
    const a = openLedger({ path })
    const b = openLedger({ path })
    const first = a.executions.createExecution(newExecution('once'))
    const error = executionError(() => b.executions.createExecution(newExecution('once', { amountIn: '5' })))
    expect(error.code).toBe('DUPLICATE_INTENT')
    expect(error.details.existingExecutionId).toBe(first.id)
    expect(b.executions.getExecutionByIntent('once')?.amountIn).toBe('1000')
    a.close()
    b.close()
    // The constraint itself, below the repository.
    const raw = new Database(path)
    expect(() =>
      raw
        .prepare(
          `INSERT INTO executions (intent_id, chain_id, ticker, exchange, side, amount_in, amount_type, state, reason,
             created_at_ms, updated_at_ms) VALUES ('once', 1, 'X', 0, 'buy', '1', 'stablecoin', 'intent', 'r', 0, 0)`,
        )
        .run(),
    ).toThrow(/UNIQUE constraint failed: executions.intent_id/)
    raw.close()
  })

  it('at most one execution per quote id, also for a quote dropped for a fresh one', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const q1 = bytes32('q1')
    const q2 = bytes32('q2')
    const one = driveTo(ledger, 'quote-a', 'quoting')
    const two = driveTo(ledger, 'quote-b', 'quoting')
    ledger.executions.transition(one, 'quoting', 'quoted', 'quote', { quoteId: q1 })
    const taken = executionError(() =>
      ledger.executions.transition(two, 'quoting', 'quoted', 'quote', { quoteId: q1 }),
    )
    expect(taken.code).toBe('DUPLICATE_QUOTE')
    expect(ledger.executions.getExecution(two)?.state).toBe('quoting')
    // Execution one drops q1 for q2 (too little validity left): q1 still belongs to it.
    ledger.executions.transition(one, 'quoted', 'quoting', 'validity below inclusion time', { quoteId: null })
    ledger.executions.transition(one, 'quoting', 'quoted', 'fresh quote', { quoteId: q2 })
    expect(
      executionError(() => ledger.executions.transition(two, 'quoting', 'quoted', 'q', { quoteId: q1 })).code,
    ).toBe('DUPLICATE_QUOTE')
    expect(ledger.executions.getExecutionByQuoteId(q1)?.id).toBe(one)
    expect(ledger.executions.getExecutionByQuoteId(q2)?.id).toBe(one)
    // Upper-case spelling of the same id is the same id.
    expect(
      executionError(() =>
        ledger.executions.transition(two, 'quoting', 'quoted', 'q', {
          quoteId: q2.toUpperCase().replace('0X', '0x') as `0x${string}`,
        }),
      ).code,
    ).toBe('DUPLICATE_QUOTE')
    ledger.close()
    const raw = new Database(path)
    expect(() => raw.prepare('UPDATE executions SET quote_id = ? WHERE id = ?').run(q2, two)).toThrow(
      /UNIQUE constraint failed: executions.quote_id/,
    )
    raw.close()
  })

  it('refuses bad input with an error naming the field, and stores nothing', () => {
    const ledger = openLedger({ path: folder.path() })
    const field = (overrides: Partial<NewExecution>) => {
      try {
        ledger.executions.createExecution(newExecution('bad', overrides))
      } catch (error) {
        if (error instanceof LedgerInputError) return error.details.field
        throw error
      }
      return 'accepted'
    }
    expect(field({ amountIn: '1e3' })).toBe('amountIn')
    expect(field({ amountIn: '-5' })).toBe('amountIn')
    expect(field({ side: 'sell', amountType: 'stablecoin' })).toBe('amountType')
    expect(field({ exchange: 2 as 0 })).toBe('exchange')
    expect(field({ chainId: 0 })).toBe('chainId')
    expect(field({ intentId: '' })).toBe('intentId')
    expect(ledger.executions.getExecutionByIntent('bad')).toBeUndefined()
    ledger.close()
  })

  it('lists unfinished executions after a re-open, for recovery', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const submitted = driveTo(ledger, 'u-1', 'submitted')
    driveTo(ledger, 'u-2', 'confirmed')
    const quoting = driveTo(ledger, 'u-3', 'quoting')
    driveTo(ledger, 'u-4', 'rejected')
    ledger.close()
    const reopened = openLedger({ path })
    expect(reopened.executions.listUnfinishedExecutions().map((execution) => execution.id)).toEqual([
      submitted,
      quoting,
    ])
    expect(reopened.executions.listUnfinishedExecutions({ chainId: 1 })).toEqual([])
    reopened.close()
  })

  it('tells per strategy how many executions it submitted, how many confirmed, and when it last traded', () => {
    const path = folder.path()
    let clock = 1_000
    const ledger = openLedger({ path, now: () => clock++ })
    driveTo(ledger, 's-1', 'confirmed', { strategy: 'dca-aapl' })
    const lastConfirmedAtMs = clock - 1
    driveTo(ledger, 's-2', 'rejected', { strategy: 'dca-aapl' })
    driveTo(ledger, 's-3', 'submitted', { strategy: 'idle-tsla' })
    driveTo(ledger, 's-4', 'confirmed') // through the API: no strategy
    ledger.close()
    const reopened = openLedger({ path, readonly: true })
    expect(reopened.executions.listStrategyActivity()).toEqual([
      { strategy: 'dca-aapl', submitted: 2, confirmed: 1, lastTradeAtMs: lastConfirmedAtMs },
      { strategy: 'idle-tsla', submitted: 1, confirmed: 0, lastTradeAtMs: null },
    ])
    reopened.close()
  })
})
