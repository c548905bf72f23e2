import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier'
import { type Address, createPublicClient, type Hex, http, type PublicClient, toHex } from 'viem'
import { toCoinbaseSmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { createMemoryBucketStore } from '../../src/adapters/rate-limit/memory-bucket-store.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import { authorizationId } from '../../src/domain/payment/authorization-id.js'
import { pruneUnverifiedPayments } from '../../src/domain/payment/prune-unverified.js'
import {
  COINBASE_SMART_WALLET,
  deployCoinbaseSmartWallet,
} from '../support/coinbase-smart-wallet.js'
import { clients } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_DOMAIN } from '../support/usdc-typed-data.js'
import {
  BUYER,
  builtinFacilitator,
  EXAMPLE_BODY,
  fundedPayer,
  nonceOf,
  PAY_TO,
  type PaidApp,
  paidApp,
  postPaid,
  settlementsOf,
} from './paid-stack.js'

/**
 * A payment is proven before it costs anything (issue 37, item 2), on a real devnet with the
 * built-in facilitator, every RPC request of the service counted by a real JSON-RPC proxy,
 * and the rate limits of the running service (memory store, clients named by a trusted
 * proxy header with non-loopback addresses):
 * - a forged payment (a signature that does not recover to `authorization.from`) claims no
 *   ledger row and starts no preflight: it costs one verify (the payer's code), and only
 *   within its client's burst; past it, 429 exactly as unpaid calls;
 * - it cannot reserve its victim's payment-identifier;
 * - an honest payer (an EOA, or a Coinbase Smart Wallet paying through ERC-1271) pays and
 *   gets its receipt, and its paid calls never throttle it;
 * - a payment refused at verify leaves a row that is pruned once its authorization expired.
 */

/** A burst of 5 and one token a minute: nothing refills during a test. */
const FREE = { name: 'free', capacity: 5, perMinute: 1 }

let devnet: Devnet
let storage: Storage
let proxy: Awaited<ReturnType<typeof startCountingRpc>>
let stack: PaidApp
let chain: PublicClient
let offer: PaymentRequired

beforeAll(async () => {
  devnet = await startDevnet()
  proxy = await startCountingRpc(devnet.rpcUrl, { holdMs: 5 })
  storage = await openStorage({ kind: 'pglite', dataDir: undefined })
  chain = createPublicClient({ transport: http(devnet.rpcUrl) })
  stack = await paidApp({
    preflightRpcUrl: proxy.url,
    settlementRpcUrl: proxy.url,
    facilitator: builtinFacilitator(proxy.url),
    ledger: storage.ledger,
    operations: {
      rateLimits: {
        store: createMemoryBucketStore(),
        free: FREE,
        clientHeader: 'x-forwarded-for',
        // As on the devnet; every client here is a non-loopback address.
        exemptLoopback: true,
      },
    },
  })
  const challenge = await postPaid(stack.app, EXAMPLE_BODY, { 'x-forwarded-for': '192.0.2.250' })
  offer = decodePaymentRequiredHeader(challenge.headers.get('PAYMENT-REQUIRED') ?? '')
  // The built-in facilitator reads its settler's fees and nonce once when it starts, in the
  // background: they land here, before any payment's reads are counted.
  await vi.waitFor(
    () =>
      expect(proxy.methods).toEqual(
        expect.arrayContaining(['eth_getTransactionCount', 'eth_maxPriorityFeePerGas']),
      ),
    { timeout: 10_000, interval: 20 },
  )
}, 60_000)

afterAll(async () => {
  await storage?.close()
  await proxy?.close()
  await devnet?.stop()
})

/** One POST to the paid route from `client` (an IPv4 address), with a payment or none. */
async function postAs(client: string, header?: string) {
  const res = await postPaid(stack.app, EXAMPLE_BODY, {
    'x-forwarded-for': client,
    ...(header ? { 'PAYMENT-SIGNATURE': header } : {}),
  })
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, any>,
  }
}

/** The `r` (tokens left) of the answer's IETF RateLimit field. */
const remaining = (headers: Headers) =>
  Number(/;r=(\d+);/.exec(headers.get('ratelimit') ?? '')?.[1] ?? Number.NaN)

/** A fresh EIP-3009 authorization to payTo for the price, valid for 5 minutes. */
function authorizationFrom(from: Address) {
  const now = Math.floor(Date.now() / 1000)
  return {
    from,
    to: PAY_TO,
    value: '10000',
    validAfter: '0',
    validBefore: String(now + 300),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
}

/** The PAYMENT-SIGNATURE carrying `authorization` under `signature` (and an identifier). */
function headerOf(
  authorization: ReturnType<typeof authorizationFrom>,
  signature: Hex,
  identifier?: string,
): string {
  // The client echoes the declared extensions, then adds its id to payment-identifier's.
  const extensions = structuredClone(offer.extensions ?? {})
  if (identifier) appendPaymentIdentifierToExtensions(extensions, identifier)
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: offer.accepts[0]!,
    payload: { signature, authorization },
    ...(identifier ? { extensions } : {}),
  })
}

/** The authorization signed by `signer`'s key (typed data as USDC checks it). */
function signAuthorization(
  signer: { signTypedData: (typed: any) => Promise<Hex> },
  authorization: ReturnType<typeof authorizationFrom>,
): Promise<Hex> {
  return signer.signTypedData({
    domain: USDC_DOMAIN,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  })
}

/** Ledger rows of one payer, whatever their status. */
async function rowsOf(payer: Address): Promise<number> {
  const { rows } = await storage.sql.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM "${storage.schema}".payments WHERE lower(payer) = lower($1)`,
    [payer],
  )
  return Number(rows[0]?.n)
}

/** Methods the preflight reads and verify of a forged payment never does. */
const PAYER_CODE = 'eth_getCode'

describe('forged payments', () => {
  it('meet 429 as unpaid calls do; within the burst each costs one payer-code read: no preflight, no row', async () => {
    // 300 unpaid calls from one client: the burst, then 429.
    const unpaid: number[] = []
    for (let i = 0; i < 300; i++) unpaid.push((await postAs('203.0.113.10')).status)
    expect(unpaid.slice(0, FREE.capacity)).toEqual(Array(FREE.capacity).fill(402))
    expect(unpaid.slice(FREE.capacity)).toEqual(Array(300 - FREE.capacity).fill(429))

    // 300 forged payments from another client, naming a victim as payer: signed by another
    // key, a garbage 65-byte signature, or a long one shaped like a smart wallet's.
    const victim = privateKeyToAccount(generatePrivateKey()).address
    const forger = privateKeyToAccount(generatePrivateKey())
    const headers: string[] = []
    for (let i = 0; i < 300; i++) {
      const authorization = authorizationFrom(victim)
      const signature: Hex =
        i % 3 === 0
          ? await signAuthorization(forger, authorization)
          : i % 3 === 1
            ? toHex(crypto.getRandomValues(new Uint8Array(65)))
            : toHex(crypto.getRandomValues(new Uint8Array(320)))
      headers.push(headerOf(authorization, signature))
    }
    proxy.reset()
    const forged = []
    for (const header of headers) forged.push(await postAs('203.0.113.11', header))
    expect(forged.map((a) => a.status)).toEqual(unpaid)
    for (const admitted of forged.slice(0, FREE.capacity)) {
      expect(admitted.body).toMatchObject({
        error: 'payment_required',
        reason: 'invalid_signature',
      })
    }
    expect(forged[FREE.capacity]?.body).toMatchObject({ error: 'rate_limited' })
    // What they cost: verify's read of the payer's code (and the asset's, at most once), for
    // the admitted few only. No preflight, no simulation, no settler read.
    expect(new Set(proxy.methods)).toEqual(new Set([PAYER_CODE]))
    expect(proxy.methods.length).toBeLessThanOrEqual(FREE.capacity + 1)
    // Nothing claimed: no row, under any of them.
    expect(await rowsOf(victim)).toBe(0)
    for (const header of headers.slice(0, FREE.capacity)) {
      const id = authorizationId('eip155:8453', USDC_ADDRESS, {
        payer: victim,
        nonce: nonceOf(header),
      })
      expect(await storage.ledger.get(id)).toBeUndefined()
    }
  }, 120_000)

  it("cannot reserve the victim's payment-identifier: the victim's own payment under it gets 200", async () => {
    const victim = await fundedPayer(devnet.rpcUrl)
    const identifier = `victim_${crypto.randomUUID().replaceAll('-', '')}`
    const forger = privateKeyToAccount(generatePrivateKey())
    const squatted = authorizationFrom(victim.address)
    const squat = await postAs(
      '203.0.113.20',
      headerOf(squatted, await signAuthorization(forger, squatted), identifier),
    )
    expect(squat.status).toBe(402)
    expect(squat.body).toMatchObject({ reason: 'invalid_signature' })
    expect(await storage.ledger.findByIdentifier(victim.address, identifier)).toBeUndefined()
    expect(await rowsOf(victim.address)).toBe(0)

    const authorization = authorizationFrom(victim.address)
    const header = headerOf(
      authorization,
      await signAuthorization(victim, authorization),
      identifier,
    )
    const paid = await postAs('203.0.113.21', header)
    expect(paid.status, JSON.stringify(paid.body)).toBe(200)
    expect(await settlementsOf(chain, victim.address, authorization.nonce)).toEqual([
      paid.body.receipt.settlementTx,
    ])
    // Bound now, to the victim's verified payment.
    expect(await storage.ledger.findByIdentifier(victim.address, identifier)).toMatchObject({
      status: 'settled',
      nonce: authorization.nonce,
    })
  }, 60_000)
})

describe('honest payers', () => {
  it('an EOA making more paid calls than its burst is never throttled by them', async () => {
    const client = '203.0.113.30'
    for (let i = 0; i < FREE.capacity + 3; i++) {
      const authorization = authorizationFrom(BUYER.address)
      const paid = await postAs(
        client,
        headerOf(authorization, await signAuthorization(BUYER, authorization)),
      )
      expect(paid.status, `call ${i}: ${JSON.stringify(paid.body)}`).toBe(200)
      // Counted while it was unproven, given back once its payment verified.
      expect(remaining(paid.headers)).toBe(FREE.capacity)
    }
    // The paid calls left the client's bucket whole: its unpaid calls still have the burst.
    const unpaid = []
    for (let i = 0; i <= FREE.capacity; i++) unpaid.push((await postAs(client)).status)
    expect(unpaid).toEqual([...Array(FREE.capacity).fill(402), 429])
  }, 120_000)

  it('a Coinbase Smart Wallet (ERC-1271) pays and gets its receipt; its preflight starts after verify', async () => {
    await deployCoinbaseSmartWallet(devnet.rpcUrl)
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toCoinbaseSmartAccount({
      client: createPublicClient({ chain: base, transport: http(devnet.rpcUrl) }),
      owners: [owner],
      version: '1',
    })
    const { publicClient, walletClient } = clients(devnet.rpcUrl)
    const { factoryData } = await account.getFactoryArgs()
    if (!factoryData) throw new Error('the account has no factory data')
    const deployed = await walletClient.sendTransaction({
      to: COINBASE_SMART_WALLET.factory,
      data: factoryData,
    })
    await publicClient.waitForTransactionReceipt({ hash: deployed, pollingInterval: 50 })
    expect(await publicClient.getCode({ address: account.address })).toBeTruthy()
    await mintDevnetUsdc(devnet.rpcUrl, account.address, 10_000n)

    const authorization = authorizationFrom(account.address)
    const signature = await signAuthorization(account, authorization)
    // A SignatureWrapper, not a 65-byte signature: only the chain (isValidSignature) judges it.
    expect(signature.length).toBeGreaterThan(132)
    const client = '203.0.113.40'
    proxy.reset()
    const paid = await postAs(client, headerOf(authorization, signature))
    expect(paid.status, JSON.stringify(paid.body)).toBe(200)
    expect(paid.body.receipt.payer.toLowerCase()).toBe(account.address.toLowerCase())
    expect(await settlementsOf(chain, account.address, authorization.nonce)).toEqual([
      paid.body.receipt.settlementTx,
    ])
    expect(remaining(paid.headers)).toBe(FREE.capacity)
    // Verify ran to its end (the wallet's code, its isValidSignature, then the transfer's
    // simulation) before the preflight's wave (marked by its eth_simulateV1, which the
    // facilitator never sends: its own fee refresh reads blocks too, and rides verify's wave
    // whenever its fee cache ran out on a slow machine).
    const waveOf = (method: string) => proxy.calls.find((c) => c.method === method)?.wave
    expect(waveOf(PAYER_CODE)).toBe(1)
    const simulated = waveOf('eth_estimateGas')
    const preflightStart = waveOf('eth_simulateV1')
    expect(simulated).toBeDefined()
    expect(preflightStart, JSON.stringify(proxy.calls)).toBeGreaterThan(simulated!)

    // A forged payment naming the wallet: refused at verify, nothing claimed.
    const forged = authorizationFrom(account.address)
    const refused = await postAs(
      client,
      headerOf(forged, await signAuthorization(privateKeyToAccount(generatePrivateKey()), forged)),
    )
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ reason: 'invalid_signature' })
    expect(await rowsOf(account.address)).toBe(1)
  }, 120_000)
})

describe('a payment refused at verify', () => {
  it('keeps its token spent and its row only until its authorization expired', async () => {
    // Its own key, no USDC: proven locally (so verified beside the preflight), refused at verify.
    const broke = privateKeyToAccount(generatePrivateKey())
    const identifier = `broke_${crypto.randomUUID().replaceAll('-', '')}`
    const authorization = authorizationFrom(broke.address)
    const header = headerOf(
      authorization,
      await signAuthorization(broke, authorization),
      identifier,
    )
    const refused = await postAs('203.0.113.50', header)
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ reason: 'insufficient_funds' })
    expect(remaining(refused.headers)).toBe(FREE.capacity - 1)
    const id = authorizationId('eip155:8453', USDC_ADDRESS, {
      payer: broke.address,
      nonce: authorization.nonce,
    })
    expect(await storage.ledger.get(id)).toMatchObject({ status: 'failed', verifiedAt: null })
    // It never verified: its identifier is not bound.
    expect(await storage.ledger.findByIdentifier(broke.address, identifier)).toBeUndefined()
    // While its authorization may still be retried (funded later), the row stays...
    await pruneUnverifiedPayments({ ledger: storage.ledger })
    expect(await storage.ledger.get(id)).toBeDefined()
    // ...and once it expired it goes: judged 400 s later (a grace of -400 s).
    await pruneUnverifiedPayments({ ledger: storage.ledger }, -400)
    expect(await storage.ledger.get(id)).toBeUndefined()
  }, 60_000)
})
