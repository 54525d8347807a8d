// Builds the packages into their dist/ folders, in dependency order (@stockroute/client, then
// @stockroute/sandbox, then stockroute): JavaScript, type declarations and source maps (tsc, with
// each one's tsconfig.build.json), the dashboard's static files beside its module, and the CLI as
// one bundled module (dist/cli/stockroute.mjs, esbuild): Node loads one file where the modules tsc
// writes are over a thousand, so a command starts in about half the CPU. Run by
// `prepare`, so `npm install` in a clone builds it; each dist/ starts empty (no file of a deleted
// module left behind).
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

const root = join(import.meta.dirname, '..')
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const started = Date.now()
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
process.stdout.write(
  `build: dist/ of 3 packages written in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
)
