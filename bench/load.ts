/**
 * Load and soak: two real instances (`tsx src/main.ts`, mainnet mode, built-in facilitator)
 * on one anvil and one PostgreSQL ledger, 64 concurrent clients for 60 s of mixed traffic
 * (read-only preflights, bundles, typed data, unpaid 402s and paid calls). Prints errors,
 * p50/p99 per kind, each instance's RSS in the first and second half, and whether the
 * ledger's settled total equals payTo's USDC on chain. Figures, not a test.
 *
 * LOAD_SECONDS and LOAD_CLIENTS override the duration (60) and concurrency (64). Needs
 * PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from 'node:crypto'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client'
import pg from 'pg'
import { createPublicClient, createTestClient, erc20Abi, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { base } from 'viem/chains'
import { startAnvil } from '../src/adapters/devnet/anvil.js'
import { mintDevnetUsdc, prepareDevnet, USDC_ADDRESS } from '../src/adapters/devnet/prepare.js'
import { type GuardProcess, spawnGuard } from '../test/support/guard-process.js'
import { freePort } from '../test/support/net.js'
import { percentile } from './stats.js'

const SECONDS = Number(process.env.LOAD_SECONDS ?? 60)
/** Load before the measured window, unsampled: code paths load, caches and pools fill. */
const WARMUP_SECONDS = Number(process.env.LOAD_WARMUP_SECONDS ?? 15)
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 64)
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

const schema = `bench_load_${randomBytes(6).toString('hex')}`
const anvil = await startAnvil()
await prepareDevnet(anvil.rpcUrl)
const chain = createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 })
const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
const payTo = privateKeyToAddress(generatePrivateKey())
const receiptKey = generatePrivateKey()
const keys = [generatePrivateKey(), generatePrivateKey()]
const buyer = privateKeyToAccount(generatePrivateKey())
for (const key of keys) {
  await testClient.setBalance({ address: privateKeyToAddress(key), value: 10n ** 21n })
}
await mintDevnetUsdc(anvil.rpcUrl, buyer.address, 10n ** 12n)

const instances: { process: GuardProcess; base: string }[] = []
for (const [i, key] of keys.entries()) {
  const port = await freePort()
  const process = spawnGuard({
    PORT: String(port),
    BASE_RPC_URL: anvil.rpcUrl,
    PAY_TO_ADDRESS: payTo,
    FACILITATOR: 'builtin',
    SETTLEMENT_PRIVATE_KEY: key,
    RECEIPT_PRIVATE_KEY: receiptKey,
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    INSTANCE_ID: `load-${i}`,
    // Each simulated client is its own address behind a trusted proxy header; the limits are
    // the defaults (600 a minute, bursts of 120), which no client here should meet.
    RATE_LIMIT_CLIENT_HEADER: 'x-forwarded-for',
    LOG_LEVEL: 'warn',
  })
  instances.push({ process, base: `http://127.0.0.1:${port}` })
}
await Promise.all(
  instances.map((i) =>
    fetchUntilUp(`${i.base}/healthz`, 120_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${i.process.stderr()}`)
    }),
  ),
)

const FROM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const transfer = { from: FROM, to: TO, data: '0x', value: '0x2386f26fc10000' }
const approve = {
  from: FROM,
  to: USDC_ADDRESS,
  data: `0x095ea7b3${TO.slice(2).padStart(64, '0')}${'f'.repeat(64)}`,
}
const challenge = await fetch(`${instances[0]?.base}/simulate/transaction-preflight`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(transfer),
})
const offer = decodePaymentRequiredHeader(challenge.headers.get('PAYMENT-REQUIRED') ?? '')
const payer = new x402Client().register(
  'eip155:8453',
  new ExactEvmClientScheme(
    toClientEvmSigner(buyer, createPublicClient({ chain: base, transport: http(anvil.rpcUrl) })),
  ),
)
const typedData = {
  signer: FROM,
  typedData: {
    domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: USDC_ADDRESS },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: FROM, spender: TO, value: '1000000', nonce: 0, deadline: '99999999999' },
  },
}

type Kind = 'preflight' | 'approve' | 'bundle' | 'typed-data' | 'unpaid-402' | 'paid'
const MIX: Kind[] = [
  ...Array<Kind>(10).fill('preflight'),
  ...Array<Kind>(4).fill('approve'),
  ...Array<Kind>(2).fill('bundle'),
  ...Array<Kind>(2).fill('typed-data'),
  ...Array<Kind>(2).fill('unpaid-402'),
  'paid',
]
const EXPECTED: Record<Kind, number> = {
  preflight: 200,
  approve: 200,
  bundle: 200,
  'typed-data': 200,
  'unpaid-402': 402,
  paid: 200,
}
const latencies = new Map<Kind, number[]>()
const errors = new Map<string, number>()
let limited = 0
let paid = 0

async function one(kind: Kind, instance: string, client: string): Promise<void> {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${instance}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    })
  const started = performance.now()
  let res: Response
  switch (kind) {
    case 'preflight':
      res = await post('/payanagent/v1/base-transaction-preflight', transfer)
      break
    case 'approve':
      res = await post('/payanagent/v1/base-transaction-preflight', approve)
      break
    case 'bundle':
      res = await post('/payanagent/v1/base-bundle-preflight', {
        transactions: [approve, transfer],
      })
      break
    case 'typed-data':
      res = await post('/payanagent/v1/base-typed-data-preflight', typedData)
      break
    case 'unpaid-402':
      res = await post('/simulate/transaction-preflight', transfer)
      break
    case 'paid': {
      const header = encodePaymentSignatureHeader(await payer.createPaymentPayload(offer))
      res = await post('/simulate/transaction-preflight', transfer, { 'PAYMENT-SIGNATURE': header })
      break
    }
  }
  await res.arrayBuffer()
  const ms = performance.now() - started
  if (res.status === 429) limited++
  else if (res.status !== EXPECTED[kind]) {
    const key = `${kind} ${res.status}`
    errors.set(key, (errors.get(key) ?? 0) + 1)
  } else {
    if (kind === 'paid') paid++
    const list = latencies.get(kind) ?? []
    list.push(ms)
    latencies.set(kind, list)
  }
}

// Each instance's own figures from its /metrics: resident memory, and V8's used heap (whose
// low points, right after collections, show whether anything is retained).
async function memory(base: string): Promise<{ rss: number; heap: number }> {
  try {
    const text = await (
      await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) })
    ).text()
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
    return {
      rss: value('process_resident_memory_bytes'),
      heap: value('nodejs_heap_size_used_bytes'),
    }
  } catch {
    return { rss: Number.NaN, heap: Number.NaN }
  }
}
/** `CLIENTS` clients sending the mix until `until`; `count` sees each request. */
async function drive(until: number, count: () => void): Promise<void> {
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const client = `198.51.100.${c + 1}`
      for (let n = c; Date.now() < until; n++) {
        const kind = MIX[n % MIX.length] as Kind
        const instance = instances[n % instances.length]?.base ?? ''
        count()
        await one(kind, instance, client).catch((error: Error) => {
          const key = `${kind} ${error.name}`
          errors.set(key, (errors.get(key) ?? 0) + 1)
        })
      }
    }),
  )
}

// Warm-up: the same mix, not sampled; its answers count in the figures below like any other.
let warmupSent = 0
await drive(Date.now() + WARMUP_SECONDS * 1000, () => warmupSent++)
const samples: { t: number; memory: { rss: number; heap: number }[] }[] = []
const t0 = Date.now()
const sampler = setInterval(async () => {
  const t = (Date.now() - t0) / 1000
  samples.push({ t, memory: await Promise.all(instances.map((i) => memory(i.base))) })
}, 1_000)

const end = t0 + SECONDS * 1000
let sent = 0
await drive(end, () => sent++)
clearInterval(sampler)
const elapsed = (Date.now() - t0) / 1000

// Settlements may still be confirming: give the ledger a moment, then compare with the chain.
await new Promise((resolve) => setTimeout(resolve, 3_000))
const db = new pg.Client({ connectionString: DATABASE_URL })
await db.connect()
const { rows } = await db.query<{ status: string; n: string; total: string }>(
  `SELECT status, count(*)::text AS n, COALESCE(sum(amount), 0)::text AS total FROM "${schema}".payments GROUP BY status ORDER BY status`,
)
const settledTotal = BigInt(rows.find((r) => r.status === 'settled')?.total ?? 0)
const onChain = await chain.readContract({
  address: USDC_ADDRESS,
  abi: erc20Abi,
  functionName: 'balanceOf',
  args: [payTo],
})

console.log(
  `load: ${CLIENTS} clients, ${WARMUP_SECONDS} s warm-up (${warmupSent} requests), then ${elapsed.toFixed(1)} s measured, ${sent} requests (${(sent / elapsed).toFixed(0)}/s) over 2 instances`,
)
const f = (n: number) => n.toFixed(1).padStart(8)
for (const [kind, list] of [...latencies.entries()].sort()) {
  console.log(
    `  ${kind.padEnd(11)} n=${String(list.length).padStart(6)}  p50=${f(percentile(list, 50))} ms  p99=${f(percentile(list, 99))} ms  max=${f(Math.max(...list))} ms`,
  )
}
const errorCount = [...errors.values()].reduce((a, b) => a + b, 0)
console.log(
  `  errors: ${errorCount}${errorCount ? ` (${[...errors.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}; 429s: ${limited}`,
)
const half = SECONDS / 2
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`
for (const [i] of instances.entries()) {
  const of = (from: number, to: number, pick: 'rss' | 'heap') =>
    samples
      .filter((s) => s.t >= from && s.t < to)
      .map((s) => s.memory[i]?.[pick] ?? Number.NaN)
      .filter((x) => Number.isFinite(x))
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  // Both halves after the warm-up: growth here is what the service keeps, not what it loads.
  const growth = (pick: 'rss' | 'heap', stat: (xs: number[]) => number) => {
    const first = stat(of(0, half, pick))
    const second = stat(of(half, SECONDS + 1, pick))
    return `${mb(first)} -> ${mb(second)} (${(((second - first) / first) * 100).toFixed(1)} %)`
  }
  console.log(
    `  instance ${i}: RSS mean, first half -> second half: ${growth('rss', mean)}; used heap floor (after collections): ${growth('heap', (xs) => Math.min(...xs))}; used heap mean: ${growth('heap', mean)}`,
  )
}
console.log(
  `  ledger: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}; settled total ${settledTotal} = payTo on chain ${onChain}: ${settledTotal === onChain ? 'EQUAL' : 'DIFFERENT'} (paid answers: ${paid})`,
)

await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
await db.end()
await Promise.all(instances.map((i) => i.process.stop(10_000)))
await anvil.stop()

async function fetchUntilUp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await fetch(url)
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${url} not up within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
