#!/usr/bin/env node
// The CLI as built into dist/ by `npm run build` (which `npm install` runs in a clone): one bundled
// CommonJS file, loaded with V8's code cache of the command's last run (src/cli/loadCliBundle.ts).
import { fileURLToPath } from 'node:url'

const bundlePath = fileURLToPath(new URL('../dist/cli/stockroute.cjs', import.meta.url))
const command = process.argv[2] ?? ''
let cli
try {
  const { loadCliBundle } = await import('../dist/cli/loadCliBundle.js')
  cli = loadCliBundle({ bundlePath, command })
} catch (error) {
  const missing =
    (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('loadCliBundle')) ||
    (error?.code === 'ENOENT' && error.path === bundlePath)
  if (!missing) throw error
  process.stderr.write(
    'error BUILD_MISSING: stockroute is not built (dist/cli/ is missing or incomplete)\nfix: run `npm install` (or `npm run build`) in the checkout\n',
  )
  process.exit(1)
}
// Options alone (--version, --help) share one cache; a mistyped command keeps none. A cache V8
// accepted is not written again, so the usual exit does no work here.
process.once('exit', () => {
  if (cli.codeCache === 'accepted') return
  if (command === '' || command.startsWith('-') || cli.exports.commandNames().includes(command))
    cli.saveCodeCache()
})
await cli.exports.main(process.argv)
