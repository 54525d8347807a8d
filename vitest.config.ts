import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/localChains.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: chain-heavy files contend for CPU, keep parallelism modest.
    maxWorkers: 2,
  },
})
