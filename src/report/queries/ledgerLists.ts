import type { ReportColumn } from '../types.js'

// The row lists of a report over several ledgers (executions, fills, income, corporate actions):
// each ledger's list, already in the order one ledger lists it, interleaved into one list in that
// order, each row naming its ledger in a first column.

/** The column naming each row's ledger, in a report over several ledgers. */
export const ledgerColumn: ReportColumn = { key: 'ledger', title: 'Ledger', kind: 'text' }

/**
 * `columns` with {@link ledgerColumn} first when the report reads several ledgers (`ledgers`
 * given), else `columns` as they are.
 *
 * @example
 * withLedgerColumn(fillColumns, ['a.sqlite', 'b.sqlite'])[0].key // 'ledger'
 */
export function withLedgerColumn(
  columns: readonly ReportColumn[],
  ledgers: readonly string[] | undefined,
): readonly ReportColumn[] {
  return ledgers === undefined ? columns : [ledgerColumn, ...columns]
}

/**
 * Interleaves lists that are each in order into one list in that order (a stable k-way merge):
 * `before(a, b)` says whether `a` comes strictly before `b`; each list keeps its own order, and of
 * two rows in the same place the one of the earlier list (the ledger given first) comes first.
 *
 * @example
 * interleave([[1, 4], [2, 3]], (a, b) => a < b) // [1, 2, 3, 4]
 */
export function interleave<T>(lists: readonly (readonly T[])[], before: (a: T, b: T) => boolean): T[] {
  const heads = lists.map(() => 0)
  const total = lists.reduce((sum, list) => sum + list.length, 0)
  const merged: T[] = []
  while (merged.length < total) {
    let chosen = -1
    let chosenRow: T | undefined
    lists.forEach((list, index) => {
      const at = heads[index] as number
      if (at >= list.length) return
      const row = list[at] as T
      if (chosen === -1 || before(row, chosenRow as T)) {
        chosen = index
        chosenRow = row
      }
    })
    merged.push(chosenRow as T)
    heads[chosen] = (heads[chosen] as number) + 1
  }
  return merged
}
