import { relative, sep } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The test files that take longest, longest first (seconds in a full run on a fresh checkout,
 * 2 busy cores: docs/performance.md, "The suite's wall time"). Only the order matters; a file
 * that becomes long belongs here. `test/suite-order.test.ts` holds every name to an existing
 * test file.
 */
export const LONG_FILES: readonly string[] = [
  // npm pack + install beside AgentKit (~700 packages), a strict TypeScript program over them.
  'test/agents/agentkit-package.test.ts', // 435 s
  'test/agents/client-package.test.ts', // 75
  'test/e2e/soak.test.ts', // 54
  'test/corpus/corpus.test.ts', // 52
  'test/payment/recovery.test.ts', // 45
  'test/buyer/cli.test.ts', // 43
  'test/payment/mainnet-payment-config.test.ts', // 40
  'test/contracts/artifacts.test.ts', // 38: solc compiles every contract
  'test/e2e/npm-start.test.ts', // 35
  'test/e2e/instances.test.ts', // 33
  'test/e2e/secrets.test.ts', // 32
  'test/e2e/crash-recovery.test.ts', // 23
  'test/agents/mcp-tool-set.test.ts', // 23
  'test/config.test.ts', // 22
  'test/contracts/coinbase-smart-wallet.test.ts', // 22
  'test/e2e/anvil-orphan.test.ts', // 22
  'test/e2e/start-during-outage.test.ts', // 20
]

/**
 * `order` with each project's files kept together and the projects in the order they first
 * appear, and within a project the files of `LONG_FILES` first, in its order, then the others
 * as they were. Stable. `path` is a file's path from the repository root, `/`-separated.
 */
export function longFilesFirst<T>(
  order: readonly T[],
  path: (file: T) => string,
  project: (file: T) => string,
): T[] {
  const projects = [...new Set(order.map(project))]
  const rank = (file: T) => {
    const i = LONG_FILES.indexOf(path(file))
    return i === -1 ? LONG_FILES.length : i
  }
  return order
    .map((file, index) => ({ file, index }))
    .sort(
      (a, b) =>
        projects.indexOf(project(a.file)) - projects.indexOf(project(b.file)) ||
        rank(a.file) - rank(b.file) ||
        a.index - b.index,
    )
    .map(({ file }) => file)
}

/**
 * Vitest's sequencer (`sequence.sequencer`) with the long files started first. Two workers run
 * the files in this order, so a long file started late is the run's tail, one core idle: on a
 * fresh clone (CI) vitest has no durations of its own and starts the larger files first, which
 * put the AgentKit package's minutes in the middle and a 38 s compile at the very end. Vitest's
 * order stays for the rest (its recorded durations when it has them, failed files first), and
 * each project's files stay together: the shared-modules worker keeps its modules only while
 * the next file is of its project.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root
    return longFilesFirst(
      await super.sort(files),
      (spec) => relative(root, spec.moduleId).split(sep).join('/'),
      (spec) => spec.project.name,
    )
  }
}
