import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { buildSync } from 'esbuild'
import { inputsOfTheBuild, nodeBundle } from '../../scripts/buildSettings.mjs'
import { repoRoot } from './processes.js'

const builtFixtures = join(repoRoot, 'node_modules', '.cache', 'stockroute', 'test-fixtures')
let sourcesHash: string | undefined

/**
 * The path of a test fixture (a TypeScript program a test runs as a child process) bundled into one
 * module for plain `node`, as the CLI is (scripts/build.mjs): its sources and the packages' builds in
 * one file, the native and worker packages loaded from node_modules. Node starts it in about a fifth
 * of the CPU tsx spends compiling the sources at each start, which counts when a test starts dozens
 * of children. Kept by the hash of the fixture and of the sources (scripts/buildSettings.mjs), so an
 * edit of either bundles it again.
 *
 * @example
 * spawnNode([builtFixture('test/fixtures/tradePlan.ts'), JSON.stringify(args)])
 */
export function builtFixture(fixture: string): string {
  const source = resolve(repoRoot, fixture)
  sourcesHash ??= inputsOfTheBuild(repoRoot)
  const hash = createHash('sha256')
    .update(readFileSync(source))
    .update(sourcesHash)
    .digest('hex')
    .slice(0, 16)
  const name = relative(repoRoot, source).replaceAll('/', '_').replace(/\.ts$/, '')
  const target = join(builtFixtures, `${name}-${hash}.mjs`)
  if (existsSync(target)) return target
  mkdirSync(builtFixtures, { recursive: true })
  // Written beside its name and renamed: workers that build the same fixture at once never read half of it.
  const partial = `${target}.${process.pid}.partial.mjs`
  buildSync({ ...nodeBundle, entryPoints: [source], outfile: partial })
  renameSync(partial, target)
  // Bundles of this fixture from earlier sources go (2 MB each, one per edit otherwise).
  for (const file of readdirSync(builtFixtures))
    if (
      file.startsWith(`${name}-`) &&
      /^[0-9a-f]{16}\.mjs$/.test(file.slice(name.length + 1)) &&
      join(builtFixtures, file) !== target
    )
      rmSync(join(builtFixtures, file), { force: true })
  return target
}
