/**
 * The protocol catalogue's cost (issue 26): read-only preflight p50 on the devnet with this
 * checkout's service code against a base commit's (default: the commit before the catalogue),
 * in alternating rounds of the same run, each round a fresh process and devnet. Prints each
 * case's p50 per round, min/median/max over rounds, and the ratio now/base. Asserts nothing.
 *
 * Run: npx tsx bench/catalogue.ts [rounds] [iterations]   (BENCH_BASE=<commit> to change the base)
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { percentile } from './stats.js'

const rounds = Number(process.argv[2] ?? 3)
const iterations = Number(process.argv[3] ?? 150)
const base = process.env.BENCH_BASE ?? 'd72019a'
const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const child = new URL('catalogue-child.ts', import.meta.url).pathname

const dir = mkdtempSync(join(tmpdir(), 'psg-catalogue-base-'))
const git = (...args: string[]) => {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
}
git('worktree', 'add', '--detach', dir, base)
symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
try {
  const runs: Record<'now' | 'base', Record<string, number>[]> = { now: [], base: [] }
  for (let round = 0; round < rounds; round++) {
    for (const [label, tree] of [
      ['base', dir],
      ['now', ROOT],
    ] as const) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', child, tree, String(iterations)], {
        cwd: ROOT,
        encoding: 'utf8',
      })
      if (r.status !== 0) throw new Error(`${label} round ${round}: ${r.stderr}`)
      const line = r.stdout.trim().split('\n').at(-1) ?? '{}'
      runs[label].push(JSON.parse(line) as Record<string, number>)
      console.log(`round ${round + 1} ${label.padEnd(4)} ${line}`)
    }
  }
  console.log(
    `\nread-only preflight p50 (ms), ${rounds} alternating rounds of ${iterations}, base ${base}:`,
  )
  for (const name of Object.keys(runs.now[0] ?? {})) {
    const now = runs.now.map((r) => r[name] ?? Number.NaN)
    const before = runs.base.map((r) => r[name] ?? Number.NaN)
    const ratios = now.map((n, i) => n / (before[i] ?? Number.NaN))
    const f = (xs: number[]) =>
      `${Math.min(...xs).toFixed(2)} / ${percentile(xs, 50).toFixed(2)} / ${Math.max(...xs).toFixed(2)}`
    console.log(`${name.padEnd(40)} base ${f(before)}  now ${f(now)}  ratio now/base ${f(ratios)}`)
  }
} finally {
  git('worktree', 'remove', '--force', dir)
  rmSync(dir, { recursive: true, force: true })
}
