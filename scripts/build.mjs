// Builds the package into dist/: JavaScript, type declarations and source maps (tsc, with
// tsconfig.build.json), and the dashboard's static files beside its module. Run by `prepare`, so
// `npm install` in a clone builds it; dist/ starts empty each time (no file of a deleted module left).
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist')
const started = Date.now()
rmSync(dist, { recursive: true, force: true })
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const compiled = spawnSync(tsc, ['-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed (see above); dist/ is incomplete\n')
  process.exit(compiled.status ?? 1)
}
cpSync(join(root, 'src', 'dashboard', 'static'), join(dist, 'dashboard', 'static'), { recursive: true })
process.stdout.write(`build: dist/ written in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
