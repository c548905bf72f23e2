import { type Address, createWalletClient, custom } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createGuardClient,
  type TransactionRequest,
} from '../../packages/client/src/client/guard-client.js'
import { GuardError } from '../../packages/client/src/client/guard-error.js'
import type { Discovery } from '../../packages/client/src/client/guard-responses.js'
import { verifyReceipt } from '../../packages/client/src/client/verify-receipt.js'
import { withPreSendGuard } from '../../packages/client/src/viem/viem-guard.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import { paidRouteBazaar } from '../../src/routes/paid-route-bazaar.js'
import { DEAD_URL } from '../support/served-guard.js'
import {
  type FakeGuard,
  type FakeGuardOptions,
  genuinePaidReply,
  SETTLEMENT_TX,
  startFakeGuard,
} from './fake-guard.js'

/**
 * The client against a guard that lies or breaks (fake-guard.ts, real HTTP on loopback): what it
 * refuses to sign, and what it keeps once a payment has left. No chain is needed: paying is
 * signing an EIP-3009 authorization, and the fake guard only records it.
 */
const payer = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
const tx: TransactionRequest = {
  chainId: '0x2105',
  from: payer.address,
  to: DEVNET_ACCOUNTS.payTo.address,
  data: '0x',
  value: '0x0',
}

let fake: FakeGuard | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

async function guardWith(options: FakeGuardOptions) {
  fake = await startFakeGuard(options)
  return {
    fake,
    client: createGuardClient({ baseUrl: fake.baseUrl, payer: { account: payer } }),
  }
}

describe('a crafted 402', () => {
  const crafted: [string, FakeGuardOptions, string[]][] = [
    [
      'Permit2 with an approval-sponsoring extension (asks for a signed approve transaction)',
      {
        offer: { extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } },
        extensions: { erc20ApprovalGasSponsoring: { info: {}, schema: {} } },
      },
      ['transfer_method', 'extensions'],
    ],
    [
      'Permit2 alone',
      { offer: { extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } } },
      ['transfer_method'],
    ],
    ['an unknown extension', { extensions: { 'sign-in-with-x': { info: {} } } }, ['extensions']],
    ['a bazaar without an input', { extensions: { bazaar: { info: {} } } }, ['bazaar']],
    [
      'a bazaar describing a GET',
      { extensions: { bazaar: { info: { input: { type: 'http', method: 'GET' } }, schema: {} } } },
      ['bazaar'],
    ],
    ['another scheme', { offer: { scheme: 'upto' } }, ['scheme']],
    ['a day-long authorization', { offer: { maxTimeoutSeconds: 86_400 } }, ['max_timeout']],
    ['no maxTimeoutSeconds', { offer: { maxTimeoutSeconds: undefined } }, ['max_timeout']],
  ]

  it.each(crafted)('is refused: %s; nothing is signed or sent', async (_, options, failing) => {
    const { fake, client } = await guardWith(options)
    const error = await client.paidPreflight(tx).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect(error).toMatchObject({ code: 'challenge_mismatch', paymentSignature: undefined })
    expect((error as GuardError).checks?.filter((c) => !c.ok).map((c) => c.name)).toEqual(failing)
    expect(fake.payments).toHaveLength(0)
  })

  it('still pays the genuine offer (exact, EIP-3009, 300 s, no extensions)', async () => {
    const { fake, client } = await guardWith({})
    const paid = await client.paidPreflight(tx)
    expect(paid.challenge?.ok).toBe(true)
    expect(paid.payer).toBe(payer.address)
    expect(fake.payments).toHaveLength(1)
    // Exactly an EIP-3009 authorization, nothing else signed.
    expect(Object.keys(fake.payments[0]!.payload.payload).sort()).toEqual([
      'authorization',
      'signature',
    ])
    expect(fake.payments[0]!.payload.extensions ?? {}).toEqual({})
  })
})

describe('a 402 with informational extensions', () => {
  it('pays an offer declaring bazaar and payment-identifier, signing only the authorization', async () => {
    const bazaar = paidRouteBazaar().bazaar
    const { fake, client } = await guardWith({
      extensions: { bazaar, 'payment-identifier': { info: { required: false } } },
    })
    const paid = await client.paidPreflight(tx)
    expect(paid.challenge?.checks.find((c) => c.name === 'bazaar')).toMatchObject({ ok: true })
    expect(fake.payments).toHaveLength(1)
    expect(Object.keys(fake.payments[0]!.payload.payload).sort()).toEqual([
      'authorization',
      'signature',
    ])
    // x402's client echoes what the server declared; nothing else rides along.
    expect(fake.payments[0]!.payload.extensions?.bazaar).toEqual(bazaar)
  })
})

describe('after a payment left', () => {
  const garbled: [string, NonNullable<FakeGuardOptions['paid']>][] = [
    ['a 200 whose body is not JSON', () => ({ status: 200, body: '{"result": {"verdict"' })],
    ['a 200 whose body is not a paid answer', () => ({ status: 200, body: '{}' })],
    [
      'a 200 without PAYMENT-RESPONSE',
      async (p) => ({ ...(await genuinePaidReply(p)), headers: {} }),
    ],
    [
      'a 200 with a garbled PAYMENT-RESPONSE',
      async (p) => ({ ...(await genuinePaidReply(p)), headers: { 'PAYMENT-RESPONSE': '%%%' } }),
    ],
    ['a 503 settlement_pending', () => ({ status: 503, body: '{"error":"settlement_pending"}' })],
  ]

  it.each(garbled)('%s keeps the paymentSignature to resume with', async (_, paid) => {
    const { fake, client } = await guardWith({ paid })
    const error = await client.paidPreflight(tx).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect(fake.payments).toHaveLength(1)
    expect(error).toMatchObject({
      paymentSignature: fake.payments[0]!.header,
      paymentPending: true,
      unavailable: true,
    })
  })

  it('a 402 refusal keeps it too, but nothing is pending', async () => {
    const { fake, client } = await guardWith({
      paid: () => ({
        status: 402,
        body: JSON.stringify({
          error: 'payment_required',
          message: 'no',
          reason: 'insufficient_funds',
        }),
      }),
    })
    const error = await client.paidPreflight(tx).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'payment_required',
      reason: 'insufficient_funds',
      paymentSignature: fake.payments[0]!.header,
      paymentPending: false,
    })
  })

  it('resuming keeps it when the guard cannot be reached', async () => {
    const error = await createGuardClient({ baseUrl: DEAD_URL })
      .paidPreflight(tx, {
        discovery: { route: '/simulate/transaction-preflight' } as Discovery,
        paymentSignature: 'c2lnbmF0dXJl',
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'guard_unreachable',
      paymentSignature: 'c2lnbmF0dXJl',
      paymentPending: true,
    })
  })
})

describe('verifyReceipt against what discovery publishes', () => {
  const signer = privateKeyToAccount(DEVNET_ACCOUNTS.receiptSigner.privateKey)

  async function genuine() {
    const { fake, client } = await guardWith({})
    const discovery = await client.discovery()
    const paid = await client.paidPreflight(tx, { discovery })
    return { fake, discovery, paid }
  }

  /** Re-signs `fields` with the real receipt key, under `types` (discovery's, possibly narrowed). */
  async function resign(
    receipt: Record<string, unknown>,
    discovery: Discovery,
    types = discovery.receipts!.eip712.types,
  ) {
    const eip712 = discovery.receipts!.eip712
    const fields = types[eip712.primaryType]!
    const message = Object.fromEntries(fields.map((f) => [f.name, receipt[f.name]]))
    return {
      ...receipt,
      signature: await signer.signTypedData({
        domain: eip712.domain,
        types,
        primaryType: eip712.primaryType,
        message,
      } as Parameters<typeof signer.signTypedData>[0]),
    }
  }

  it('refuses a receipt type that leaves a compared field unsigned', async () => {
    const { discovery, paid } = await genuine()
    const eip712 = discovery.receipts!.eip712
    const narrowed = {
      ...eip712.types,
      [eip712.primaryType]: eip712.types[eip712.primaryType]!.filter((f) => f.name !== 'verdict'),
    }
    const narrowDiscovery = {
      ...discovery,
      receipts: { ...discovery.receipts!, eip712: { ...eip712, types: narrowed } },
    }
    // Signed without its verdict, which is then whatever the server likes: the signature holds.
    const receipt = await resign(paid.receipt, narrowDiscovery, narrowed)
    const check = await verifyReceipt(receipt, narrowDiscovery, {
      request: paid.request,
      result: paid.result,
    })
    expect(check.valid).toBe(false)
    expect(check.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['signed_fields'])
    expect(check.checks.find((c) => c.name === 'signed_fields')?.detail).toContain('verdict')
  })

  it('checks the chain id and, when bound, the payer', async () => {
    const { discovery, paid } = await genuine()
    const onAnotherChain = await resign({ ...paid.receipt, chainId: '1' }, discovery)
    const chain = await verifyReceipt(onAnotherChain, discovery)
    expect(chain.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['chain_id'])

    const someoneElse: Address = DEVNET_ACCOUNTS.usdcMinter.address
    const otherPayer = await verifyReceipt(paid.receipt, discovery, { payer: someoneElse })
    expect(otherPayer.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['payer'])

    const bound = await verifyReceipt(paid.receipt, discovery, {
      request: paid.request,
      result: paid.result,
      settlementTx: SETTLEMENT_TX,
      payer: payer.address,
    })
    expect(bound.checks.filter((c) => !c.ok)).toEqual([])
    expect(bound.checks.map((c) => c.name)).toEqual(
      expect.arrayContaining(['signed_fields', 'chain_id', 'payer']),
    )
  })
})

describe('a discovery naming a network the kit does not know', () => {
  it('is network_unsupported, and the viem wrapper neither asks nor sends, even fail-open', async () => {
    const { fake, client } = await guardWith({
      discovery: (d) => ({ ...d, network: 'eip155:1' }),
    })
    await expect(client.network()).rejects.toMatchObject({ code: 'network_unsupported' })
    const reached: string[] = []
    const wallet = withPreSendGuard(
      createWalletClient({
        account: payer,
        chain: base,
        transport: custom({
          request: async ({ method }) => {
            reached.push(method)
            throw new Error('the wallet was reached')
          },
        }),
      }),
      { guard: client, failClosed: false },
    )
    const error = await wallet
      .sendTransaction({ to: DEVNET_ACCOUNTS.payTo.address, value: 1n })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect(error).toMatchObject({ code: 'network_unsupported' })
    expect(reached).toEqual([])
    expect(fake.preflights).toEqual([])
  })
})
