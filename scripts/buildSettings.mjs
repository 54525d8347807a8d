// What scripts/build.mjs builds from, and how it bundles a program for Node: shared with the test
// fixtures bundled from the same sources (test/helpers/builtFixture.ts).
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * What the build reads, as one hash: every file of the three packages' sources, their package and
 * TypeScript settings, scripts/build.mjs and this file (the bundle's options), by path, size and
 * modification time (an edit, a checkout, a new or deleted module each change it).
 */
export function inputsOfTheBuild(root) {
  const files = []
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name)
      if (entry.isDirectory()) walk(child)
      else files.push(child)
    }
  }
  for (const folder of [root, join(root, 'packages', 'client'), join(root, 'packages', 'sandbox')]) {
    walk(join(folder, 'src'))
    for (const name of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
      if (existsSync(join(folder, name))) files.push(join(folder, name))
  }
  files.push(join(root, 'scripts', 'build.mjs'), join(root, 'scripts', 'buildSettings.mjs'))
  const hash = createHash('sha256')
  for (const file of files.sort()) {
    const { size, mtimeMs } = statSync(file)
    hash.update(`${relative(root, file)} ${size} ${mtimeMs}\n`)
  }
  return `${hash.digest('hex')}\n`
}

/**
 * esbuild's options for one module Node runs (the CLI, a test fixture). The native (better-sqlite3,
 * tiny-secp256k1's wasm) and worker-thread (pino's transports) packages stay outside it, loaded from
 * node_modules as the library loads them. Names stay what the sources say: commander and the
 * project's errors are told apart by `name`, which the bundler would otherwise rename where two
 * modules' names collide.
 */
export const nodeBundle = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'tiny-secp256k1', 'pino', 'pino-pretty', 'ioredis'],
  // Bundled CommonJS packages call require(): give the module one.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  keepNames: true,
  logLevel: 'warning',
}
