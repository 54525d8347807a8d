// Builds the packages into their dist/ folders, in dependency order (@stockroute/client, then
// @stockroute/sandbox, then stockroute): JavaScript, type declarations and source maps (tsc, with
// each one's tsconfig.build.json), the dashboard's static files beside its module, and the CLI as
// one bundled file (dist/cli/stockroute.cjs, esbuild): Node loads one file where the modules tsc
// writes are over a thousand, so a command starts in about half the CPU. Run by
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
// The CLI's bundle: one CommonJS file, which bin/stockroute.js loads with V8's code cache
// (src/cli/loadCliBundle.ts; Node 20 caches no compiled ES module). import.meta of the sources is
// the bundle's own: the paths found from it (the package's package.json, the dashboard's static
// files) are those found from dist/cli/.
const { banner: _esmRequire, ...nodeOptions } = nodeBundle
await build({
  ...nodeOptions,
  format: 'cjs',
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outfile: join(root, 'dist', 'cli', 'stockroute.cjs'),
  define: { 'import.meta.url': 'importMetaUrlOfBundle', 'import.meta.dirname': '__dirname' },
  banner: { js: "const importMetaUrlOfBundle = require('node:url').pathToFileURL(__filename).href;" },
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
    join(root, 'dist', 'cli', 'stockroute.cjs'),
    join(root, 'dist', 'dashboard', 'static'),
  ]
  if (!outputs.every((path) => existsSync(path)) || !existsSync(inputsPath)) return false
  return readFileSync(inputsPath, 'utf8') === inputs
}
