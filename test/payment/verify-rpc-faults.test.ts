import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createFacilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { type RpcFault, startFaultyRpc } from '../support/faulty-rpc.js'
import {
  authorizationOf,
  BUYER,
  beforeSettle,
  fundedPayer,
  nonceOf,
  PAY_TO,
  type PaidApp,
  sendPayment,
  settlementsOf,
  usdcBalances,
} from './paid-stack.js'
import { type PaidSuite, startPaidSuite } from './paid-suite.js'

// A valid, funded payment is never refused with a 402 because the facilitator's RPC failed:
// the buyer gets a retryable 503 with Retry-After, nothing is charged, and the same
// PAYMENT-SIGNATURE gets 200 (charged once) once the RPC is back. The preflight reads the
// devnet directly, so only the facilitator's reads meet the fault.

let suite: PaidSuite
let rpc: Awaited<ReturnType<typeof startFaultyRpc>>
let stack: PaidApp

/** The built-in facilitator behind the faulty proxy, with a short RPC timeout. */
function facilitatorBehindProxy() {
  return createFacilitator({
    kind: 'builtin',
    settlementPrivateKey: DEVNET_ACCOUNTS.facilitator.privateKey,
    rpcUrl: rpc.url,
    rpcTimeoutMs: 600,
    confirmationTimeoutMs: 5_000,
    pollingIntervalMs: 50,
  })
}

beforeAll(async () => {
  suite = await startPaidSuite()
  rpc = await startFaultyRpc(suite.devnet.rpcUrl)
  stack = await suite.appWith({ facilitator: facilitatorBehindProxy() })
}, 60_000)

afterAll(async () => {
  await rpc?.close()
  await suite?.close()
})

async function rowOf(header: string) {
  const { from, nonce } = authorizationOf(header)
  const id = authorizationId('eip155:8453', USDC_ADDRESS, {
    payer: from,
    nonce: nonce.toLowerCase(),
  } as never)
  return suite.storage.ledger.get(id)
}

/** The same header, retried once the RPC answers: 200, charged once, its receipt that transfer. */
async function expectPaidOnRetry(
  app: PaidApp['app'],
  header: string,
  payer: Address,
  payToBefore: bigint | undefined,
) {
  const retried = await sendPayment(app, header)
  expect(retried.status).toBe(200)
  const settled = await settlementsOf(suite.chain, payer, nonceOf(header))
  expect(settled).toHaveLength(1)
  expect(retried.body.receipt.settlementTx).toBe(settled[0])
  expect((await usdcBalances(suite.chain, PAY_TO))[0]! - payToBefore!).toBe(10_000n)
}

const FAULTS: [string, string, RpcFault][] = [
  [
    'eth_getCode answers -32603',
    'eth_getCode',
    { kind: 'error', code: -32603, message: 'internal error' },
  ],
  [
    'eth_estimateGas answers -32603',
    'eth_estimateGas',
    { kind: 'error', code: -32603, message: 'internal error' },
  ],
  ['eth_estimateGas is held past the timeout', 'eth_estimateGas', { kind: 'stall' }],
  [
    'the RPC is down (every method)',
    '*',
    { kind: 'error', code: -32603, message: 'upstream down' },
  ],
]

describe('verification that meets an RPC fault', () => {
  for (const [name, method, fault] of FAULTS) {
    it(`${name}: 503 rpc_unavailable with Retry-After, nothing charged; the same header later gets 200`, async () => {
      const payer = await fundedPayer(suite.devnet.rpcUrl)
      const header = await suite.paymentHeader(stack, payer)
      const [payToBefore] = await usdcBalances(suite.chain, PAY_TO)
      rpc.set(method, fault)
      let refused: Awaited<ReturnType<typeof sendPayment>>
      try {
        refused = await sendPayment(stack.app, header)
      } finally {
        rpc.clear()
      }
      expect(refused.status).toBe(503)
      expect(refused.body.error).toBe('rpc_unavailable')
      expect(refused.body.message).toMatch(/nothing was charged/)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(refused.headers.get('payment-required')).toBeNull()
      // Not a verdict against the buyer: the ledger keeps no 402 for this payment.
      const row = await rowOf(header)
      expect(row?.failure?.kind).not.toBe('payment_required')
      expect(row?.failure?.final).toBeFalsy()
      expect(await settlementsOf(suite.chain, payer.address, nonceOf(header))).toEqual([])

      await expectPaidOnRetry(stack.app, header, payer.address, payToBefore)
    }, 30_000)
  }

  it('a truly invalid payment is still a 402 when the RPC is healthy', async () => {
    // The amount changed after the buyer signed: the signature no longer matches.
    const header = await suite.paymentHeader(stack, BUYER)
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
    payload.payload.authorization.value = '20000'
    const forged = Buffer.from(JSON.stringify(payload)).toString('base64')
    const refused = await sendPayment(stack.app, forged)
    expect(refused.status).toBe(402)
  }, 30_000)
})

/** At settle the payer's code is already known: the faults of the settlement's own reads. */
const SETTLE_FAULTS: [string, string, RpcFault][] = [
  ...FAULTS.filter(([, method]) => method !== 'eth_getCode'),
  // @x402/evm reads a failed send's words; these would read as the buyer's empty wallet.
  [
    "an RPC error worded like the buyer's fault",
    'eth_estimateGas',
    { kind: 'error', code: -32603, message: 'upstream cache: insufficient balance data' },
  ],
]

describe('settlement that meets an RPC fault before anything was sent', () => {
  for (const [name, method, fault] of SETTLE_FAULTS) {
    it(`${name}: a retryable 503, nothing charged; the same header later gets 200 once`, async () => {
      let faultNext = true
      const app = await suite.appWith({
        facilitator: beforeSettle(facilitatorBehindProxy(), async () => {
          if (faultNext) rpc.set(method, fault)
        }),
      })
      const payer = await fundedPayer(suite.devnet.rpcUrl)
      const header = await suite.paymentHeader(app, payer)
      const [payToBefore] = await usdcBalances(suite.chain, PAY_TO)
      let first: Awaited<ReturnType<typeof sendPayment>>
      try {
        first = await sendPayment(app.app, header)
      } finally {
        faultNext = false
        rpc.clear()
      }
      expect(first.status).toBe(503)
      expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await rowOf(header))?.status).not.toBe('failed')
      expect(await settlementsOf(suite.chain, payer.address, nonceOf(header))).toEqual([])

      await expectPaidOnRetry(app.app, header, payer.address, payToBefore)
    }, 30_000)
  }
})
