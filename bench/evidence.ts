/**
 * What the public-page evidence route adds on top of the reader's own response time, for a
 * 20,000-character page. The reader is the loopback fake from the tests, reached over real HTTP;
 * the route runs in-process through `app.request`, so the difference is the route's own work
 * (body guard and validation, URL vetting, the reader call's client side, reply parsing,
 * bounding, hashing, JSON rendering).
 *
 * Run: npx tsx bench/evidence.ts [iterations]
 */
import { createJinaReader } from '../src/adapters/reader/jina-reader.js'
import { startFakeReader } from '../test/support/fake-reader.js'
import { preflightApp } from '../test/support/preflight-app.js'

const ITERATIONS = Number(process.argv[2] ?? 200)
const WARMUP = 30
const PAGE_URL = 'https://example.com/long-article'
const PAGE_CHARS = 20_000

/** Exactly `PAGE_CHARS` code points of paragraphs mixing ASCII, CJK and emoji. */
function page(): string {
  const paragraph =
    'The quick brown fox jumps over the lazy dog. 敏捷的棕色狐狸 😀 ünïcödé text.\n\n'
  let text = ''
  while (Array.from(text).length < PAGE_CHARS) text += paragraph
  return Array.from(text).slice(0, PAGE_CHARS).join('')
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] ?? Number.NaN
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`

async function main(): Promise<void> {
  const fake = await startFakeReader()
  const content = page()
  fake.replies.set(PAGE_URL, { kind: 'page', title: 'A long article', content })
  const reader = createJinaReader({ baseUrl: fake.baseUrl, timeoutMs: 15_000 })
  const app = preflightApp('http://127.0.0.1:9', { reader, contractChecked: false })
  const body = JSON.stringify({ url: PAGE_URL, max_chars: 20_000 })

  const direct = async () => {
    const res = await fetch(`${fake.baseUrl}/`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: PAGE_URL }),
    })
    await res.text()
  }
  const route = async () => {
    const res = await app.request('/payanagent/v1/public-page-evidence', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const json = (await res.json()) as { returnedChars?: number }
    if (res.status !== 200 || json.returnedChars !== PAGE_CHARS) {
      throw new Error(`unexpected answer ${res.status} ${JSON.stringify(json).slice(0, 200)}`)
    }
  }
  const time = async (fn: () => Promise<void>) => {
    const started = performance.now()
    await fn()
    return performance.now() - started
  }

  for (let i = 0; i < WARMUP; i++) {
    await direct()
    await route()
  }
  const readerMs: number[] = []
  const routeMs: number[] = []
  const pairedMs: number[] = []
  for (let i = 0; i < ITERATIONS; i++) {
    // Alternate the order so neither side always runs on a warmer connection.
    let r: number
    let t: number
    if (i % 2 === 0) {
      r = await time(direct)
      t = await time(route)
    } else {
      t = await time(route)
      r = await time(direct)
    }
    readerMs.push(r)
    routeMs.push(t)
    pairedMs.push(t - r)
  }
  await fake.close()

  const sort = (xs: number[]) => [...xs].sort((a, b) => a - b)
  const reader50 = percentile(sort(readerMs), 50)
  const route50 = percentile(sort(routeMs), 50)
  const lines = [
    `public-page evidence, ${PAGE_CHARS}-character page (${Buffer.byteLength(content)} UTF-8 bytes), ${ITERATIONS} iterations, Node ${process.version}`,
    `reader alone (loopback fake): p50 ${fmt(reader50)}  p95 ${fmt(percentile(sort(readerMs), 95))}`,
    `route (app.request):          p50 ${fmt(route50)}  p95 ${fmt(percentile(sort(routeMs), 95))}`,
    `overhead, p50(route) - p50(reader): ${fmt(route50 - reader50)}`,
    `overhead, paired per iteration:     p50 ${fmt(percentile(sort(pairedMs), 50))}  p95 ${fmt(percentile(sort(pairedMs), 95))}`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

await main()
