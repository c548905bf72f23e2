/**
 * Compares two heap snapshots of one process (`bench/load.ts` with LOAD_HEAP_SNAPSHOTS=1 writes
 * them): what the late one holds that the early one did not. Node ids are stable within a
 * process, so an object of the late snapshot whose id the early one lacks was allocated in
 * between and is still alive after the collection the snapshot forces. Prints the classes that
 * grew most (count, bytes), and for the largest groups of new objects their most common
 * retainer chains, which is where an unbounded collection shows itself.
 *
 * Usage: `node --max-old-space-size=4096 --import tsx bench/heap-diff.ts early late [rows]
 * [class...]` (classes as printed, e.g. 'closure abort', to see their retainers).
 */
import { readFileSync } from 'node:fs'

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[]
      node_types: [string[], ...unknown[]]
      edge_fields: string[]
      edge_types: [string[], ...unknown[]]
    }
  }
  nodes: number[]
  edges: number[]
  strings: string[]
}

interface Parsed {
  count: number
  type: (n: number) => string
  name: (n: number) => string
  id: (n: number) => number
  size: (n: number) => number
  /** Retainers of node `n`: [owner node, edge label]. */
  retainers: (n: number) => [number, string][]
  totalSize: number
}

function parse(file: string): Parsed {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot
  const nf = s.snapshot.meta.node_fields
  const ef = s.snapshot.meta.edge_fields
  const width = nf.length
  const ewidth = ef.length
  const [TYPE, NAME, ID, SIZE, EDGES] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) =>
    nf.indexOf(f),
  ) as [number, number, number, number, number]
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [
    number,
    number,
    number,
  ]
  const nodeTypes = s.snapshot.meta.node_types[0]
  const edgeTypes = s.snapshot.meta.edge_types[0]
  const count = s.nodes.length / width
  // Reverse edges: for each node, who points at it (weak edges skipped: they retain nothing).
  const edgeOwner: number[] = []
  for (let n = 0; n < count; n++) {
    const edges = s.nodes[n * width + EDGES] as number
    for (let k = 0; k < edges; k++) edgeOwner.push(n)
  }
  const incoming: number[][] = Array.from({ length: count }, () => [])
  for (let k = 0; k < s.edges.length / ewidth; k++) {
    const kind = edgeTypes[s.edges[k * ewidth + ETYPE] as number]
    if (kind === 'weak') continue
    const to = (s.edges[k * ewidth + ETO] as number) / width
    incoming[to]?.push(k)
  }
  const edgeLabel = (k: number) => {
    const kind = edgeTypes[s.edges[k * ewidth + ETYPE] as number]
    const raw = s.edges[k * ewidth + ENAME] as number
    return kind === 'element' || kind === 'hidden' ? `[${raw}]` : (s.strings[raw] ?? '?')
  }
  let totalSize = 0
  for (let n = 0; n < count; n++) totalSize += s.nodes[n * width + SIZE] as number
  return {
    count,
    type: (n) => nodeTypes[s.nodes[n * width + TYPE] as number] ?? '?',
    name: (n) => s.strings[s.nodes[n * width + NAME] as number] ?? '?',
    id: (n) => s.nodes[n * width + ID] as number,
    size: (n) => s.nodes[n * width + SIZE] as number,
    retainers: (n) => (incoming[n] ?? []).map((k) => [edgeOwner[k] as number, edgeLabel(k)]),
    totalSize,
  }
}

/** A class label: constructor name for objects, the type for strings, code and the like. */
function label(p: Parsed, n: number): string {
  const type = p.type(n)
  if (type === 'object' || type === 'closure' || type === 'native') return `${type} ${p.name(n)}`
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
    return 'string'
  return `(${type}) ${type === 'hidden' || type === 'array' ? p.name(n) : ''}`.trim()
}

const [earlyFile, lateFile, rowsArg, ...only] = process.argv.slice(2)
if (!earlyFile || !lateFile)
  throw new Error('usage: heap-diff.ts early.heapsnapshot late.heapsnapshot [rows]')
const rows = Number(rowsArg ?? 25)
const early = parse(earlyFile)
const earlyIds = new Set<number>()
const earlyBy = new Map<string, { count: number; size: number }>()
for (let n = 0; n < early.count; n++) {
  earlyIds.add(early.id(n))
  const key = label(early, n)
  const g = earlyBy.get(key) ?? { count: 0, size: 0 }
  g.count++
  g.size += early.size(n)
  earlyBy.set(key, g)
}
const late = parse(lateFile)
const lateBy = new Map<string, { count: number; size: number; fresh: number[] }>()
for (let n = 0; n < late.count; n++) {
  const key = label(late, n)
  const g = lateBy.get(key) ?? { count: 0, size: 0, fresh: [] }
  g.count++
  g.size += late.size(n)
  if (!earlyIds.has(late.id(n))) g.fresh.push(n)
  lateBy.set(key, g)
}
const mb = (b: number) => `${(b / 2 ** 20).toFixed(2)} MB`
console.log(
  `early ${early.count} nodes ${mb(early.totalSize)}; late ${late.count} nodes ${mb(late.totalSize)}; growth ${mb(late.totalSize - early.totalSize)}`,
)
const growth = [...lateBy.entries()]
  .map(([key, g]) => {
    const before = earlyBy.get(key) ?? { count: 0, size: 0 }
    return { key, dCount: g.count - before.count, dSize: g.size - before.size, g }
  })
  .sort((a, b) => b.dSize - a.dSize)
console.log(
  '\nclasses by bytes grown (count delta, bytes delta, objects allocated in between still alive):',
)
for (const r of growth.slice(0, rows)) {
  console.log(
    `  ${r.key.slice(0, 60).padEnd(60)} ${String(r.dCount).padStart(8)} ${mb(r.dSize).padStart(10)}  new alive ${r.g.fresh.length}`,
  )
}

/** The most common retainer chains (owner label + edge, `depth` levels up) of `nodes`. */
function chains(p: Parsed, nodes: number[], depth: number): [string, number][] {
  const counts = new Map<string, number>()
  for (const n of nodes.slice(0, 2000)) {
    let at = n
    const path: string[] = []
    const visited = new Set([n])
    for (let d = 0; d < depth; d++) {
      // The first retainer not already on the path (closures and their contexts form cycles).
      const first = p.retainers(at).find(([owner]) => !visited.has(owner))
      if (!first) break
      const [owner, edge] = first
      visited.add(owner)
      path.push(`${label(p, owner)}.${edge}`)
      at = owner
    }
    const key = path.join(' <- ')
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3)
}
console.log(
  '\nwhere the largest groups of new, still-alive objects hang (first retainer, 6 levels):',
)
const byFresh = [...lateBy.entries()]
  .map(([key, g]) => ({
    key,
    fresh: g.fresh,
    bytes: g.fresh.reduce((a, n) => a + late.size(n), 0),
  }))
  .filter((g) => only.length === 0 || only.includes(g.key))
  .sort((a, b) => b.bytes - a.bytes)
  .slice(0, only.length || 8)
for (const g of byFresh) {
  console.log(`  ${g.key} (${g.fresh.length} new alive, ${mb(g.bytes)}):`)
  for (const [path, n] of chains(late, g.fresh, 8)) console.log(`    ${n}x ${path}`)
}
