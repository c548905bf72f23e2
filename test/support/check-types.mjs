/**
 * `tsc -p <tsconfig> --noEmit` for a consumer project, with the project's own TypeScript, that
 * type-checks the bodies of only the files a test answers for. Run with plain Node in the
 * project: `node check-types.mjs tsconfig.json --skip node_modules/ --keep node_modules/@x/`.
 *
 * The program is the one tsc builds (same options, same files, every declaration loaded and
 * bound, every type a checked file uses resolved through them), and the report is tsc's:
 * config, options, global and syntactic diagnostics of every file, then the semantic
 * diagnostics of every file whose path (relative to the project) starts with no `--skip`
 * prefix, or with a `--keep` prefix. What it leaves out is checking the bodies of the other
 * declaration files (`skipLibCheck: false` checks all of them), whose errors a caller that
 * ignores them would only throw away: for a project beside AgentKit that is two copies of viem
 * and ~4,000 declaration files, over 100 s of tsc's ~130 s.
 *
 * Prints the diagnostics as tsc does without `--pretty` (`file(line,col): error TS...`) and
 * exits 2 when there is one, 0 otherwise.
 */
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'

const [configArg, ...rest] = process.argv.slice(2)
if (!configArg) {
  console.error('usage: check-types.mjs <tsconfig.json> [--skip prefix]... [--keep prefix]...')
  process.exit(64)
}
const skip = []
const keep = []
for (let i = 0; i < rest.length; i += 2) {
  const [flag, value] = [rest[i], rest[i + 1]]
  if ((flag !== '--skip' && flag !== '--keep') || value === undefined) {
    console.error(`check-types.mjs: unknown argument ${flag ?? ''}`)
    process.exit(64)
  }
  ;(flag === '--skip' ? skip : keep).push(value)
}

const cwd = process.cwd()
// The project's TypeScript, as its own `tsc` would be.
const ts = createRequire(join(cwd, 'package.json'))('typescript')
const configPath = resolve(cwd, configArg)
const read = ts.readConfigFile(configPath, ts.sys.readFile)
if (read.error) {
  console.log(ts.formatDiagnostics([read.error], host()))
  process.exit(2)
}
const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, resolve(configPath, '..'))
const program = ts.createProgram({
  rootNames: parsed.fileNames,
  options: parsed.options,
  projectReferences: parsed.projectReferences,
  configFileParsingDiagnostics: parsed.errors,
})

const checked = (fileName) => {
  const path = relative(cwd, fileName)
  return !skip.some((p) => path.startsWith(p)) || keep.some((p) => path.startsWith(p))
}
// tsc's order: configuration and options, then syntax (stop there if any), then the rest.
let diagnostics = [
  ...program.getConfigFileParsingDiagnostics(),
  ...program.getOptionsDiagnostics(),
  ...program.getSyntacticDiagnostics(),
]
if (diagnostics.length === 0) {
  diagnostics = [
    ...program.getGlobalDiagnostics(),
    ...program
      .getSourceFiles()
      .filter((file) => checked(file.fileName))
      .flatMap((file) => program.getSemanticDiagnostics(file)),
  ]
}
if (diagnostics.length > 0) {
  console.log(ts.formatDiagnostics(diagnostics, host()))
  process.exit(2)
}

function host() {
  return {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  }
}
