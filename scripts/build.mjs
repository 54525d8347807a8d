// Builds the packages into their dist/ folders, in dependency order (@stockroute/client, then
// @stockroute/sandbox, then stockroute): JavaScript, type declarations and source maps (tsc, with
// each one's tsconfig.build.json), the dashboard's static files beside its module, and the CLI as
// one bundled module (dist/cli/stockroute.mjs, esbuild): Node loads one file where the modules tsc
// writes are over a thousand, so a command starts in about half the CPU. Run by
// `prepare`, so `npm install` in a clone builds it; each dist/ starts empty (no file of a deleted
// module left behind). With --if-changed (`npm test`), nothing is done when the inputs are those of
// the last build (node_modules/.cache/stockroute/build-inputs, below): `npm install` has just built a clone, and a test run after
// an edit of a test alone needs no build.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'

const root = join(import.meta.dirname, '..')
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const started = Date.now()
const inputsPath = join(root, 'node_modules', '.cache', 'stockroute', 'build-inputs')
const inputs = inputsOfTheBuild()
if (process.argv.includes('--if-changed') && isBuiltFrom(inputs)) {
  process.stdout.write('build: dist/ is built from these sources already: nothing to do\n')
  process.exit(0)
}
for (const folder of [join(root, 'packages', 'client'), join(root, 'packages', 'sandbox'), root]) {
  rmSync(join(folder, 'dist'), { recursive: true, force: true })
  const compiled = spawnSync(tsc, ['-p', join(folder, 'tsconfig.build.json')], { stdio: 'inherit' })
  if (compiled.status !== 0) {
    process.stderr.write(`build: tsc failed for ${folder} (see above); its dist/ is incomplete\n`)
    process.exit(compiled.status ?? 1)
  }
}
cpSync(join(root, 'src', 'dashboard', 'static'), join(root, 'dist', 'dashboard', 'static'), {
  recursive: true,
})
// The CLI's bundle: the native (better-sqlite3, tiny-secp256k1's wasm) and worker-thread (pino's
// transports) packages stay outside it, loaded from node_modules as the library loads them.
await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outfile: join(root, 'dist', 'cli', 'stockroute.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'tiny-secp256k1', 'pino', 'pino-pretty', 'ioredis'],
  // Bundled CommonJS packages call require(): give the module one.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  // Names stay what the sources say: commander and the project's errors are told apart by `name`,
  // which the bundler would otherwise rename where two modules' names collide.
  keepNames: true,
  sourcemap: true,
  logLevel: 'warning',
})
mkdirSync(dirname(inputsPath), { recursive: true })
writeFileSync(inputsPath, inputs)
process.stdout.write(
  `build: dist/ of 3 packages written in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
)

/**
 * What the build reads, as one hash: every file of the three packages' sources, their package and
 * TypeScript settings and this script, by path, size and modification time (an edit, a checkout, a
 * new or deleted module each change it).
 */
function inputsOfTheBuild() {
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
  files.push(join(root, 'scripts', 'build.mjs'))
  const hash = createHash('sha256')
  for (const file of files.sort()) {
    const { size, mtimeMs } = statSync(file)
    hash.update(`${relative(root, file)} ${size} ${mtimeMs}\n`)
  }
  return `${hash.digest('hex')}\n`
}

/** Whether the last build's outputs are all there and were built from `inputs`. */
function isBuiltFrom(inputs) {
  const outputs = [
    join(root, 'packages', 'client', 'dist', 'index.js'),
    join(root, 'packages', 'sandbox', 'dist', 'startSandbox.js'),
    join(root, 'dist', 'index.js'),
    join(root, 'dist', 'cli', 'stockroute.mjs'),
    join(root, 'dist', 'dashboard', 'static'),
  ]
  if (!outputs.every((path) => existsSync(path)) || !existsSync(inputsPath)) return false
  return readFileSync(inputsPath, 'utf8') === inputs
}
