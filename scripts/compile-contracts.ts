// Compiles packages/sandbox/src/contracts/*.sol and writes typed artifacts into its artifacts/ folder.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  artifactsDir,
  compileContracts,
  deployableContracts,
  renderArtifact,
  renderArtifactIndex,
} from '@stockroute/sandbox/contracts/compile.js'

const started = Date.now()
const compiled = compileContracts()
mkdirSync(artifactsDir, { recursive: true })
for (const name of deployableContracts) {
  writeFileSync(join(artifactsDir, `${name}.ts`), renderArtifact(name, compiled[name]))
  console.log(`wrote artifacts/${name}.ts (${(compiled[name].bytecode.length - 2) / 2} bytes of bytecode)`)
}
writeFileSync(join(artifactsDir, 'index.ts'), renderArtifactIndex())
console.log(`compiled ${deployableContracts.length} contracts in ${Date.now() - started} ms`)
