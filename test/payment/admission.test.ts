import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import {
  createServiceMetrics,
  type ServiceMetrics,
} from '../../src/adapters/metrics/service-metrics.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import type { PaymentLedger } from '../../src/domain/payment/payment-ledger.js'
import { startFaultyRpc } from '../support/faulty-rpc.js'
import { serveApp } from '../support/served-guard.js'
import { until } from '../support/until.js'
import {
  authorizationOf,
  BUYER,
  builtinFacilitator,
  buyer,
  EXAMPLE_BODY,
  type PaidApp,
  paidApp,
  unpaidOffer,
} from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

// Admission control over real HTTP: two preflight slots, filled by free preflights whose RPC
// reads a real loopback proxy holds (stalled until the chain reader's 2 s timeout). Past them a
// free preflight, and a paid call that does not hold a payment yet, get 503 `overloaded` with
// Retry-After at once; the unpaid 402 is not shed; a paid call that holds its payment (claimed
// in the ledger) waits for a slot and is paid.

const FREE = '/payanagent/v1/base-transaction-preflight'
const PAID = '/simulate/transaction-preflight'
const FREE_BODY = { from: BUYER.address, to: EXAMPLE_BODY.to, data: '0x', value: '0x1' }

let suite: PaidSuite
let rpc: Awaited<ReturnType<typeof startFaultyRpc>>
let stack: PaidApp
let served: Awaited<ReturnType<typeof serveApp>>
let metrics: ServiceMetrics
/** Opens the ledger's claims (held closed from the test's start until the slots are full). */
let openClaims: () => void = () => {}
let claimReached: Promise<void>

beforeAll(async () => {
  suite = await startPaidSuite()
  rpc = await startFaultyRpc(suite.devnet.rpcUrl)
  metrics = createServiceMetrics({ processMetrics: false })
  const claimsOpen = new Promise<void>((resolve) => {
    openClaims = resolve
  })
  let reached: () => void = () => {}
  claimReached = new Promise((resolve) => {
    reached = resolve
  })
  const ledger: PaymentLedger = {
    ...suite.storage.ledger,
    claim: async (payment, leaseMs) => {
      reached()
      await claimsOpen
      return suite.storage.ledger.claim(payment, leaseMs)
    },
  }
  stack = await paidApp({
    preflightRpcUrl: rpc.url,
    settlementRpcUrl: suite.devnet.rpcUrl,
    facilitator: builtinFacilitator(suite.devnet.rpcUrl),
    ledger,
    operations: { metrics, maxPreflightsInFlight: 2 },
  })
  served = await serveApp(stack.app)
}, 60_000)

afterAll(async () => {
  openClaims()
  await served?.close()
  await rpc?.close()
  await suite?.close()
})

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now()
  const res = await fetch(`${served.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as Record<string, any>
  return { status: res.status, headers: res.headers, body: json, ms: performance.now() - started }
}

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${served.baseUrl}/metrics`)).text()
  const escaped = `${name}${labels}`.replace(/[{}"/]/g, (c) => `\\${c}`)
  const line = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)
  return line ? Number(line[1]) : Number.NaN
}

function expectOverloaded(answer: Awaited<ReturnType<typeof post>>) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(503)
  expect(answer.body.error, JSON.stringify(answer.body)).toBe('overloaded')
  expect(answer.headers.get('retry-after')).toBe('1')
  // At once: no RPC read, no wait for a slot (the stalled reads hold theirs for 2 s).
  expect(answer.ms).toBeLessThan(1_000)
}

describe('admission control (MAX_PREFLIGHTS_IN_FLIGHT=2)', () => {
  it('sheds free preflights and paid calls without a payment at once, and never a paid call holding one', async () => {
    const account = BUYER
    const offer = await unpaidOffer(stack.app)
    const client = buyer(stack.app, suite.devnet.rpcUrl, account)
    const held = await client.paymentHeader(offer)
    const another = await client.paymentHeader(offer)

    // The paid call gets past the door while slots are free, and reaches the ledger's claim.
    const paid = post(PAID, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': held })
    await claimReached

    // Two free preflights take both slots; the proxy holds their reads.
    rpc.set('*', { kind: 'stall' })
    const seenBefore = rpc.seen.length
    const stalled = [post(FREE, FREE_BODY), post(FREE, { ...FREE_BODY, value: '0x2' })]
    await until(async () => (await metric('preflights_in_flight')) === 2, 'two slots taken')
    await until(async () => rpc.seen.length >= seenBefore + 2, 'the stalled reads')
    rpc.clear()

    // Full: a free preflight is shed at once, in the error body, with Retry-After.
    expectOverloaded(await post(FREE, { ...FREE_BODY, value: '0x3' }))
    // A paid call that holds no payment yet is shed at the door: nothing claimed.
    const shedPaid = await post(PAID, EXAMPLE_BODY, { 'PAYMENT-SIGNATURE': another })
    expectOverloaded(shedPaid)
    const { from, nonce } = authorizationOf(another)
    const id = authorizationId('eip155:8453', USDC_ADDRESS, {
      payer: from,
      nonce: nonce.toLowerCase(),
    } as never)
    expect(await suite.storage.ledger.get(id)).toBeUndefined()
    // The unpaid call runs no preflight: its 402 (the price) is never shed.
    const unpaid = await post(PAID, EXAMPLE_BODY)
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers.get('payment-required')).toBeTruthy()

    // The first paid call now claims its payment: it waits for a slot instead of being shed,
    // and a waiting paid call keeps new free preflights out.
    openClaims()
    await until(async () => (await metric('preflights_waiting')) === 1, 'the paid call waiting')
    expectOverloaded(await post(FREE, { ...FREE_BODY, value: '0x4' }))

    // The stalled reads time out (503 rpc_unavailable, nothing of the shed ones); the paid call
    // gets a freed slot and is served and charged.
    const [first, second] = await Promise.all(stalled)
    expect(first?.status).toBe(503)
    expect(first?.body.error).toBe('rpc_unavailable')
    expect(second?.body.error).toBe('rpc_unavailable')
    const paidAnswer = await paid
    expect(paidAnswer.status, JSON.stringify(paidAnswer.body)).toBe(200)
    expect(paidAnswer.body.receipt.settlementTx).toMatch(/^0x[0-9a-f]{64}$/)
    expect(paidAnswer.body.result.verdict).toBeDefined()

    // The metrics moved: three sheds on their routes; nothing in flight or waiting now.
    expect(await metric('preflights_shed_total', `{route="${FREE}",reason="slots"}`)).toBe(2)
    expect(await metric('preflights_shed_total', `{route="${PAID}",reason="slots"}`)).toBe(1)
    expect(await metric('preflights_in_flight')).toBe(0)
    expect(await metric('preflights_waiting')).toBe(0)
    // Slots are free again: a free preflight is served.
    expect((await post(FREE, { ...FREE_BODY, value: '0x5' })).status).toBe(200)
  }, 30_000)
})
