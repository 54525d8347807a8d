import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Where the files' last measured durations are kept (written by `npm run test:durations`). */
export const durationsPath = join(import.meta.dirname, '..', 'durations.json')

/**
 * Starts the longest test files first, by the durations of test/durations.json, so that a long
 * file never starts last and holds the run up while the other worker is idle. A fresh clone has
 * no results cache of vitest's own, so the durations are kept in the repository; a file not in
 * them (new) starts first, as vitest's own sequencer does with unknown files.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations()
    const root = this.ctx.config.root
    const durationOf = (file: TestSpecification) =>
      durations[relative(root, file.moduleId)] ?? Number.POSITIVE_INFINITY
    return [...files].sort((a, b) => durationOf(b) - durationOf(a))
  }
}

function readDurations(): Readonly<Record<string, number>> {
  try {
    return JSON.parse(readFileSync(durationsPath, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}
