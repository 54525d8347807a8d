// The check of a generated ledger: its positions against the store's own recomputation from the
// fills, adjustments and renames (recomputePositions), over the whole file or over a sample of it.
import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { openLedger } from '../../src/store/openLedger.js'

/**
 * Checks the generated positions with the store's own recomputation. `full`: recomputePositions()
 * on the file itself (loads every fill: fine for small files). `sample`: copies every fill,
 * adjustment and rename of a sample of tokens (the busiest ones and every token with a corporate
 * action), and their positions, into a scratch ledger and runs recomputePositions() there.
 * Throws when a position differs from the fold of its fills.
 */
export function validateLedger(path: string, mode: 'sample' | 'full', log: (message: string) => void): void {
  const started = performance.now()
  if (mode === 'full') {
    const ledger = openLedger({ path, owner: false })
    try {
      const { mismatches, positions } = ledger.positions.recomputePositions()
      if (mismatches.length > 0)
        throw new Error(`generated positions differ from the fold of fills: ${mismatches.length} mismatches`)
      log(
        `validated: recomputePositions() over the whole file, ${positions.length} positions, no mismatch (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      )
    } finally {
      ledger.close()
    }
    return
  }
  const scratch = `${path}.validate`
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${scratch}${suffix}`, { force: true })
  try {
    openLedger({ path: scratch, owner: false }).close()
    const db = new Database(scratch)
    db.pragma('foreign_keys = OFF') // the sample's executions stay behind
    db.exec(`ATTACH DATABASE '${path.replaceAll("'", "''")}' AS source`)
    const sample = db
      .prepare<[], { chain_id: number; token_address: string }>(
        `SELECT chain_id, token_address FROM (
           SELECT chain_id, stock_token AS token_address, count(*) AS n FROM source.fills
           WHERE chain_id = (SELECT min(chain_id) FROM source.fills) GROUP BY 1, 2 ORDER BY n DESC LIMIT 3)
         UNION SELECT chain_id, stock_token FROM (
           SELECT chain_id, stock_token, count(*) AS n FROM source.fills
           WHERE chain_id = (SELECT max(chain_id) FROM source.fills) GROUP BY 1, 2 ORDER BY n DESC LIMIT 3)
         UNION SELECT chain_id, token_address FROM source.position_adjustments
         UNION SELECT chain_id, token_address FROM source.position_renames`,
      )
      .all()
    db.exec(
      'CREATE TEMP TABLE sample (chain_id INTEGER, token_address TEXT, PRIMARY KEY (chain_id, token_address))',
    )
    const add = db.prepare('INSERT OR IGNORE INTO sample VALUES (?, ?)')
    for (const row of sample) add.run(row.chain_id, row.token_address)
    const copied = db.transaction(() => {
      const inSample = (table: string, token: string) =>
        `EXISTS (SELECT 1 FROM sample s WHERE s.chain_id = ${table}.chain_id AND s.token_address = ${table}.${token})`
      const fills = db
        .prepare(
          `INSERT INTO main.fills SELECT * FROM source.fills WHERE ${inSample('fills', 'stock_token')}`,
        )
        .run().changes
      db.prepare(
        `INSERT INTO main.position_adjustments SELECT * FROM source.position_adjustments WHERE ${inSample('position_adjustments', 'token_address')}`,
      ).run()
      db.prepare(
        `INSERT INTO main.position_renames SELECT * FROM source.position_renames WHERE ${inSample('position_renames', 'token_address')}`,
      ).run()
      db.prepare(
        `INSERT INTO main.positions SELECT * FROM source.positions WHERE ${inSample('positions', 'token_address')}`,
      ).run()
      return fills
    })()
    db.exec('DETACH DATABASE source')
    db.close()
    const ledger = openLedger({ path: scratch, owner: false })
    try {
      const { mismatches, positions } = ledger.positions.recomputePositions()
      if (mismatches.length > 0)
        throw new Error(
          `generated positions differ from the fold of fills: ${JSON.stringify(mismatches.slice(0, 2), (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
        )
      log(
        `validated: recomputePositions() on a sample of ${sample.length} tokens (${positions.length} positions, ${copied.toLocaleString('en')} fills, every corporate action): no mismatch (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      )
    } finally {
      ledger.close()
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${scratch}${suffix}`, { force: true })
  }
}
