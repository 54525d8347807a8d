import { safeInteger, textToUint } from './codec.js'
import type { RepositoryContext } from './context.js'
import { createEntryHaltsRepository, type EntryHaltsRepository } from './entryHalts.js'

/**
 * An asset amount scaled to 18 decimals, so that amounts of chains whose assets have 6 and 18
 * decimals add up (each chain's payment asset taken at par; amounts with more than 18 decimals are
 * rounded up). Risk limits in natural units convert with `parseUnits(limit, 18)`.
 */
export type Notional = bigint & { readonly __unit: 'notional-1e18' }

/** Decimals of {@link Notional}. */
export const notionalDecimals = 18

/**
 * Scales an asset amount of `decimals` decimals to a {@link Notional}.
 *
 * @example
 * toNotional(1_500_000n, 6) // 1500000000000000000n
 */
export function toNotional(amount: bigint, decimals: number): Notional {
  if (decimals <= notionalDecimals) return (amount * 10n ** BigInt(notionalDecimals - decimals)) as Notional
  const divisor = 10n ** BigInt(decimals - notionalDecimals)
  return ((amount + divisor - 1n) / divisor) as Notional
}

/** Notional traded and committed, for per-day and per-chain limits. */
export type NotionalSummary = {
  /** Asset side of the fills recorded since the time asked (paid on buys, received on sells). */
  filled: Notional
  /**
   * Committed by executions quoted, approving or submitted without a fill yet (their quote's
   * notional): counted so that concurrent executions cannot together overshoot a limit.
   */
  inFlight: Notional
  /** `filled + inFlight`: what a limit check compares. */
  total: Notional
}

/** The latched kill switch. */
export type KillSwitchState =
  | { halted: false; reason: string | null; changedAtMs: number | null }
  | { halted: true; reason: string; changedAtMs: number }

/**
 * The risk repository: notional for limits, the kill switch checked before every signature, and the
 * entry halts the risk limits latch by themselves (entryHalts.ts), which a resume clears too.
 */
export type RiskRepository = EntryHaltsRepository & {
  /**
   * Notional filled since `sinceMs` (by the ledger clock's record time, not block time: chain
   * clocks of local chains may be moved) plus what is in flight now, on one chain or all.
   *
   * @example
   * const startOfDay = new Date().setUTCHours(0, 0, 0, 0)
   * const { total } = ledger.risk.notionalSince(undefined, startOfDay)
   * if (total + toNotional(quote.amountInUsed, 6) > parseUnits(config.maxDailyNotional, 18)) reject()
   */
  notionalSince(chainId: number | undefined, sinceMs: number): NotionalSummary
  /**
   * Latches the kill switch: nothing is signed until {@link RiskRepository.resume}, across
   * restarts. Halting while halted keeps the first reason.
   *
   * @example
   * ledger.risk.halt('operator: stockroute halt')
   */
  halt(reason: string): KillSwitchState
  /**
   * Releases the kill switch, and the entry halts with it (the drawdown's peaks start again at the
   * next observation): resuming is the operator's one act for every halt.
   *
   * @example
   * ledger.risk.resume('operator: stockroute resume')
   */
  resume(reason?: string): KillSwitchState
  /**
   * Whether the kill switch is latched. Read from the database each time: a halt from another
   * process (the CLI) is seen at the next check.
   *
   * @example
   * if (ledger.risk.isHalted()) return reject('kill switch')
   */
  isHalted(): boolean
  /**
   * @example
   * ledger.risk.killSwitch() // { halted: true, reason: 'operator', changedAtMs: 1717… }
   */
  killSwitch(): KillSwitchState
}

type KillSwitchRow = { halted: number; reason: string | null; changed_at_ms: number | null }

/** Builds the risk repository over an open database (see `openLedger`). */
export function createRiskRepository({ db, now }: RepositoryContext): RiskRepository {
  const { clear: clearEntryHalts, ...entryHalts } = createEntryHaltsRepository({ db, now })
  const selectFills = db.prepare<
    [number | null, number | null, number],
    { amount: string; asset_decimals: number }
  >(
    `SELECT CASE WHEN is_buy = 1 THEN amount_in ELSE amount_out END AS amount, asset_decimals FROM fills
     WHERE (? IS NULL OR chain_id = ?) AND recorded_at_ms >= ? AND reversed_at_ms IS NULL`,
  )
  const selectInFlight = db.prepare<
    [number | null, number | null],
    { amount: string; asset_decimals: number }
  >(
    `SELECT notional AS amount, asset_decimals FROM executions e
     WHERE state IN ('quoted', 'approving', 'submitted') AND notional IS NOT NULL
       AND (? IS NULL OR chain_id = ?)
       AND NOT EXISTS (SELECT 1 FROM fills f WHERE f.execution_id = e.id AND f.reversed_at_ms IS NULL)`,
  )
  const selectSwitch = db.prepare<[], KillSwitchRow>(
    'SELECT halted, reason, changed_at_ms FROM kill_switch WHERE id = 1',
  )
  const setSwitch = db.prepare<[number, string, number]>(
    'UPDATE kill_switch SET halted = ?, reason = ?, changed_at_ms = ? WHERE id = 1',
  )
  const insertSwitchEvent = db.prepare<[string, string, number]>(
    'INSERT INTO kill_switch_events (action, reason, at_ms) VALUES (?, ?, ?)',
  )

  const read = (): KillSwitchState => {
    const row = selectSwitch.get() as KillSwitchRow
    return row.halted === 1
      ? { halted: true, reason: row.reason ?? '', changedAtMs: row.changed_at_ms ?? 0 }
      : { halted: false, reason: row.reason, changedAtMs: row.changed_at_ms }
  }
  const sum = (rows: { amount: string; asset_decimals: number }[]): Notional =>
    rows.reduce(
      (total, row) => total + toNotional(textToUint(row.amount, 'notional'), row.asset_decimals),
      0n,
    ) as Notional

  const halt = db.transaction((reason: string): KillSwitchState => {
    const at = now()
    insertSwitchEvent.run('halt', reason, at)
    if (!read().halted) setSwitch.run(1, reason, at)
    return read()
  })
  const resume = db.transaction((reason: string): KillSwitchState => {
    const at = now()
    insertSwitchEvent.run('resume', reason, at)
    setSwitch.run(0, reason, at)
    clearEntryHalts()
    return read()
  })

  return {
    notionalSince(chainId, sinceMs) {
      const chain = chainId === undefined ? null : safeInteger(chainId, 'chainId', 1)
      const filled = sum(selectFills.all(chain, chain, safeInteger(sinceMs, 'sinceMs')))
      const inFlight = sum(selectInFlight.all(chain, chain))
      return { filled, inFlight, total: (filled + inFlight) as Notional }
    },
    halt(reason) {
      if (typeof reason !== 'string' || reason.trim() === '')
        throw new TypeError('halt(reason): say why trading stops, e.g. "operator: unexpected fills"')
      return halt.immediate(reason)
    },
    resume: (reason = 'resumed') => resume.immediate(reason),
    isHalted: () => read().halted,
    killSwitch: read,
    ...entryHalts,
  }
}
