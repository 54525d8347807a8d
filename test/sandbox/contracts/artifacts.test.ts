import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  artifactsDir,
  compileContracts,
  deployableContracts,
  renderArtifact,
  renderArtifactIndex,
} from '@stockroute/sandbox/contracts/compile.js'
import { describe, expect, it } from 'vitest'

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
