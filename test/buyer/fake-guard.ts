import http from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEVNET_ACCOUNTS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { offerReceiptFor, withOfferReceipt } from '../../src/domain/payment/offer-receipt.js'
import { canonicalJsonHash } from '../../src/domain/receipt/canonical-json.js'
import { receiptVerification, signReceipt } from '../../src/domain/receipt/receipt.js'

/**
 * A guard that lies or breaks on purpose, over real HTTP on loopback: what a malicious or
 * broken guard looks like to the buyer kit. Its discovery, 402 offer, read-only answers and
 * paid answers are all configurable; it records every request and every payment it receives.
 * Paid answers it means as genuine carry receipts signed with the devnet receipt key.
 */
export const FAKE_PAY_TO = DEVNET_ACCOUNTS.payTo.address
export const SETTLEMENT_TX: Hex = `0x${'ab'.repeat(32)}`
const RECEIPT_SIGNER = privateKeyToAccount(DEVNET_ACCOUNTS.receiptSigner.privateKey)

/** One request with a `PAYMENT-SIGNATURE` the fake guard received. */
export interface ReceivedPayment {
  header: string
  payload: PaymentPayload
  body: Record<string, unknown>
  /** How many requests carried this very header before this one. */
  seen: number
}

export interface PaidReply {
  status: number
  body: string
  headers?: Record<string, string>
}

export interface FakeGuardOptions {
  environment?: 'devnet' | 'mainnet'
  /** Published as `devnet.rpcUrl` in discovery. */
  rpcUrl?: string
  /** Changes to the one 402 offer (`scheme`, `maxTimeoutSeconds`, `extra`...). */
  offer?: Record<string, unknown>
  /** Top-level `extensions` of the 402's PAYMENT-REQUIRED. */
  extensions?: Record<string, unknown>
  /** Changes to discovery (e.g. a receipt type without some fields). */
  discovery?: (d: Record<string, unknown>) => Record<string, unknown>
  /** The read-only route's answer for a body (default: a `sign` with no findings). */
  preflight?: (body: Record<string, unknown>) => Record<string, unknown>
  /** The typed-data route's answer for a body (default: a `sign` with no findings). */
  typedData?: (body: Record<string, unknown>) => Record<string, unknown>
  /** The paid route's answer to a paid request (default: {@link genuinePaidReply}). */
  paid?: (payment: ReceivedPayment) => PaidReply | Promise<PaidReply>
}

export interface FakeGuard {
  baseUrl: string
  /** Every request with a payment, in order. */
  payments: ReceivedPayment[]
  /** Read-only preflight bodies, in order. */
  preflights: Record<string, unknown>[]
  /** Typed-data preflight bodies (the kit screens its payment authorizations), in order. */
  typedDataChecks: Record<string, unknown>[]
  /** Distinct EIP-3009 nonces signed: how many payments were made. */
  distinctPayments(): number
  close(): Promise<void>
}

/**
 * A complete read-only preflight answer (a plain ETH transfer, judged `sign`), as the shared
 * answer schema requires it; `overrides` replaces top-level fields.
 */
export function preflightResult(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    verdict: 'sign',
    findings: [],
    environment: 'mainnet',
    chainId: '0x2105',
    network: 'eip155:8453',
    block: { number: '100', hash: `0x${'11'.repeat(32)}`, timestamp: '1700000000' },
    transaction: {
      from: DEVNET_ACCOUNTS.buyer.address,
      to: FAKE_PAY_TO,
      data: '0x',
      value: '0',
    },
    call: { success: true, returnData: '0x' },
    gas: { success: true, estimate: '21000' },
    fees: {
      baseFeePerGas: '1000000000',
      maxPriorityFeePerGas: '1000000',
      maxFeePerGas: '2001000000',
      gasLimit: '21000',
      l2ExecutionCost: '21021000000000',
      l2ExecutionCostMax: '42021000000000',
      l1DataFee: '0',
      totalCost: '21021000000000',
      totalCostMax: '42021000000000',
      totalCostPlusValue: '42021000000000',
    },
    decoded: { selector: null, known: false, reason: 'empty' },
    effects: { available: false, reason: 'the fake guard simulates nothing' },
    ...overrides,
  }
}

/**
 * A complete typed-data preflight answer (a USDC TransferWithAuthorization judged `sign`), as
 * the shared answer schema requires it; `overrides` replaces top-level fields.
 */
export function typedDataResult(
  signer: unknown,
  environment: 'devnet' | 'mainnet' = 'mainnet',
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    verdict: 'sign',
    findings: [],
    environment,
    chainId: '0x2105',
    network: 'eip155:8453',
    block: { number: '100', hash: `0x${'11'.repeat(32)}`, timestamp: '1700000000' },
    signer,
    typedData: {
      primaryType: 'TransferWithAuthorization',
      digest: `0x${'22'.repeat(32)}`,
      domainSeparator: `0x${'33'.repeat(32)}`,
      domain: { name: 'USD Coin', version: '2', chainId: '8453', verifyingContract: USDC_ADDRESS },
    },
    kind: 'eip3009-transfer-with-authorization',
    standardName: 'TransferWithAuthorization',
    renamed: false,
    witness: null,
    decoded: {},
    grants: [],
    deadlines: [],
    chainFacts: {
      verifyingContract: { address: USDC_ADDRESS, hasCode: true },
      contractDomain: {
        source: 'none',
        name: null,
        version: null,
        chainId: null,
        verifyingContract: null,
        salt: null,
        separator: null,
      },
      spenders: [],
      nonces: [],
    },
    ...overrides,
  }
}

/** A paid 200 a genuine guard would send: result, receipt signed by the receipt key, settlement. */
export async function genuinePaidReply(
  payment: ReceivedPayment,
  options: {
    result?: Record<string, unknown>
    settlement?: Record<string, unknown>
    receipt?: Record<string, unknown>
  } = {},
): Promise<PaidReply> {
  const result = options.result ?? preflightResult()
  const authorization = (payment.payload.payload as { authorization: { from: Address } })
    .authorization
  const receipt = await signReceipt(RECEIPT_SIGNER, {
    id: `rcpt_${'0'.repeat(32)}`,
    requestHash: canonicalJsonHash(payment.body),
    responseHash: canonicalJsonHash(result),
    verdict: String(result.verdict),
    chainId: '8453',
    blockNumber: '100',
    blockHash: `0x${'11'.repeat(32)}`,
    settlementTx: SETTLEMENT_TX,
    payer: authorization.from,
    payTo: FAKE_PAY_TO,
    asset: USDC_ADDRESS,
    amount: '10000',
    network: 'eip155:8453',
    issuedAt: '1700000000',
    ...options.receipt,
  })
  // The x402 offer-receipt receipt the real service adds to PAYMENT-RESPONSE, made the same way.
  const resourceUrl =
    (payment.payload as { resource?: { url?: string } }).resource?.url ??
    'http://fake-guard.invalid/simulate/transaction-preflight'
  const settlement = await withOfferReceipt(
    {
      success: true,
      transaction: SETTLEMENT_TX,
      network: 'eip155:8453',
      payer: authorization.from,
    },
    await offerReceiptFor(RECEIPT_SIGNER, receipt, resourceUrl),
    resourceUrl,
    RECEIPT_SIGNER.address,
  )
  return {
    status: 200,
    body: JSON.stringify({ result, receipt }),
    headers: {
      'PAYMENT-RESPONSE': encodePaymentResponseHeader({
        ...settlement,
        ...options.settlement,
      } as never),
    },
  }
}

export const settlementPending: PaidReply = {
  status: 503,
  body: JSON.stringify({ error: 'settlement_pending', message: 'settling', issues: [] }),
  headers: { 'Retry-After': '2' },
}

export async function startFakeGuard(options: FakeGuardOptions = {}): Promise<FakeGuard> {
  const payments: ReceivedPayment[] = []
  const preflights: Record<string, unknown>[] = []
  const typedDataChecks: Record<string, unknown>[] = []
  let baseUrl = ''
  const reply = (res: http.ServerResponse, r: PaidReply) => {
    res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers })
    res.end(r.body)
  }
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (chunk) => {
      text += chunk
    })
    req.on('end', async () => {
      if (req.method === 'GET' && req.url === '/.well-known/x402') {
        const discovery = {
          title: 'fake guard',
          route: '/simulate/transaction-preflight',
          price: '$0.01',
          network: 'eip155:8453',
          payTo: FAKE_PAY_TO,
          asset: USDC_ADDRESS,
          amount: '10000',
          quickstartUrl: `${baseUrl}/quickstart`,
          environment: options.environment ?? 'mainnet',
          receipts: {
            name: 'PRE_SEND_PROOF_RECEIPT',
            url: `${baseUrl}/receipts/{id}`,
            ...receiptVerification(RECEIPT_SIGNER.address),
          },
          ...(options.rpcUrl ? { devnet: { rpcUrl: options.rpcUrl } } : {}),
        }
        reply(res, {
          status: 200,
          body: JSON.stringify(options.discovery ? options.discovery(discovery) : discovery),
        })
        return
      }
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {}
      if (req.url === '/payanagent/v1/base-transaction-preflight') {
        preflights.push(body)
        reply(res, {
          status: 200,
          body: JSON.stringify(options.preflight ? options.preflight(body) : preflightResult()),
        })
        return
      }
      if (req.url === '/payanagent/v1/base-typed-data-preflight') {
        typedDataChecks.push(body)
        const answer = typedDataResult(body.signer, options.environment ?? 'mainnet')
        reply(res, {
          status: 200,
          body: JSON.stringify(options.typedData ? options.typedData(body) : answer),
        })
        return
      }
      const header = req.headers['payment-signature']
      if (typeof header !== 'string') {
        const paymentRequired = {
          x402Version: 2,
          resource: { url: `${baseUrl}/simulate/transaction-preflight` },
          accepts: [
            {
              scheme: 'exact',
              network: 'eip155:8453',
              asset: USDC_ADDRESS,
              amount: '10000',
              payTo: FAKE_PAY_TO,
              maxTimeoutSeconds: 300,
              extra: { name: 'USD Coin', version: '2' },
              ...options.offer,
            },
          ],
          ...(options.extensions ? { extensions: options.extensions } : {}),
        }
        reply(res, {
          status: 402,
          headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired as never) },
          body: JSON.stringify({
            error: 'payment_required',
            price: '$0.01',
            network: 'eip155:8453',
            quickstartUrl: `${baseUrl}/quickstart`,
          }),
        })
        return
      }
      const payment: ReceivedPayment = {
        header,
        payload: decodePaymentSignatureHeader(header),
        body,
        seen: payments.filter((p) => p.header === header).length,
      }
      payments.push(payment)
      reply(res, await (options.paid ?? genuinePaidReply)(payment))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    baseUrl,
    payments,
    preflights,
    typedDataChecks,
    distinctPayments: () =>
      new Set(
        payments.map(
          (p) => (p.payload.payload as { authorization: { nonce: Hex } }).authorization.nonce,
        ),
      ).size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** One JSON-RPC call the fake RPC received. */
export interface RpcCall {
  method: string
  params: unknown[]
  path: string
}

/**
 * A JSON-RPC server over HTTP that answers from `handler` (default: Base's chain id, zero for
 * everything else); any path works, so URLs can carry an API key the way providers' do.
 */
export async function startFakeRpc(
  handler: (call: RpcCall) => unknown = () => undefined,
): Promise<{ url: string; calls: RpcCall[]; close(): Promise<void> }> {
  const calls: RpcCall[] = []
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (chunk) => {
      text += chunk
    })
    req.on('end', () => {
      const message = JSON.parse(text) as unknown
      const one = (m: { id: number; method: string; params?: unknown[] }) => {
        const call = { method: m.method, params: m.params ?? [], path: req.url ?? '/' }
        calls.push(call)
        const answer = handler(call)
        if (answer instanceof RpcError) {
          return { jsonrpc: '2.0', id: m.id, error: { code: answer.code, message: answer.message } }
        }
        const result =
          answer !== undefined
            ? answer
            : m.method === 'eth_chainId'
              ? '0x2105'
              : `0x${'0'.repeat(64)}`
        return { jsonrpc: '2.0', id: m.id, result }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(
          Array.isArray(message) ? message.map(one) : one(message as Parameters<typeof one>[0]),
        ),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Returned by a fake RPC handler: answer with a JSON-RPC error. */
export class RpcError {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}
