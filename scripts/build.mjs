// Builds the packages into their dist/ folders, in dependency order (@stockroute/client, then
// @stockroute/sandbox, then stockroute): JavaScript, type declarations and source maps (tsc, with
// each one's tsconfig.build.json), the dashboard's static files beside its module, and the CLI as
// a bundle (dist/cli/stockroute.mjs and its chunks, esbuild): Node loads a few files where the modules
// tsc writes are over a thousand, so a command starts in about half the CPU. The bundle is split where
// main.ts imports a command's action lazily: `--version`, `--help` and a command that reads one file
// load the command line's definitions (30 KB) and what that action needs, not the engine, the chains
// and the sandbox (4 MB; 0.1 s of CPU for `--version` instead of 0.4 s). Run by
// `prepare`, so `npm install` in a clone builds it; each dist/ starts empty (no file of a deleted
// module left behind). With --if-changed (`npm test`), nothing is done when the inputs are those of
// the last build (kept in node_modules/.cache/stockroute/build-inputs): `npm install` has just built
// a clone, and a test run after an edit of a test alone needs no build.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { build } from 'esbuild'
import { inputsOfTheBuild, nodeBundle } from './buildSettings.mjs'

const root = join(import.meta.dirname, '..')
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const started = Date.now()
const inputsPath = join(root, 'node_modules', '.cache', 'stockroute', 'build-inputs')
const inputs = inputsOfTheBuild(root)
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
// The CLI's bundle: its chunks sit beside it, so paths found from a chunk's import.meta.url (the
// package's package.json, the dashboard's static files) are those found from the entry.
await build({
  ...nodeBundle,
  entryPoints: { stockroute: join(root, 'dist', 'cli', 'main.js') },
  outdir: join(root, 'dist', 'cli'),
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  sourcemap: true,
})
mkdirSync(dirname(inputsPath), { recursive: true })
writeFileSync(inputsPath, inputs)
process.stdout.write(
  `build: dist/ of 3 packages written in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
)

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
