// Generates a realistic stockroute ledger for the report benchmark (bench/reportQueries.ts): by
// default 1,000,000 fills over 2 chains and 200 tokens across ~90 days, with their executions
// (mostly confirmed; some failed, expired, rejected; a part made by strategies), execution events
// (intent → quoting → quoted → submitted → confirmed, spaced like the engine spaces them), quotes,
// transactions (execute, a quarter with an approve), positions equal to the fold of fills (the
// store's own fold, applyPositionEntry, applied as the rows are written), a few corporate actions
// (splits, a reverse split, a delisting, transfers in, a ticker change) and dividends.
//
// The schema is the real one: the file is created by openLedger (all migrations), closed, then
// filled through a raw better-sqlite3 connection with prepared statements in large transactions
// (journal off, synchronous off, exclusive lock: for this connection only; WAL is restored at the
// end). The migration-4 triggers write an `events` row per execution event and per fill, as in
// production. Cached: `<tmpdir>/stockroute-bench-report-v<version>.sqlite` with a `.json` beside
// it is reused while the generator version and size match.
//
// The parts: ledgerGenerator.ts (the generation, driving ledgerState.ts, executionRows.ts,
// corporateActions.ts and ledgerWriter.ts), ledgerCache.ts (the cached file), validateLedger.ts
// (the check against recomputePositions). This file is the command line, and re-exports their API.
//
// Run alone: npx tsx bench/report/generateLedger.ts [--fills 1000000] [--out file] [--regenerate]
//            [--validate sample|full|none]
import { pathToFileURL } from 'node:url'
import { ensureBenchLedger } from './ledgerCache.js'

export {
  benchLedgerDirectory,
  benchLedgerPath,
  bytesPerFill,
  ensureBenchLedger,
  readCachedMeta,
} from './ledgerCache.js'
export { type GenerateOptions, generateLedger, generatorVersion, type LedgerMeta } from './ledgerGenerator.js'
export { validateLedger } from './validateLedger.js'

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2)
  const optionValue = (name: string) => {
    const at = args.indexOf(`--${name}`)
    return at < 0 ? undefined : args[at + 1]
  }
  const fills = Number(optionValue('fills') ?? 1_000_000)
  if (!Number.isInteger(fills) || fills < 1_000 || fills > 5_000_000)
    throw new Error('--fills must be a whole number from 1000 to 5000000')
  const validate = (optionValue('validate') ?? 'sample') as 'sample' | 'full' | 'none'
  if (!['sample', 'full', 'none'].includes(validate)) throw new Error('--validate: sample, full or none')
  const result = ensureBenchLedger({
    fills,
    regenerate: args.includes('--regenerate'),
    path: optionValue('out'),
    validate,
    log: (message) => process.stderr.write(`[generateLedger] ${message}\n`),
  })
  console.log(JSON.stringify({ path: result.path, generated: result.generated, ...result.meta }, null, 2))
}
