// A read-only better-sqlite3 connection seen through a proxy that records every statement a report
// prepares and runs: its SQL, its parameters (for EXPLAIN QUERY PLAN) and how long its calls took.
import type Database from 'better-sqlite3'

export type StatementCall = {
  sql: string
  /** The arguments of the last call (positional or named). */
  params: unknown[]
  calls: number
  ms: number
  rows: number
}

export type Recorder = {
  database: Database.Database
  /** Statements run since the last reset, in first-run order. */
  statements(): StatementCall[]
  reset(): void
}

const timed = new Set(['all', 'get', 'iterate', 'run'])

/** Wraps `db` so that a report using it can be measured statement by statement. */
export function recordStatements(db: Database.Database): Recorder {
  let calls = new Map<string, StatementCall>()
  const wrapStatement = (statement: Database.Statement, sql: string): Database.Statement =>
    new Proxy(statement, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        if (!timed.has(String(property))) {
          // pluck/raw/expand/bind return the statement itself: keep the proxy in the chain.
          return (...args: unknown[]) => {
            const result = (value as (...a: unknown[]) => unknown).apply(target, args)
            return result === target ? receiver : result
          }
        }
        return (...args: unknown[]) => {
          const entry = calls.get(sql) ?? { sql, params: args, calls: 0, ms: 0, rows: 0 }
          calls.set(sql, entry)
          entry.params = args
          entry.calls += 1
          const started = performance.now()
          if (property === 'iterate') {
            const iterator = (value as (...a: unknown[]) => Iterable<unknown>).apply(target, args)
            return (function* () {
              let at = performance.now()
              for (const row of iterator) {
                entry.ms += performance.now() - at
                entry.rows += 1
                yield row
                at = performance.now()
              }
              entry.ms += performance.now() - at
            })()
          }
          const result = (value as (...a: unknown[]) => unknown).apply(target, args)
          entry.ms += performance.now() - started
          entry.rows += Array.isArray(result) ? result.length : result === undefined ? 0 : 1
          return result
        }
      },
    })
  const database = new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'prepare') return (sql: string) => wrapStatement(target.prepare(sql), sql)
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return {
    database,
    statements: () => [...calls.values()],
    reset: () => {
      calls = new Map()
    },
  }
}

/** EXPLAIN QUERY PLAN of a recorded statement, as indented lines. */
export function explain(db: Database.Database, call: StatementCall): string[] {
  const rows = db
    .prepare<unknown[], { id: number; parent: number; detail: string }>(`EXPLAIN QUERY PLAN ${call.sql}`)
    .all(...call.params)
  const depth = new Map<number, number>([[0, 0]])
  return rows.map((row) => {
    const level = (depth.get(row.parent) ?? 0) + 1
    depth.set(row.id, level)
    return `${'  '.repeat(level - 1)}${row.detail}`
  })
}
