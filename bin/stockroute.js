#!/usr/bin/env node
// The CLI as built into dist/ by `npm run build` (which `npm install` runs in a clone): one bundled module.
let cli
try {
  cli = await import('../dist/cli/stockroute.mjs')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/stockroute.mjs'))
    throw error
  process.stderr.write(
    'error BUILD_MISSING: stockroute is not built (dist/cli/stockroute.mjs is missing)\nfix: run `npm install` (or `npm run build`) in the checkout\n',
  )
  process.exit(1)
}
await cli.main(process.argv)
