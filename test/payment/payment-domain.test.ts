import { encodePaymentSignatureHeader } from '@x402/core/http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFacilitatorReadiness } from '../../src/adapters/facilitator/facilitator-readiness.js'
import { challengeBody, railReadiness } from '../../src/domain/payment/challenge.js'
import { decodePayment } from '../../src/domain/payment/decode-payment.js'
import { paymentRequirements, USDC_BASE } from '../../src/domain/payment/offer.js'
import { reasonFromFacilitator } from '../../src/domain/payment/payment-reasons.js'
import { canonicalJson } from '../../src/domain/receipt/canonical-json.js'

const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const offer = paymentRequirements(PAY_TO)
const authorization = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: PAY_TO,
  value: '10000',
  validAfter: '0',
  validBefore: '9999999999',
  nonce: `0x${'AB'.repeat(32)}`,
}
const header = (change: Record<string, unknown> = {}, accepted: Record<string, unknown> = {}) =>
  encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: { ...offer, ...accepted },
    payload: { signature: `0x${'11'.repeat(65)}`, authorization: { ...authorization, ...change } },
  } as never)

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
    const decoded = decodePayment(header(), offer)
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
  ])('refuses %s as %s', (value, reason) => {
    expect(decodePayment(value, offer)).toMatchObject({ ok: false, reason })
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
