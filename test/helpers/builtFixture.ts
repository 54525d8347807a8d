import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { transformSync } from '@swc/core'
import { repoRoot } from './processes.js'

const builtFixtures = join(repoRoot, 'node_modules', '.cache', 'stockroute', 'test-fixtures')
const sources = join(repoRoot, 'src')
const built = join(repoRoot, 'dist')

/**
 * The path of a test fixture (a TypeScript program a test runs as a child process) made runnable by
 * plain `node` against the built packages: its types stripped (swc), its imports of `src/`
 * pointed at `dist/` (which `npm test` builds first), kept by the hash of its text. Node loads the
 * built JavaScript in about a third of the CPU that tsx spends compiling the sources at each start,
 * which counts when a test starts dozens of children. The packages it imports by name
 * (`@stockroute/client`, `viem`) resolve from the repository's node_modules as they do for the CLI.
 *
 * @example
 * spawnNode([builtFixture('test/fixtures/tradePlan.ts'), JSON.stringify(args)])
 */
export function builtFixture(fixture: string): string {
  const source = resolve(repoRoot, fixture)
  const text = readFileSync(source, 'utf8')
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16)
  const name = relative(repoRoot, source).replaceAll('/', '_').replace(/\.ts$/, '')
  const target = join(builtFixtures, `${name}-${hash}.mjs`)
  if (existsSync(target)) return target
  const { code } = transformSync(text, {
    filename: source,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
  })
  mkdirSync(builtFixtures, { recursive: true })
  // Written beside its name and renamed: workers that build the same fixture at once never read half of it.
  const partial = `${target}.${process.pid}.partial`
  writeFileSync(partial, pointedAtDist(code, source))
  renameSync(partial, target)
  return target
}

/** Rewrites relative imports into `src/` as absolute imports of the same module in `dist/`. */
function pointedAtDist(code: string, source: string): string {
  return code.replace(
    /(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g,
    (_match, lead, quote, specifier) => {
      const target = resolve(dirname(source), specifier)
      const inSources = relative(sources, target)
      if (inSources.startsWith('..'))
        throw new Error(
          `${relative(repoRoot, source)} imports ${specifier}: a fixture may import only src/ and packages`,
        )
      return `${lead}${quote}${join(built, inSources)}${quote}`
    },
  )
}
