// Builds the packages into their dist/ folders, in dependency order (@stockroute/client, then
// @stockroute/sandbox, then stockroute): JavaScript, type declarations and source maps (tsc, with
// each one's tsconfig.build.json), and the dashboard's static files beside its module. Run by
// `prepare`, so `npm install` in a clone builds it; each dist/ starts empty (no file of a deleted
// module left behind).
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'

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
process.stdout.write(
  `build: dist/ of 3 packages written in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
)
