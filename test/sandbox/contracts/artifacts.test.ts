import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  artifactsDir,
  compileContracts,
  deployableContracts,
  renderArtifact,
  renderArtifactIndex,
} from '../../../src/sandbox/contracts/compile.js'

describe('committed contract artifacts', () => {
  it('equal a fresh compilation of the Solidity sources (run `npm run compile:contracts` when this fails)', () => {
    const compiled = compileContracts()
    for (const name of deployableContracts) {
      const committed = readFileSync(join(artifactsDir, `${name}.ts`), 'utf8')
      expect(committed, `artifacts/${name}.ts is stale`).toBe(renderArtifact(name, compiled[name]))
    }
    expect(readFileSync(join(artifactsDir, 'index.ts'), 'utf8')).toBe(renderArtifactIndex())
  })
})
