import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { demoConfigPath } from '../../src/cli/defaultConfigPath.js'
import { exitCodes } from '../../src/cli/exitCodes.js'
import { repoRoot, runStockroute } from '../helpers/processes.js'

// Without --config, a command reads ./stockroute.json when the folder has one, else the demo's
// config: `stockroute positions` after `npm start` reads the demo's ledger.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-default-config-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

it("is the demo's config/default.json of this package", () => {
  expect(demoConfigPath).toBe(join(repoRoot, 'config', 'default.json'))
})

it('reads ./stockroute.json when the current folder has one, with no note', async () => {
  const withConfig = join(folder, 'desk')
  mkdirSync(withConfig)
  const demo = JSON.parse(readFileSync(demoConfigPath, 'utf8'))
  writeFileSync(join(withConfig, 'stockroute.json'), JSON.stringify({ ...demo, dataDir: 'desk-data' }))
  const result = await runStockroute(['positions'], { cwd: withConfig })
  expect(result.stderr).toContain(`No ledger at ${join(withConfig, 'desk-data', 'stockroute.sqlite')}`)
  expect(result.stderr).not.toContain("using the demo's config")
  expect(result.code).toBe(exitCodes.notFound)
})

it("falls back to the demo's config elsewhere, and says so", async () => {
  const empty = join(folder, 'empty')
  mkdirSync(empty)
  const result = await runStockroute(['report', 'summary'], { cwd: empty })
  expect(result.stderr).toContain(`(no ./stockroute.json here: using the demo's config ${demoConfigPath})`)
  // The demo's ledger, data/stockroute.sqlite of this checkout: there once `npm start` has run.
  if (result.code === exitCodes.notFound)
    expect(result.stderr).toContain(`No ledger at ${join(repoRoot, 'data', 'stockroute.sqlite')}`)
  else expect(result.code).toBe(exitCodes.ok)
})
