import { encodePaymentSignatureHeader } from '@x402/core/http'
import fc from 'fast-check'
import { encodeAbiParameters, encodeEventTopics, type TransactionReceipt } from 'viem'
import { describe, expect, it } from 'vitest'
import { createFacilitatorReadiness } from '../../src/adapters/facilitator/facilitator-readiness.js'
import { toMinedTransaction } from '../../src/adapters/facilitator/mined-receipts.js'
import { classifySettle } from '../../src/adapters/facilitator/x402-payment-rail.js'
import type { ExecutionStatus } from '../../src/domain/evm/transaction.js'
import {
  challengeBody,
  createPaidChallengeJson,
  paidChallengeBody,
  railReadiness,
} from '../../src/domain/payment/challenge.js'
import { decodePayment } from '../../src/domain/payment/decode-payment.js'
import { createInFlightTracker } from '../../src/domain/payment/in-flight.js'
import { paymentRequirements, USDC_BASE } from '../../src/domain/payment/offer.js'
import { readPaymentIdentifier } from '../../src/domain/payment/payment-identifier.js'
import {
  PAYMENT_REASONS,
  type PaymentReason,
  reasonFromFacilitator,
} from '../../src/domain/payment/payment-reasons.js'
import { provesPayment, SETTLEMENT_EVENTS_ABI } from '../../src/domain/payment/settlement-proof.js'
import { canonicalJson } from '../../src/domain/receipt/canonical-json.js'

const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const offer = paymentRequirements(PAY_TO)
const NOW = 1_800_000_000
const authorization = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: PAY_TO,
  value: '10000',
  validAfter: String(NOW - 600),
  validBefore: String(NOW + 300),
  nonce: `0x${'AB'.repeat(32)}`,
}
const SIGNATURE = `0x${'11'.repeat(65)}`
const encode = (value: unknown) => encodePaymentSignatureHeader(value as never)
const header = (change: Record<string, unknown> = {}, accepted: Record<string, unknown> = {}) =>
  encode({
    x402Version: 2,
    accepted: { ...offer, ...accepted },
    payload: { signature: SIGNATURE, authorization: { ...authorization, ...change } },
  })

describe('canonical JSON (RFC 8785 for our values)', () => {
  it('sorts keys at every depth, drops undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: true }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":true,"z":null}]},"b":1}',
    )
    expect(canonicalJson({ '\u00e9': 1, e: 2, E: 3 })).toBe('{"E":3,"e":2,"\u00e9":1}')
  })

  it('does not depend on key order, and means what JSON.stringify means', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        const reordered = JSON.parse(JSON.stringify(value), (_, v) =>
          v && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        )
        expect(canonicalJson(reordered)).toBe(text)
      }),
    )
  })
})

describe('decoding PAYMENT-SIGNATURE against the offer', () => {
  it('accepts an exact/EVM payment for the offer and normalises the authorization', () => {
    const decoded = decodePayment(header(), offer, NOW)
    expect(decoded).toMatchObject({
      ok: true,
      payment: {
        authorization: {
          payer: authorization.from,
          to: PAY_TO,
          value: 10_000n,
          nonce: authorization.nonce.toLowerCase(),
        },
      },
    })
  })

  it.each([
    ['%%%', 'payment_undecodable'],
    [Buffer.from('[1,2]').toString('base64'), 'payment_undecodable'],
    [Buffer.from('{"x402Version":1}').toString('base64'), 'unsupported_x402_version'],
    [Buffer.from('{"x402Version":2}').toString('base64'), 'payment_malformed'],
    [header({ nonce: '0x12' }), 'payment_malformed'],
    [header({}, { scheme: 'upto' }), 'scheme_mismatch'],
    [header({}, { network: 'eip155:1' }), 'network_mismatch'],
    [header({}, { asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }), 'asset_mismatch'],
    [header({}, { amount: '1' }), 'amount_mismatch'],
    [header({}, { payTo: authorization.from }), 'pay_to_mismatch'],
    [header({}, { maxTimeoutSeconds: 60 }), 'offer_mismatch'],
    [header({}, { extra: { name: 'USDC', version: '2' } }), 'offer_mismatch'],
    // The signed authorization itself, not only what `accepted` claims.
    [header({ to: authorization.from }), 'pay_to_mismatch'],
    [header({ value: '10001' }), 'amount_mismatch'],
    [header({ validAfter: String(NOW + 60) }), 'authorization_not_yet_valid'],
    [header({ validBefore: String(NOW + 3) }), 'authorization_expired'],
    [header({ validBefore: String(NOW + 300 + 121) }), 'authorization_validity_too_long'],
    [header({ validBefore: '99999999999' }), 'authorization_validity_too_long'],
  ])('refuses %s as %s', (value, reason) => {
    expect(decodePayment(value, offer, NOW)).toMatchObject({ ok: false, reason })
  })

  it('accepts validBefore up to maxTimeoutSeconds plus clock slack', () => {
    expect(decodePayment(header({ validBefore: String(NOW + 420) }), offer, NOW).ok).toBe(true)
  })

  it('refuses a payload smuggling a Permit2 authorization (or any other member) beside EIP-3009', () => {
    // @x402/evm routes any payload holding `permit2Authorization` to its Permit2 path, while
    // the ledger and the receipt would have used the unverified `authorization` fields.
    const smuggled = encode({
      x402Version: 2,
      accepted: offer,
      payload: {
        signature: SIGNATURE,
        authorization,
        permit2Authorization: { from: authorization.from, spender: PAY_TO, nonce: '1' },
      },
    })
    expect(decodePayment(smuggled, offer, NOW)).toMatchObject({
      ok: false,
      reason: 'payment_malformed',
    })
    const extraField = header({ extra: 'x' })
    expect(decodePayment(extraField, offer, NOW)).toMatchObject({
      ok: false,
      reason: 'payment_malformed',
    })
  })

  it('forwards a payload rebuilt from the checked parts only', () => {
    const decoded = decodePayment(
      encode({
        x402Version: 2,
        resource: { url: 'https://elsewhere.example', description: '', mimeType: '' },
        accepted: { ...offer },
        payload: { signature: SIGNATURE, authorization },
        extensions: { eip2612GasSponsoring: { info: {} } },
      }),
      offer,
      NOW,
    )
    expect(decoded.ok && decoded.payment.payload).toEqual({
      x402Version: 2,
      accepted: offer,
      payload: { signature: SIGNATURE, authorization },
    })
  })
})

describe('the payment-identifier a payment carries', () => {
  const carrying = (extension: unknown) =>
    ({ x402Version: 2, extensions: { 'payment-identifier': extension } }) as never
  const ID = 'pay_0123456789abcdef'

  it('reads the id, or none, and refuses a malformed one or a missing required one (400)', () => {
    expect(readPaymentIdentifier(carrying({ info: { required: false, id: ID } }), false)).toEqual({
      kind: 'read',
      identifier: ID,
    })
    expect(readPaymentIdentifier({ x402Version: 2 } as never, false)).toEqual({
      kind: 'read',
      identifier: undefined,
    })
    for (const bad of [
      'x',
      { info: 'x' },
      { info: { id: ID } },
      { info: { required: false, id: 7 } },
      { info: { required: false, id: 'short' } },
      { info: { required: false, id: `${ID}!` } },
    ]) {
      expect(readPaymentIdentifier(carrying(bad), false), JSON.stringify(bad)).toMatchObject({
        kind: 'refused',
        error: { code: 'invalid_payment_identifier' },
      })
    }
    expect(readPaymentIdentifier(carrying({ info: { required: true } }), true)).toMatchObject({
      kind: 'refused',
      error: { code: 'payment_identifier_required' },
    })
  })

  it('never runs the schema the payload carries: a backtracking pattern cannot hold the process', () => {
    // '^(a+)+$' over 60 a's and a '!' backtracks ~2^60 steps in any JSON-schema validator that
    // compiles it (the extension's own validator does, with AJV, on every call).
    const hostile = {
      info: { required: false, id: ID, pad: `${'a'.repeat(60)}!` },
      schema: { type: 'object', properties: { pad: { type: 'string', pattern: '^(a+)+$' } } },
    }
    expect(readPaymentIdentifier(carrying(hostile), false)).toEqual({
      kind: 'read',
      identifier: ID,
    })
  })
})

describe('settle outcomes', () => {
  const response = (errorReason: string, transaction = '') => ({
    success: false,
    errorReason,
    transaction,
    network: 'eip155:8453' as const,
  })

  it.each([
    'invalid_exact_evm_insufficient_balance',
    'invalid_exact_evm_signature',
    'invalid_exact_evm_payload_authorization_valid_before',
    'invalid_exact_evm_payload_authorization_valid_after',
    'invalid_exact_evm_recipient_mismatch',
    'invalid_exact_evm_payload_authorization_value_mismatch',
  ])('%s (refused before sending) is failed', (reason) => {
    expect(classifySettle(response(reason))).toMatchObject({
      status: 'failed',
      facilitatorReason: reason,
    })
  })

  it.each([
    // @x402/evm returns this for any writeContract error, an RPC timeout on the broadcast included
    'invalid_exact_evm_transaction_failed',
    'unexpected_settle_error',
    'settlement_pending',
    'invalid_exact_evm_nonce_already_used',
    'invalid_exact_evm_transfer_event_mismatch',
    'invalid_transaction_state',
    'something_new',
  ])('%s (may have been sent) is unknown: the chain decides', (reason) => {
    expect(classifySettle(response(reason))).toMatchObject({ status: 'unknown' })
  })

  it('is never failed when the answer names a transaction', () => {
    const tx = `0x${'ab'.repeat(32)}`
    expect(classifySettle(response('invalid_exact_evm_insufficient_balance', tx))).toEqual({
      status: 'unknown',
      transaction: tx,
      message: 'invalid_exact_evm_insufficient_balance',
    })
  })
})

describe('proof of payment from a mined transaction', () => {
  const asset = USDC_BASE
  const payer = authorization.from as `0x${string}`
  const nonce = `0x${'cd'.repeat(32)}` as const
  const expected = { asset, payer, payTo: PAY_TO, amount: 10_000n, nonce } as const
  const log = (eventName: 'AuthorizationUsed' | 'Transfer', args: object, logIndex: number) => ({
    address: asset,
    topics: encodeEventTopics({
      abi: SETTLEMENT_EVENTS_ABI,
      eventName,
      args: args as never,
    }) as `0x${string}`[],
    data:
      eventName === 'Transfer'
        ? encodeAbiParameters([{ type: 'uint256' }], [(args as { value: bigint }).value])
        : ('0x' as const),
    logIndex,
  })
  const used = (index: number, n: `0x${string}` = nonce) =>
    log('AuthorizationUsed', { authorizer: payer, nonce: n }, index)
  const transfer = (index: number, to: `0x${string}` = PAY_TO, value = 10_000n) =>
    log('Transfer', { from: payer, to, value }, index)
  const tx = (logs: ReturnType<typeof log>[], status: ExecutionStatus = 'success') => ({
    hash: `0x${'ef'.repeat(32)}` as const,
    status,
    blockNumber: 1n,
    logs,
  })
  const other = '0x000000000000000000000000000000000000dEaD'

  it('holds for AuthorizationUsed(payer, nonce) followed by Transfer(payer -> payTo, amount)', () => {
    expect(provesPayment(tx([used(3), transfer(4)]), expected)).toBe(true)
  })

  it.each([
    [
      'the transfer went elsewhere (same nonce, another authorization)',
      [used(3), transfer(4, other)],
    ],
    ['the amount differs', [used(3), transfer(4, PAY_TO, 1n)]],
    ['another nonce was used', [used(3, `0x${'00'.repeat(32)}`), transfer(4)]],
    ['no transfer follows the use', [used(3)]],
    [
      'the transfer to us belongs to another use in the bundle',
      [used(3), transfer(5), transfer(6)],
    ],
    ['only a transfer, no authorization', [transfer(4)]],
  ])('fails when %s', (_, logs) => {
    expect(provesPayment(tx(logs), expected)).toBe(false)
  })

  it('fails for a reverted transaction', () => {
    expect(provesPayment(tx([used(3), transfer(4)], 'failure'), expected)).toBe(false)
  })

  it("reads a receipt's 'reverted' as a failure, which proves nothing", () => {
    const mined = tx([used(3), transfer(4)])
    const receipt = (status: TransactionReceipt['status']) =>
      ({
        transactionHash: mined.hash,
        status,
        blockNumber: mined.blockNumber,
        logs: mined.logs,
      }) as unknown as TransactionReceipt
    expect(toMinedTransaction(receipt('success'))).toEqual(mined)
    expect(toMinedTransaction(receipt('reverted'))).toEqual({ ...mined, status: 'failure' })
    expect(provesPayment(toMinedTransaction(receipt('reverted')), expected)).toBe(false)
  })
})

describe('the in-flight tracker', () => {
  it('drains what runs (and what starts while draining), or gives up at the timeout', async () => {
    const tracker = createInFlightTracker()
    const done: string[] = []
    const later = (ms: number, name: string) =>
      tracker.track(async () => {
        await new Promise((resolve) => setTimeout(resolve, ms))
        done.push(name)
      })
    void later(50, 'a')
    expect(tracker.size).toBe(1)
    const draining = tracker.drain(2_000)
    void later(80, 'b')
    expect(await draining).toBe(true)
    expect(done).toEqual(['a', 'b'])
    void later(1_000, 'slow')
    expect(await tracker.drain(20)).toBe(false)
  })
})

describe('facilitator reasons', () => {
  it.each([
    ['invalid_exact_evm_signature', 'invalid_signature'],
    ['invalid_exact_evm_recipient_mismatch', 'pay_to_mismatch'],
    ['invalid_exact_evm_payload_authorization_value_mismatch', 'amount_mismatch'],
    ['invalid_exact_evm_payload_authorization_valid_before', 'authorization_expired'],
    ['invalid_exact_evm_payload_authorization_valid_after', 'authorization_not_yet_valid'],
    ['invalid_exact_evm_nonce_already_used', 'authorization_used'],
    ['invalid_exact_evm_insufficient_balance', 'insufficient_funds'],
    ['invalid_exact_evm_network_mismatch', 'network_mismatch'],
    ['no_matching_requirements', 'offer_mismatch'],
    ['invalid_exact_evm_transaction_simulation_failed', 'verification_failed'],
    [undefined, 'verification_failed'],
  ])('maps %s to %s', (upstream, reason) => {
    expect(reasonFromFacilitator(upstream, 'verification_failed')).toBe(reason)
  })
})

describe('railReadiness', () => {
  const status = {
    kind: 'url' as const,
    url: 'https://f.example',
    supportsExactBase: true,
    checkedAt: '2026-01-01T00:00:00.000Z',
  }
  it('is ready only with a supporting facilitator and a receipt key', () => {
    const rail = { requirements: offer, facilitatorStatus: () => status }
    expect(railReadiness({ rail, receiptSigner: PAY_TO })).toEqual({
      ready: true,
      network: 'eip155:8453',
      asset: USDC_BASE,
      payTo: PAY_TO,
      facilitator: status,
      receiptSigner: { configured: true, address: PAY_TO },
    })
    expect(railReadiness({ rail, receiptSigner: null }).ready).toBe(false)
    const down = {
      requirements: offer,
      facilitatorStatus: () => ({ ...status, supportsExactBase: false }),
    }
    expect(railReadiness({ rail: down, receiptSigner: PAY_TO }).ready).toBe(false)
  })

  it('keeps upstream details short in the challenge message', () => {
    const body = challengeBody({
      baseUrl: 'https://g.example',
      readiness: railReadiness({
        rail: { requirements: offer, facilitatorStatus: () => status },
        receiptSigner: null,
      }),
      reason: 'payment_malformed',
      detail: 'x'.repeat(5_000),
    })
    expect(body.message.length).toBeLessThan(400)
    expect(body.firstCheckUrl).toBe('https://g.example/first-unpaid-402')
  })
})

describe('the 402 body as JSON text', () => {
  const status = {
    kind: 'url' as const,
    url: 'https://f.example',
    supportsExactBase: true,
    checkedAt: '2026-01-01T00:00:00.000Z',
  }
  const reasons = Object.keys(PAYMENT_REASONS) as PaymentReason[]

  it('is JSON.stringify of the body, byte for byte, while the readiness changes under it', () => {
    // Small enough that eviction is met too.
    const json = createPaidChallengeJson(3)
    let current: typeof status | (typeof status & { error: string }) = status
    const rail = { requirements: offer, facilitatorStatus: () => current }
    let signer: { address: `0x${string}` } = { address: PAY_TO }
    const step = fc.record({
      reason: fc.constantFrom(...reasons),
      baseUrl: fc.constantFrom('https://g.example', 'http://127.0.0.1:8080', 'http://a"b'),
      requestId: fc.option(fc.oneof(fc.uuid(), fc.string()), { nil: undefined }),
      detail: fc.option(fc.string(), { nil: undefined }),
      facilitatorReason: fc.option(fc.string(), { nil: undefined }),
      change: fc.constantFrom('none', 'none', 'none', 'status', 'signer'),
    })
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        for (const { change, requestId, detail, facilitatorReason, ...params } of steps) {
          if (change === 'status') {
            current = { ...status, supportsExactBase: !current.supportsExactBase, error: 'down' }
          }
          if (change === 'signer')
            signer = { address: signer.address === PAY_TO ? USDC_BASE : PAY_TO }
          const call = {
            ...params,
            ...(requestId !== undefined ? { requestId } : {}),
            ...(detail !== undefined ? { detail } : {}),
            ...(facilitatorReason !== undefined ? { facilitatorReason } : {}),
          }
          const deps = { rail, receiptSigner: signer }
          expect(json(deps, call)).toBe(JSON.stringify(paidChallengeBody(deps, call)))
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('the facilitator readiness check', () => {
  it('says whether /supported lists exact on eip155:8453 for v2, and why not', async () => {
    const answers = [
      {
        kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }],
        extensions: [],
        signers: {},
      },
      {
        kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
        extensions: [],
        signers: {},
      },
      new Error('connect ECONNREFUSED'),
    ]
    let calls = 0
    const readiness = createFacilitatorReadiness({
      kind: 'url',
      url: 'https://f.example',
      client: {
        getSupported: async () => {
          calls++
          const answer = answers.shift()
          if (answer instanceof Error) throw answer
          return answer as never
        },
      },
    })
    expect(readiness.status()).toEqual({
      kind: 'url',
      url: 'https://f.example',
      supportsExactBase: false,
      checkedAt: null,
    })
    // Concurrent refreshes share one request.
    const [a, b] = await Promise.all([readiness.refresh(), readiness.refresh()])
    expect(calls).toBe(1)
    expect(a).toBe(b)
    expect(a).toMatchObject({ supportsExactBase: true, checkedAt: expect.any(String) })
    expect(await readiness.refresh()).toMatchObject({
      supportsExactBase: false,
      error: expect.stringMatching(/does not list exact/),
    })
    expect(await readiness.refresh()).toMatchObject({
      supportsExactBase: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    })
  })
})
