import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// The layers of DESIGN.md as `npm run lint` enforces them (.dependency-cruiser.cjs): the project's
// own sources pass, and a fixture with an arrow back up, a circle of types and an import inside the
// engine from outside it fails with each named (an import through the engine's index passes).

const root = join(import.meta.dirname, '..', '..')
const depcruise = join(root, 'node_modules', '.bin', 'depcruise')
const config = join(root, '.dependency-cruiser.cjs')

type Violation = { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }

/** The folders `npm run lint` cruises: the application's sources and the workspace packages'. */
const sources = ['src', 'packages/client/src', 'packages/sandbox/src']

async function cruise(cwd: string, folders: readonly string[]) {
  const run = await promisify(execFile)(
    depcruise,
    [...folders, '--config', config, '--output-type', 'json'],
    {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? '', code: error.code }))
  const result = JSON.parse(run.stdout) as { summary: { violations: Violation[] } }
  return result.summary.violations
}

describe('layers', () => {
  it('the sources have no import circle and no import up a layer', { timeout: 60_000 }, async () => {
    expect((await cruise(root, sources)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([])
  })

  it('an import up a layer, a circle of types and a reach inside the engine are refused, each by its rule', {
    timeout: 60_000,
  }, async () => {
    const violations = await cruise(join(root, 'test', 'fixtures', 'layers'), ['src', 'packages/client/src'])
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()).toEqual([
      'engine-public-entry: packages/client/src/domain/price.ts → src/engine/run.ts',
      'engine-public-entry: src/daemon/start.ts → src/engine/run.ts',
      'layer-domain: packages/client/src/domain/price.ts → src/engine/run.ts',
      'no-circular: src/store/fills.ts → src/store/positions.ts',
    ])
  })
})
