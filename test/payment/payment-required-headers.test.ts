/**
 * The paid route's PAYMENT-REQUIRED cache (src/adapters/facilitator/payment-required-headers.ts):
 * one per app, over the real x402 rail: each (base URL, reason) header built once and reused
 * byte for byte, at most 64 kept (the oldest goes), a failed build not kept.
 */

import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from '@x402/core/http'
import type { FacilitatorClient } from '@x402/core/server'
import { describe, expect, it } from 'vitest'
import {
  createPaymentRequiredHeaders,
  PAYMENT_REQUIRED_CACHE_SIZE,
} from '../../src/adapters/facilitator/payment-required-headers.js'
import { createX402PaymentRail } from '../../src/adapters/facilitator/x402-payment-rail.js'
import { paidResource } from '../../src/domain/payment/offer.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'

const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const EXTENSIONS = { example: { info: { a: 1 } } }

/** The real rail (the challenge never calls the facilitator), counting its builds. */
function countingRail() {
  const unused = () => Promise.reject(new Error('the challenge never calls the facilitator'))
  const rail = createX402PaymentRail({
    facilitator: { verify: unused, settle: unused, getSupported: unused } as FacilitatorClient,
    payTo: PAY_TO,
    facilitatorStatus: () => ({
      kind: 'builtin',
      supportsExactBase: true,
      checkedAt: null,
    }),
  })
  const counted = {
    builds: 0,
    failNext: false,
    paymentRequired: (...args: Parameters<PaymentRail['paymentRequired']>) => {
      counted.builds += 1
      if (counted.failNext) {
        counted.failNext = false
        return Promise.reject(new Error('build failed'))
      }
      return rail.paymentRequired(...args)
    },
  }
  return { rail, counted }
}

describe('the PAYMENT-REQUIRED header cache', () => {
  it("is the rail's offer for the base URL and reason, built once and reused byte for byte", async () => {
    const { rail, counted } = countingRail()
    let extensionCalls = 0
    const headers = createPaymentRequiredHeaders(counted, () => {
      extensionCalls += 1
      return EXTENSIONS
    })
    const base = 'http://guard.example:8402'
    const first = await headers(base, 'payment_missing')
    expect(first).toBe(
      encodePaymentRequiredHeader(
        await rail.paymentRequired(paidResource(base), 'payment_missing', EXTENSIONS),
      ),
    )
    expect(await headers(base, 'payment_missing')).toBe(first)
    expect(decodePaymentRequiredHeader(await headers(base, 'amount_mismatch'))).toMatchObject({
      error: 'amount_mismatch',
    })
    expect(
      decodePaymentRequiredHeader(await headers('http://other', 'payment_missing')),
    ).toMatchObject({ resource: { url: paidResource('http://other').url } })
    // Three distinct keys: three builds, and the extensions built only on a miss.
    expect(counted.builds).toBe(3)
    expect(extensionCalls).toBe(3)
  })

  it('keeps at most 64 headers, dropping the oldest', async () => {
    const { counted } = countingRail()
    const headers = createPaymentRequiredHeaders(counted, () => EXTENSIONS)
    expect(PAYMENT_REQUIRED_CACHE_SIZE).toBe(64)
    for (let i = 0; i <= PAYMENT_REQUIRED_CACHE_SIZE; i++) {
      await headers(`http://h${i}.example`, 'payment_missing')
    }
    expect(counted.builds).toBe(65)
    // The newest 64 are kept; the first one went and is built again.
    await headers(`http://h${PAYMENT_REQUIRED_CACHE_SIZE}.example`, 'payment_missing')
    await headers('http://h1.example', 'payment_missing')
    expect(counted.builds).toBe(65)
    await headers('http://h0.example', 'payment_missing')
    expect(counted.builds).toBe(66)
  })

  it('does not keep a failed build: the next request builds again', async () => {
    const { counted } = countingRail()
    const headers = createPaymentRequiredHeaders(counted, () => EXTENSIONS)
    counted.failNext = true
    await expect(headers('http://guard.example', 'payment_missing')).rejects.toThrow('build failed')
    const header = await headers('http://guard.example', 'payment_missing')
    expect(decodePaymentRequiredHeader(header)).toMatchObject({ error: 'payment_missing' })
    expect(counted.builds).toBe(2)
    expect(await headers('http://guard.example', 'payment_missing')).toBe(header)
    expect(counted.builds).toBe(2)
  })
})
