/**
 * RPC requests and sequential waves of one paid call, and its latency behind an RPC that adds
 * 0 and 50 ms per request, on the devnet with the built-in facilitator. Every RPC of the call
 * (preflight reads, verify, settle, confirmation) goes through a counting proxy
 * (test/support/counting-rpc.ts) that holds each reply the added latency: a wave is a group of
 * requests in flight together; a request sent after an earlier reply starts a new one.
 *
 * Waves "before inclusion" are those up to and including the one that carries
 * `eth_sendRawTransaction`: what follows is the wait for the block (anvil mines at once, Base
 * every ~2 s) and reads after it. Receipt polling is excluded because on a live chain its count
 * follows the block time, not our code.
 *
 * Before/after in one run: with `PAID_BEFORE=<checkout>` (a worktree of an earlier commit with
 * node_modules linked), the same measurement runs against that checkout's sources, in turns.
 * The floor is one raw `eth_blockNumber` through the same proxy (the round trip); at 50 ms the
 * ratio of the paid call's p50 to it is printed (issue 39's target: at most 4, three waves and
 * our own work). Prints figures; never fails on them. The machine may be shared: compare
 * ratios within one run, and run it a few times.
 *
 * Run: npx tsx bench/paid-waves.ts [iterations]
 *      PAID_BEFORE=/tmp/paid-before npx tsx bench/paid-waves.ts 5
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { percentile, spread } from './stats.js'

const iterations = Number(process.argv[2] ?? 5)
const HERE = fileURLToPath(new URL('..', import.meta.url))

interface Measure {
  latencyMs: number
  /** Per call: total ms, requests, waves, waves before inclusion, methods. */
  calls: { ms: number; requests: number; waves: number; beforeInclusion: number }[]
  methods: Record<string, number>
  waveLayout: string
  floor: number[]
}

/** One tree, one latency, in a child process (the tree's own modules). */
function measure(root: string, latencyMs: number): Measure {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('paid-waves-child.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        PAID_ROOT: root,
        PAID_LATENCY_MS: String(latencyMs),
        PAID_ITERATIONS: String(iterations),
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    },
  )
  const line = child.stdout.split('\n').find((l) => l.startsWith('{'))
  if (child.status !== 0 || !line) throw new Error(`measurement failed in ${root}`)
  return JSON.parse(line) as Measure
}

const trees: [string, string][] = [['after', HERE]]
if (process.env.PAID_BEFORE) trees.unshift(['before', process.env.PAID_BEFORE])

for (const latencyMs of [0, 50]) {
  console.log(`\n-- added RPC latency ${latencyMs} ms per request`)
  for (const [name, root] of trees) {
    const m = measure(root, latencyMs)
    const pick = (k: 'ms' | 'requests' | 'waves' | 'beforeInclusion') => m.calls.map((c) => c[k])
    console.log(spread(`${name}: paid call (in-process, verify+preflight+settle)`, pick('ms')))
    console.log(spread(`${name}:   RPC requests per paid call`, pick('requests'), 'req'))
    console.log(spread(`${name}:   sequential waves (all)`, pick('waves'), 'waves'))
    console.log(
      spread(
        `${name}:   waves before inclusion (up to the send)`,
        pick('beforeInclusion'),
        'waves',
      ),
    )
    console.log(spread(`${name}:   floor: one raw eth_blockNumber via the proxy`, m.floor))
    if (latencyMs > 0) {
      // The issue 39 target: a paid call's p50 at most 4 round trips (3 waves and our work).
      const ratio = percentile(pick('ms'), 50) / percentile(m.floor, 50)
      console.log(`${name}:   ratio: paid p50 / round trip p50 = ${ratio.toFixed(2)} (target <= 4)`)
    }
    if (latencyMs > 0) {
      console.log(`${name}:   methods of the last call: ${JSON.stringify(m.methods)}`)
      console.log(`${name}:   waves of the last call: ${m.waveLayout}`)
    }
  }
}
