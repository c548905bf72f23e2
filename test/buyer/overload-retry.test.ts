import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createGuardClient,
  type TransactionRequest,
} from '../../packages/client/src/client/guard-client.js'
import { GuardError } from '../../packages/client/src/client/guard-error.js'
import {
  MAX_OVERLOAD_RETRIES,
  MAX_OVERLOAD_WAIT_SECONDS,
  MIN_OVERLOAD_WAIT_SECONDS,
  retryWhenShed,
} from '../../packages/client/src/client/overload-retry.js'
import {
  createServiceMetrics,
  type ServiceMetrics,
} from '../../src/adapters/metrics/service-metrics.js'
import { BUYER, builtinFacilitator, EXAMPLE_BODY, paidApp } from '../payment/paid-stack.js'
import { type PaidSuite, startPaidSuite } from '../payment/paid-suite.js'
import { type CountingRpc, startCountingRpc } from '../support/counting-rpc.js'
import { type Served, serveApp, transactionsSince } from '../support/served-guard.js'
import { until } from '../support/until.js'

/**
 * The buyer kit sends a shed preflight again (`overloadRetries`): the real paid app with one
 * preflight slot over real HTTP, a real devnet behind a loopback proxy that holds the RPC's
 * replies while a test needs the slot taken, the built-in facilitator settling on chain.
 */

const FREE = '/payanagent/v1/base-transaction-preflight'
const PAID = '/simulate/transaction-preflight'
const FREE_BODY: TransactionRequest = {
  from: BUYER.address,
  to: EXAMPLE_BODY.to,
  data: '0x',
  value: '0x1',
}

let suite: PaidSuite
let proxy: CountingRpc
let metrics: ServiceMetrics
let served: Served

beforeAll(async () => {
  suite = await startPaidSuite()
  proxy = await startCountingRpc(suite.devnet.rpcUrl, { holdMs: 0 })
  metrics = createServiceMetrics({ processMetrics: false })
  const stack = await paidApp({
    preflightRpcUrl: proxy.url,
    settlementRpcUrl: suite.devnet.rpcUrl,
    facilitator: builtinFacilitator(suite.devnet.rpcUrl),
    ledger: suite.storage.ledger,
    operations: { metrics, maxPreflightsInFlight: 1 },
  })
  served = await serveApp(stack.app)
}, 60_000)

afterAll(async () => {
  await served?.close()
  await proxy?.close()
  await suite?.close()
})

async function metric(name: string, labels = ''): Promise<number> {
  const text = await metrics.registry.metrics()
  const escaped = `${name}${labels}`.replace(/[{}"/]/g, (c) => `\\${c}`)
  const line = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)
  return line ? Number(line[1]) : 0
}

/**
 * Takes the one slot with a free preflight whose RPC replies are held; resolves once it holds
 * it, with the function that lets it finish (and its answer).
 */
async function takeTheSlot(): Promise<() => Promise<number>> {
  const release = proxy.holdReplies()
  const holder = fetch(`${served.baseUrl}${FREE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...FREE_BODY, value: '0x2' }),
  })
  await until(async () => (await metric('preflights_in_flight')) === 1, 'the slot taken')
  return async () => {
    release()
    return (await holder).status
  }
}

describe('a preflight the guard shed (503 overloaded) is sent again', () => {
  it('a free preflight: shed while the slot is taken, answered once it is free', async () => {
    const finish = await takeTheSlot()
    const shed = () => metric('preflights_shed_total', `{route="${FREE}",reason="slots"}`)
    const shedBefore = await shed()
    const started = performance.now()
    let holder = 0
    try {
      const answer = createGuardClient({ baseUrl: served.baseUrl }).preflight(FREE_BODY)
      await until(async () => (await shed()) > shedBefore, 'the first try shed')
      holder = await finish()
      const result = await answer
      expect(result.verdict).toBeDefined()
    } finally {
      if (holder === 0) holder = await finish()
    }
    expect(holder).toBe(200)
    // It waited at least what Retry-After asked (1 s) before it was answered.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000)
  })

  it('overloadRetries: 0 throws the 503 at once, with its Retry-After', async () => {
    const finish = await takeTheSlot()
    try {
      const error = await createGuardClient({ baseUrl: served.baseUrl, overloadRetries: 0 })
        .preflight(FREE_BODY)
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(GuardError)
      expect(error).toMatchObject({ code: 'overloaded', status: 503, retryAfter: 1 })
    } finally {
      expect(await finish()).toBe(200)
    }
  })

  it('a paid call shed before its payment was looked at is sent again with the same payment, and charged once', async () => {
    const finish = await takeTheSlot()
    const shed = () => metric('preflights_shed_total', `{route="${PAID}",reason="slots"}`)
    const shedBefore = await shed()
    // No cached block number: every read is fresh.
    const chain = createPublicClient({ transport: http(suite.devnet.rpcUrl), cacheTime: 0 })
    const fromBlock = await chain.getBlockNumber()
    // Every PAYMENT-SIGNATURE the client sends, in order.
    const signatures: string[] = []
    const client = createGuardClient({
      baseUrl: served.baseUrl,
      fetch: (input, init) => {
        // The headers as sent, read without touching a Request's body.
        const headers = new Headers(input instanceof Request ? input.headers : undefined)
        for (const [name, value] of new Headers(init?.headers)) headers.set(name, value)
        const signature = headers.get('PAYMENT-SIGNATURE')
        if (signature !== null) signatures.push(signature)
        return fetch(input, init)
      },
      payer: {
        account: BUYER,
        publicClient: createPublicClient({ transport: http(suite.devnet.rpcUrl) }),
      },
    })
    let holder = 0
    try {
      const paid = client.paidPreflight(EXAMPLE_BODY)
      await until(async () => (await shed()) > shedBefore, 'the paid call shed')
      // Shed at the door: nothing of it was claimed or settled.
      expect(await transactionsSince(chain, fromBlock)).toBe(0)
      holder = await finish()
      const answer = await paid
      expect(answer.settlement).toMatchObject({ success: true })
      expect(answer.receipt.settlementTx).toBe(answer.settlement.transaction)
    } finally {
      if (holder === 0) holder = await finish()
    }
    expect(holder).toBe(200)
    // The one payment, sent more than once (never a second one), and settled once on chain.
    expect(signatures.length).toBeGreaterThanOrEqual(2)
    expect(new Set(signatures).size).toBe(1)
    expect(await transactionsSince(chain, fromBlock)).toBe(1)
  })

  it('refuses an overloadRetries that is not an integer from 0 to the maximum', () => {
    for (const overloadRetries of [-1, 1.5, MAX_OVERLOAD_RETRIES + 1, Number.POSITIVE_INFINITY]) {
      expect(() => createGuardClient({ baseUrl: served.baseUrl, overloadRetries })).toThrow(
        RangeError,
      )
    }
    expect(() =>
      createGuardClient({ baseUrl: served.baseUrl, overloadRetries: MAX_OVERLOAD_RETRIES }),
    ).not.toThrow()
  })
})

describe('retryWhenShed', () => {
  const shed = (retryAfter?: string, error = 'overloaded') =>
    new Response(JSON.stringify({ error, message: 'm', issues: [], requestId: 'r' }), {
      status: 503,
      headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
    })
  const ok = () => new Response('{}', { status: 200 })

  function recorder(answers: (() => Response)[]) {
    const waits: number[] = []
    let sent = 0
    return {
      waits,
      get sent() {
        return sent
      },
      again: async () => {
        const next = answers[sent++]
        if (!next) throw new Error('sent more often than expected')
        return next()
      },
      sleep: async (ms: number) => {
        waits.push(ms)
      },
    }
  }

  it('waits Retry-After, spread by up to half again, and gives up after its retries', async () => {
    const r = recorder([() => shed('2'), () => shed('1')])
    const res = await retryWhenShed(shed('1'), r.again, {
      retries: 2,
      deadline: Number.POSITIVE_INFINITY,
      sleep: r.sleep,
      random: () => 0.5,
    })
    expect(res.status).toBe(503)
    expect(r.sent).toBe(2)
    expect(r.waits).toEqual([1_250, 2_500])
  })

  it('hands back any other answer as it came: a 200, another 503 code, a body that is not JSON', async () => {
    for (const first of [
      ok(),
      shed('1', 'rpc_unavailable'),
      new Response('busy', { status: 503, headers: { 'Retry-After': '1' } }),
    ]) {
      const r = recorder([])
      const res = await retryWhenShed(first, r.again, {
        retries: 2,
        deadline: Number.POSITIVE_INFINITY,
        sleep: r.sleep,
      })
      expect(res).toBe(first)
      expect(r.sent).toBe(0)
      // The body is still there to read.
      expect(await res.text()).toBeTruthy()
    }
  })

  it('keeps the wait within its bounds, and never tries past the deadline', async () => {
    // Too long, too short, a date already past, unreadable: 5 s, then 1 s for the rest.
    for (const [header, waitMs] of [
      ['3600', MAX_OVERLOAD_WAIT_SECONDS * 1_000],
      ['0', MIN_OVERLOAD_WAIT_SECONDS * 1_000],
      ['Wed, 21 Oct 2015 07:28:00 GMT', MIN_OVERLOAD_WAIT_SECONDS * 1_000],
      ['soon', MIN_OVERLOAD_WAIT_SECONDS * 1_000],
    ] as const) {
      const r = recorder([ok])
      await retryWhenShed(shed(header), r.again, {
        retries: 1,
        deadline: Number.POSITIVE_INFINITY,
        sleep: r.sleep,
        random: () => 0,
      })
      expect(r.waits, header).toEqual([waitMs])
    }

    // A try is given what is left of the call's time.
    const bounded: number[] = []
    const deadline = performance.now() + 60_000
    await retryWhenShed(
      shed('1'),
      async (remainingMs) => {
        bounded.push(remainingMs)
        return ok()
      },
      { retries: 1, deadline, sleep: async () => {}, random: () => 0 },
    )
    expect(bounded).toHaveLength(1)
    expect(bounded[0]).toBeGreaterThan(0)
    expect(bounded[0]).toBeLessThanOrEqual(60_000)

    // A wait that would leave no time for a try is not made: the 503 is the answer.
    const late = recorder([ok])
    const first = shed('1')
    const res = await retryWhenShed(first, late.again, {
      retries: 2,
      deadline: performance.now() + 1_500,
      sleep: late.sleep,
      random: () => 0,
    })
    expect(res).toBe(first)
    expect(late.sent).toBe(0)
  })
})
