// Compiles contracts/ and writes contracts/artifacts/*.json (committed, so `npm start` never
// needs solc). Run with `npm run build:contracts` after editing any .sol file.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ARTIFACTS_DIR, compileAll, serializeArtifact } from './compile.js'

const started = performance.now()
const { artifacts, warnings } = compileAll()
for (const warning of warnings) console.warn(warning)

mkdirSync(ARTIFACTS_DIR, { recursive: true })
const written = new Set<string>()
for (const artifact of artifacts) {
  const file = `${artifact.contractName}.json`
  writeFileSync(join(ARTIFACTS_DIR, file), serializeArtifact(artifact))
  written.add(file)
}
// Artifacts of deleted or renamed contracts would otherwise linger and still be importable.
for (const file of readdirSync(ARTIFACTS_DIR)) {
  if (file.endsWith('.json') && !written.has(file)) rmSync(join(ARTIFACTS_DIR, file))
}

console.log(
  `wrote ${artifacts.length} artifacts to contracts/artifacts in ${Math.round(performance.now() - started)} ms: ${[...written].join(', ')}`,
)
