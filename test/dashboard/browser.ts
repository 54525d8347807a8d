// Debian's Chromium driven by playwright-core: one browser per test file, with a fresh profile
// (user-data dir) removed after the file; screenshots go to test-results/dashboard/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { repoRoot } from '../helpers/processes.js'

/** Where the test run saves the dashboard's screenshots (git-ignored). */
export const screenshotDir = join(repoRoot, 'test-results', 'dashboard')

/** Launches Chromium before the file's tests and closes it after; read the context inside tests. */
export function useChromium(): () => BrowserContext {
  const profile = mkdtempSync(join(tmpdir(), 'stockroute-chromium-'))
  let context: BrowserContext | undefined
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true })
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 900 },
    })
  }, 60_000)
  afterAll(async () => {
    await context?.close()
    rmSync(profile, { recursive: true, force: true })
  })
  return () => {
    if (!context) throw new Error('Chromium is not launched yet: call it inside a test')
    return context
  }
}
