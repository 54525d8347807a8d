import type { RepositoryContext } from './context.js'

/**
 * What an event tells. Execution transitions, fills, their reversals, halts, resumes and entry halts
 * (a risk limit reached: buys refused until a resume) are written by triggers.
 */
export const ledgerEventKinds = [
  'execution',
  'fill',
  'fill_reversed',
  'halt',
  'resume',
  'discrepancy',
  'recovery',
  'daily_summary',
  'entry_halt',
] as const
export type LedgerEventKind = (typeof ledgerEventKinds)[number]

/** The kinds code appends itself; the others come from triggers with the write they describe. */
export type AppendedEventKind = 'discrepancy' | 'recovery' | 'daily_summary'

/** One entry of the ledger's event stream. Ids only grow, and are never reused. */
export type LedgerEvent = {
  id: number
  kind: LedgerEventKind
  chainId: number | null
  executionId: number | null
  /** The event's fields (amounts as decimal strings), as JSON stored it. */
  data: Record<string, unknown>
  atMs: number
}

/** The events repository: the stream behind `GET /v1/events` and notifications. */
export type EventsRepository = {
  /**
   * Appends an event that no trigger writes (a reconciliation discrepancy, a recovery step, a daily
   * summary). Inside a caller's transaction it commits with it.
   *
   * @example
   * ledger.events.append('discrepancy', { chainId: 31337, data: { ticker: 'AAPL', ledger: '10', chain: '9' } })
   */
  append(
    kind: AppendedEventKind,
    event: { chainId?: number | null; executionId?: number | null; data: Record<string, unknown> },
  ): LedgerEvent
  /**
   * Events with an id above `afterId`, oldest first, at most `limit` (default 500), optionally of
   * some kinds only.
   *
   * @example
   * for (const event of ledger.events.listAfter(lastEventId)) send(event)
   */
  listAfter(
    afterId: number,
    options?: { limit?: number | undefined; kinds?: readonly LedgerEventKind[] | undefined },
  ): LedgerEvent[]
  /** The newest event's id, 0 when there is none. */
  latestId(): number
}

type EventRow = {
  id: number
  kind: LedgerEventKind
  chain_id: number | null
  execution_id: number | null
  data: string
  at_ms: number
}

const toEvent = (row: EventRow): LedgerEvent => ({
  id: row.id,
  kind: row.kind,
  chainId: row.chain_id,
  executionId: row.execution_id,
  data: JSON.parse(row.data) as Record<string, unknown>,
  atMs: row.at_ms,
})

export function createEventsRepository({ db, now }: RepositoryContext): EventsRepository {
  const insert = db.prepare<[string, number | null, number | null, string, number], EventRow>(
    'INSERT INTO events (kind, chain_id, execution_id, data, at_ms) VALUES (?, ?, ?, ?, ?) RETURNING *',
  )
  const after = db.prepare<[number, number], EventRow>(
    'SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?',
  )
  const latest = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM events')
  return {
    append(kind, event) {
      const row = insert.get(
        kind,
        event.chainId ?? null,
        event.executionId ?? null,
        JSON.stringify(event.data, (_key, value: unknown) =>
          typeof value === 'bigint' ? value.toString() : value,
        ),
        now(),
      )
      if (!row) throw new Error('events: the insert returned no row')
      return toEvent(row)
    },
    listAfter(afterId, options = {}) {
      const limit = options.limit ?? 500
      const kinds = options.kinds
      if (!kinds) return after.all(afterId, limit).map(toEvent)
      // Few kinds, few rows: filtered here rather than with one prepared statement per kind set.
      const wanted = new Set<string>(kinds)
      const found: LedgerEvent[] = []
      let from = afterId
      for (;;) {
        const rows = after.all(from, limit)
        for (const row of rows) if (wanted.has(row.kind) && found.length < limit) found.push(toEvent(row))
        if (rows.length < limit || found.length >= limit) return found
        from = rows.at(-1)?.id ?? from
      }
    },
    latestId() {
      return latest.get()?.id ?? 0
    },
  }
}
