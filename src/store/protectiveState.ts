import type { Address } from 'viem'
import { safeInteger, textToUint, uintToText } from './codec.js'
import type { RepositoryContext } from './context.js'
import { applyPositionEntry, type PositionEntry, type PositionState } from './positionAccounting.js'
import {
  type AdjustmentRow,
  adjustmentEntryOfRow,
  type FillEntryRow,
  fillEntryOfRow,
  type RenameRow,
  renameEntryOfRow,
} from './positionRows.js'

// The memory of `protect` strategies (migration 11): per strategy and watched position, the
// position's epoch, the high-water mark of its trailing stop, and the exits that fired. The
// strategies stay pure: the daemon reads this before an evaluation and saves what it returns.

/** The exits a `protect` strategy knows. */
export type ProtectiveTriggerName = 'stop-loss' | 'take-profit' | 'trailing-stop'

/** An exit that fired: the sale it asks for, fixed when it fired (the intent id and time are its current attempt's). */
export type ProtectiveExitRecord = {
  trigger: ProtectiveTriggerName
  intentId: string
  /** The market price that tripped it (market currency, 1e8). */
  price: bigint
  /** Token base units to sell. */
  quantity: bigint
  /** The position's balance when it fired. */
  balance: bigint
  atMs: number
}

/** What a strategy remembers of one position: its epoch, high-water mark and the exits of that epoch. */
export type ProtectiveStateRecord = {
  chainId: number
  ticker: string
  /** The position's epoch: the ledger sequence number of the step that opened it. */
  epoch: number
  /** The highest fresh market price seen in this epoch (market currency, 1e8), if one was. */
  highWater?: { price: bigint; atMs: number } | undefined
  exits: ProtectiveExitRecord[]
}

/** An exit as history: which strategy, position and epoch it belonged to. */
export type ProtectiveExitHistory = ProtectiveExitRecord & {
  strategyId: string
  chainId: number
  ticker: string
  epoch: number
}

/** The memory of `protect` strategies (stop-loss, take-profit, trailing stop). */
export type ProtectiveStateRepository = {
  /**
   * What the strategy remembers, one record per watched position, each with the exits of its
   * current epoch only.
   *
   * @example
   * ledger.protectiveState.list('guard-aapl')[0]?.highWater?.price // 23012000000n
   */
  list(strategyId: string): ProtectiveStateRecord[]
  /**
   * Replaces what the strategy remembers with `states`, in one transaction: a position absent from
   * them is forgotten; exits are added, and those of earlier epochs stay as history. An exit, once
   * recorded, keeps its price, quantity and balance; a new attempt at its sale changes only its
   * intent id and time.
   *
   * @example
   * ledger.protectiveState.save('guard-aapl', [{ chainId: 31337, ticker: 'AAPL', epoch: 42, exits: [] }])
   */
  save(strategyId: string, states: readonly ProtectiveStateRecord[]): void
  /**
   * Every exit that fired, of every epoch, in the order they fired.
   *
   * @example
   * ledger.protectiveState.listExits({ strategyId: 'guard-aapl' }).map((exit) => exit.intentId)
   */
  listExits(filter?: { strategyId?: string | undefined }): ProtectiveExitHistory[]
  /**
   * The epoch of a long position: the ledger sequence number of the step (fill, transfer) that last
   * took it from flat (or short) to long, found by folding the token's fills, adjustments and
   * renames; undefined when the position is not long. Remembered per token and brought up to date
   * from the steps after the last one folded, so a call costs one indexed read when nothing changed.
   *
   * @example
   * ledger.protectiveState.positionEpoch(ledger.positions.getPosition(31337, aaplToken)) // 42
   */
  positionEpoch(position: {
    chainId: number
    tokenAddress: Address
    balance: bigint
    lastSeq: number
  }): number | undefined
}

type StateRow = {
  strategy_id: string
  chain_id: number
  ticker: string
  armed_epoch: number
  high_water_price: string | null
  high_water_at_ms: number | null
  updated_at_ms: number
}

type ExitRow = {
  strategy_id: string
  chain_id: number
  ticker: string
  epoch: number
  trigger: ProtectiveTriggerName
  intent_id: string
  trigger_price: string
  quantity: string
  balance: string
  triggered_at_ms: number
}

type Fold = { lastSeq: number; state: PositionState | undefined; openedSeq: number | undefined }

const exitOf = (row: ExitRow): ProtectiveExitRecord => ({
  trigger: row.trigger,
  intentId: row.intent_id,
  price: textToUint(row.trigger_price, 'protective_exits.trigger_price'),
  quantity: textToUint(row.quantity, 'protective_exits.quantity'),
  balance: textToUint(row.balance, 'protective_exits.balance'),
  atMs: row.triggered_at_ms,
})

/** @example const memory = createProtectiveStateRepository({ db, now: Date.now }) */
export function createProtectiveStateRepository({ db, now }: RepositoryContext): ProtectiveStateRepository {
  const selectStates = db.prepare<[string], StateRow>(
    'SELECT * FROM protective_state WHERE strategy_id = ? ORDER BY chain_id, ticker',
  )
  const selectExits = db.prepare<[string, number, string, number], ExitRow>(
    `SELECT * FROM protective_exits WHERE strategy_id = ? AND chain_id = ? AND ticker = ? AND epoch = ?
     ORDER BY triggered_at_ms, rowid`,
  )
  const selectAllExits = db.prepare<[string | null, string | null], ExitRow>(
    `SELECT * FROM protective_exits WHERE (? IS NULL OR strategy_id = ?) ORDER BY triggered_at_ms, rowid`,
  )
  const deleteStates = db.prepare<[string]>('DELETE FROM protective_state WHERE strategy_id = ?')
  const insertState = db.prepare<[string, number, string, number, string | null, number | null, number]>(
    `INSERT INTO protective_state (strategy_id, chain_id, ticker, armed_epoch, high_water_price, high_water_at_ms,
       updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertExit = db.prepare<
    [string, number, string, number, string, string, string, string, string, number]
  >(
    `INSERT INTO protective_exits (strategy_id, chain_id, ticker, epoch, trigger, intent_id, trigger_price, quantity,
       balance, triggered_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (strategy_id, chain_id, ticker, epoch, trigger)
       DO UPDATE SET intent_id = excluded.intent_id, triggered_at_ms = excluded.triggered_at_ms`,
  )
  const save = db.transaction((strategyId: string, states: readonly ProtectiveStateRecord[]) => {
    deleteStates.run(strategyId)
    const at = now()
    for (const state of states) {
      const chainId = safeInteger(state.chainId, 'chainId', 1)
      const epoch = safeInteger(state.epoch, 'epoch')
      insertState.run(
        strategyId,
        chainId,
        state.ticker,
        epoch,
        state.highWater === undefined ? null : uintToText(state.highWater.price, 'highWater.price'),
        state.highWater === undefined ? null : safeInteger(state.highWater.atMs, 'highWater.atMs'),
        at,
      )
      for (const exit of state.exits)
        insertExit.run(
          strategyId,
          chainId,
          state.ticker,
          epoch,
          exit.trigger,
          exit.intentId,
          uintToText(exit.price, 'exit.price'),
          uintToText(exit.quantity, 'exit.quantity'),
          uintToText(exit.balance, 'exit.balance'),
          safeInteger(exit.atMs, 'exit.atMs'),
        )
    }
  })
  const steps = stepsOfToken(db)
  const folds = new Map<string, Fold>()
  const foldFrom = (chainId: number, tokenAddress: Address, from: Fold | undefined): Fold => {
    let { lastSeq, state, openedSeq } = from ?? { lastSeq: 0, state: undefined, openedSeq: undefined }
    for (const entry of steps(chainId, tokenAddress, lastSeq)) {
      const wasLong = state !== undefined && state.balance > 0n
      state = applyPositionEntry(state, entry)
      if (state.balance <= 0n) openedSeq = undefined
      else if (!wasLong) openedSeq = entry.seq
      lastSeq = entry.seq
    }
    return { lastSeq, state, openedSeq }
  }
  return {
    list(strategyId) {
      return selectStates.all(strategyId).map((row) => ({
        chainId: row.chain_id,
        ticker: row.ticker,
        epoch: row.armed_epoch,
        ...(row.high_water_price === null || row.high_water_at_ms === null
          ? {}
          : {
              highWater: {
                price: textToUint(row.high_water_price, 'protective_state.high_water_price'),
                atMs: row.high_water_at_ms,
              },
            }),
        exits: selectExits.all(strategyId, row.chain_id, row.ticker, row.armed_epoch).map(exitOf),
      }))
    },
    save(strategyId, states) {
      save.immediate(strategyId, states)
    },
    listExits(filter = {}) {
      const strategyId = filter.strategyId ?? null
      return selectAllExits.all(strategyId, strategyId).map((row) => ({
        ...exitOf(row),
        strategyId: row.strategy_id,
        chainId: row.chain_id,
        ticker: row.ticker,
        epoch: row.epoch,
      }))
    },
    positionEpoch(position) {
      if (position.balance <= 0n) return undefined
      const key = `${position.chainId}:${position.tokenAddress}`
      const known = folds.get(key)
      const current = (fold: Fold | undefined) =>
        fold !== undefined && fold.lastSeq === position.lastSeq && fold.state?.balance === position.balance
      if (current(known)) return known?.openedSeq
      // Steps after the last one folded; a fold that no longer ends on the stored position (a
      // reorg reversed a fill) is done again from the start.
      let fold = foldFrom(position.chainId, position.tokenAddress, known)
      if (!current(fold)) fold = foldFrom(position.chainId, position.tokenAddress, undefined)
      folds.set(key, fold)
      return fold.state !== undefined && fold.state.balance > 0n ? fold.openedSeq : undefined
    },
  }
}

/** The live fills, adjustments and renames of one token after `afterSeq`, in ledger order, as fold entries. */
function stepsOfToken(db: RepositoryContext['db']) {
  const fills = db.prepare<[number, string, number], FillEntryRow>(
    `SELECT seq, chain_id, stock_token, asset_token, asset_decimals, token_kind, ticker, exchange, is_buy,
       amount_in, amount_out
     FROM fills WHERE chain_id = ? AND stock_token = ? AND reversed_at_ms IS NULL AND seq > ? ORDER BY seq`,
  )
  const adjustments = db.prepare<[number, string, number], AdjustmentRow>(
    'SELECT * FROM position_adjustments WHERE chain_id = ? AND token_address = ? AND seq > ? ORDER BY seq',
  )
  const renames = db.prepare<[number, string, number], RenameRow>(
    'SELECT * FROM position_renames WHERE chain_id = ? AND token_address = ? AND seq > ? ORDER BY seq',
  )
  return (chainId: number, tokenAddress: Address, afterSeq: number): PositionEntry[] =>
    [
      ...fills.all(chainId, tokenAddress, afterSeq).map(fillEntryOfRow),
      ...adjustments.all(chainId, tokenAddress, afterSeq).map(adjustmentEntryOfRow),
      ...renames.all(chainId, tokenAddress, afterSeq).map(renameEntryOfRow),
    ].sort((a, b) => a.seq - b.seq)
}
