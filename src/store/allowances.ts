import type { Address, Hex } from 'viem'
import {
  canonicalAddress,
  canonicalBytes32,
  LedgerInputError,
  safeInteger,
  textToUint,
  uintToText,
} from './codec.js'
import type { RepositoryContext } from './context.js'

/** An allowance left on chain by an approval whose execution never sent its execute. */
export type NewOpenAllowance = {
  chainId: number
  owner: Address
  token: Address
  spender: Address
  /** What the approval set, in the token's base units. */
  amount: bigint
  approveTxHash: Hex
  executionId?: number | undefined
  /** Why it is open: which execution ended how. */
  reason: string
}

/** `open` until the next execution of the same token and spender uses it, or a revoke is mined. */
export type OpenAllowanceState = 'open' | 'used' | 'revoked'

/** One recorded allowance. */
export type OpenAllowanceRecord = Omit<NewOpenAllowance, 'executionId'> & {
  id: number
  executionId: number | null
  state: OpenAllowanceState
  closedReason: string | null
  recordedAtMs: number
  updatedAtMs: number
}

type AllowanceRow = {
  id: number
  chain_id: number
  owner: string
  token: string
  spender: string
  amount: string
  approve_tx_hash: string
  execution_id: number | null
  state: OpenAllowanceState
  reason: string
  closed_reason: string | null
  recorded_at_ms: number
  updated_at_ms: number
}

function toRecord(row: AllowanceRow): OpenAllowanceRecord {
  return {
    id: row.id,
    chainId: row.chain_id,
    owner: row.owner as Address,
    token: row.token as Address,
    spender: row.spender as Address,
    amount: textToUint(row.amount, 'open_allowances.amount'),
    approveTxHash: row.approve_tx_hash as Hex,
    executionId: row.execution_id,
    state: row.state,
    reason: row.reason,
    closedReason: row.closed_reason,
    recordedAtMs: row.recorded_at_ms,
    updatedAtMs: row.updated_at_ms,
  }
}

/**
 * Allowances approved on chain for an execution that ended with no execute spending them: so that the
 * CLI and the operator see exactly what was sent, and the next execution of the same token and
 * spender uses it (or the engine revokes it, by the `openAllowances` setting).
 */
export type AllowancesRepository = {
  /**
   * Records an open allowance, once per approval transaction (a second call returns the first row,
   * whatever its state, with `created: false`).
   *
   * @example
   * const { allowance, created } = ledger.allowances.recordOpenAllowance({ chainId, owner, token, spender,
   *   amount: 5_000_000n, approveTxHash, executionId, reason: 'execution 4 expired after approving' })
   */
  recordOpenAllowance(allowance: NewOpenAllowance): { allowance: OpenAllowanceRecord; created: boolean }
  /**
   * Open allowances, oldest first, optionally of one chain, token and spender.
   *
   * @example
   * ledger.allowances.listOpenAllowances({ chainId: 31337 }).map((a) => a.amount)
   */
  listOpenAllowances(filter?: {
    chainId?: number | undefined
    token?: Address | undefined
    spender?: Address | undefined
  }): OpenAllowanceRecord[]
  /**
   * Closes every open allowance of (chain, token, spender): `used` when an execution spent from it,
   * `revoked` when an approval to zero was mined. Returns how many were closed.
   *
   * @example
   * ledger.allowances.closeOpenAllowances(31337, usdc, router, 'used', 'spent by execution 5')
   */
  closeOpenAllowances(
    chainId: number,
    token: Address,
    spender: Address,
    state: 'used' | 'revoked',
    reason: string,
  ): number
}

/** Builds the allowances repository over an open database (see `openLedger`). */
export function createAllowancesRepository({ db, now }: RepositoryContext): AllowancesRepository {
  const insert = db.prepare(
    `INSERT INTO open_allowances (chain_id, owner, token, spender, amount, approve_tx_hash, execution_id, state,
       reason, recorded_at_ms, updated_at_ms)
     VALUES (@chain_id, @owner, @token, @spender, @amount, @approve_tx_hash, @execution_id, 'open', @reason, @now, @now)
     ON CONFLICT (chain_id, approve_tx_hash) DO NOTHING`,
  )
  const selectByTx = db.prepare<[number, string], AllowanceRow>(
    'SELECT * FROM open_allowances WHERE chain_id = ? AND approve_tx_hash = ?',
  )
  const selectOpen = db.prepare<
    [number | null, number | null, string | null, string | null, string | null, string | null],
    AllowanceRow
  >(
    `SELECT * FROM open_allowances WHERE state = 'open' AND (? IS NULL OR chain_id = ?)
       AND (? IS NULL OR token = ?) AND (? IS NULL OR spender = ?) ORDER BY id`,
  )
  const close = db.prepare<[string, string, number, number, string, string]>(
    `UPDATE open_allowances SET state = ?, closed_reason = ?, updated_at_ms = ?
     WHERE chain_id = ? AND token = ? AND spender = ? AND state = 'open'`,
  )

  return {
    recordOpenAllowance(allowance) {
      if (typeof allowance.reason !== 'string' || allowance.reason === '')
        throw new LedgerInputError('reason', allowance.reason, 'is empty: say why the allowance is open.')
      const chainId = safeInteger(allowance.chainId, 'chainId', 1)
      const hash = canonicalBytes32(allowance.approveTxHash, 'approveTxHash')
      const { changes } = insert.run({
        chain_id: chainId,
        owner: canonicalAddress(allowance.owner, 'owner'),
        token: canonicalAddress(allowance.token, 'token'),
        spender: canonicalAddress(allowance.spender, 'spender'),
        amount: uintToText(allowance.amount, 'amount'),
        approve_tx_hash: hash,
        execution_id:
          allowance.executionId === undefined ? null : safeInteger(allowance.executionId, 'executionId', 1),
        reason: allowance.reason,
        now: now(),
      })
      return { allowance: toRecord(selectByTx.get(chainId, hash) as AllowanceRow), created: changes > 0 }
    },
    listOpenAllowances(filter = {}) {
      const chainId = filter.chainId ?? null
      const token = filter.token === undefined ? null : canonicalAddress(filter.token, 'token')
      const spender = filter.spender === undefined ? null : canonicalAddress(filter.spender, 'spender')
      return selectOpen.all(chainId, chainId, token, token, spender, spender).map(toRecord)
    },
    closeOpenAllowances(chainId, token, spender, state, reason) {
      return close.run(
        state,
        reason,
        now(),
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(token, 'token'),
        canonicalAddress(spender, 'spender'),
      ).changes
    },
  }
}
