import {
  type Address,
  createWalletClient,
  custom,
  type Hex,
  keccak256,
  parseEther,
  parseGwei,
  parseTransaction,
  publicActions,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { walletActionsL2 } from 'viem/op-stack'
import { afterEach, describe, expect, it } from 'vitest'
import { createGuardClient } from '../../packages/client/src/client/guard-client.js'
import type { GuardError } from '../../packages/client/src/client/guard-error.js'
import {
  GuardUnavailableError,
  PreSendGuardError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
} from '../../packages/client/src/viem/pre-send-guard-errors.js'
import {
  type PreSendGuardOptions,
  withPreSendGuard,
} from '../../packages/client/src/viem/viem-guard.js'
import { DEVNET_ACCOUNTS } from '../../src/adapters/devnet/prepare.js'
import {
  type FakeGuard,
  type FakeGuardOptions,
  genuinePaidReply,
  preflightResult,
  settlementPending,
  startFakeGuard,
} from './fake-guard.js'

/**
 * The wrapper's guarded transport, against a fake guard (fake-guard.ts) and a fake chain (a
 * viem `custom` transport that records what reaches it): "nothing sent" means no
 * `eth_sendRawTransaction` / `eth_sendTransaction` reached the chain.
 */
const account = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
const recipient: Address = DEVNET_ACCOUNTS.payTo.address
const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016'
const SEND_METHODS = ['eth_sendRawTransaction', 'eth_sendTransaction', 'wallet_sendTransaction']

const block = {
  number: '0x10',
  hash: `0x${'11'.repeat(32)}`,
  parentHash: `0x${'00'.repeat(32)}`,
  baseFeePerGas: '0x3b9aca00',
  timestamp: '0x1',
  transactions: [],
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  logsBloom: `0x${'00'.repeat(256)}`,
  miner: `0x${'00'.repeat(20)}`,
  difficulty: '0x0',
  extraData: '0x',
  size: '0x0',
  stateRoot: `0x${'00'.repeat(32)}`,
  receiptsRoot: `0x${'00'.repeat(32)}`,
  transactionsRoot: `0x${'00'.repeat(32)}`,
  sha3Uncles: `0x${'00'.repeat(32)}`,
  uncles: [],
  nonce: '0x0000000000000000',
  mixHash: `0x${'00'.repeat(32)}`,
}

/** A chain that answers what viem needs to prepare and send, and records every request. */
function fakeChain() {
  const requests: { method: string; params: unknown[] }[] = []
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      requests.push({ method, params: (params as unknown[]) ?? [] })
      switch (method) {
        case 'eth_chainId':
          return '0x2105'
        case 'eth_getTransactionCount':
          return '0x0'
        case 'eth_estimateGas':
          return '0x5208'
        case 'eth_maxPriorityFeePerGas':
          return '0xf4240'
        case 'eth_gasPrice':
          return '0x3b9aca00'
        case 'eth_getBlockByNumber':
          return block
        case 'eth_getBalance':
          return '0x0'
        case 'eth_blockNumber':
          return '0x10'
        case 'eth_sendRawTransaction':
          return keccak256((params as Hex[])[0]!)
        case 'eth_sendTransaction':
          return `0x${'22'.repeat(32)}`
        default:
          return null
      }
    },
  })
  return {
    transport,
    requests,
    sent: () => requests.filter((r) => SEND_METHODS.includes(r.method)),
    raw: () =>
      requests
        .filter((r) => r.method === 'eth_sendRawTransaction')
        .map((r) => parseTransaction(r.params[0] as Hex)),
  }
}

let fake: FakeGuard | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

function wallet(transport: ReturnType<typeof fakeChain>['transport']) {
  return createWalletClient({ account, chain: base, transport })
}
type WalletWithAccount = ReturnType<typeof wallet>

async function setup(guardOptions: FakeGuardOptions = {}) {
  fake = await startFakeGuard(guardOptions)
  const chain = fakeChain()
  const client = () => wallet(chain.transport)
  return { fake, chain, client }
}

const blockEverything = { preflight: () => preflightResult({ verdict: 'block' }) }

/** The guard's own error inside viem's wrappers (actions added later are not unwrapped). */
function guardCause(error: unknown): unknown {
  let cause = error
  while (cause instanceof Error) {
    if (cause instanceof PreSendGuardError) return cause
    cause = cause.cause
  }
  return error
}

describe('the guarded transport', () => {
  it('refuses actions added before wrapping and checks those added after', async () => {
    const { fake, chain, client } = await setup(blockEverything)
    const withdrawal = { request: { gas: 21_000n, to: account.address, value: parseEther('1') } }

    const early = withPreSendGuard(client().extend(walletActionsL2()), { guard: fake.baseUrl })
    await expect(early.initiateWithdrawal(withdrawal)).rejects.toBeInstanceOf(
      TransactionNotCheckableError,
    )
    expect(fake.preflights).toHaveLength(0)

    const late = withPreSendGuard(client(), { guard: fake.baseUrl }).extend(walletActionsL2())
    const error = await late.initiateWithdrawal(withdrawal).catch((e: unknown) => e)
    expect(guardCause(error)).toBeInstanceOf(TransactionBlockedError)
    expect(fake.preflights).toHaveLength(1)
    expect(fake.preflights[0]).toMatchObject({ to: L2_TO_L1_MESSAGE_PASSER, from: account.address })
    expect(chain.sent()).toEqual([])

    // viem's public actions added before wrapping are bound again, on the guarded transport.
    const withReads = withPreSendGuard(client().extend(publicActions), { guard: fake.baseUrl })
    expect(await withReads.getBalance({ address: recipient })).toBe(0n)
  })

  it('checks what request() sends, signed or not, and refuses what it cannot check', async () => {
    const { fake, chain, client } = await setup({
      preflight: (body) => preflightResult({ verdict: body.value === '0x1' ? 'sign' : 'block' }),
    })
    const w = withPreSendGuard(client(), { guard: fake.baseUrl })
    const sign = async (value: bigint) =>
      account.signTransaction(
        (await client().prepareTransactionRequest({ to: recipient, value })) as never,
      )

    await expect(
      w.request({ method: 'eth_sendRawTransaction', params: [await sign(2n)] }),
    ).rejects.toBeInstanceOf(TransactionBlockedError)
    await expect(
      w.request({
        method: 'eth_sendTransaction',
        params: [{ from: account.address, to: recipient, value: '0x2', chainId: '0x2105' }],
      } as never),
    ).rejects.toBeInstanceOf(TransactionBlockedError)
    expect(chain.sent()).toEqual([])
    expect(fake.preflights.map((p) => p.from)).toEqual([account.address, account.address])

    // A benign one passes; the sender is recovered from the signature.
    await w.request({ method: 'eth_sendRawTransaction', params: [await sign(1n)] })
    expect(chain.raw().map((t) => t.value)).toEqual([1n])

    for (const method of ['wallet_sendCalls', 'eth_signTransaction', 'eth_sendBundle']) {
      await expect(w.request({ method, params: [{}] } as never)).rejects.toBeInstanceOf(
        TransactionNotCheckableError,
      )
    }
    await expect(
      w.request({ method: 'eth_sendRawTransaction', params: ['0x02'] }),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)
    await expect(
      w.request({
        method: 'eth_sendTransaction',
        params: [{ from: account.address, value: '0x1', chainId: '0x2105' }],
      } as never),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)
    expect(chain.raw()).toHaveLength(1)
    // Reads pass untouched.
    expect(await w.request({ method: 'eth_blockNumber' } as never)).toBe('0x10')
  })

  // EIP-7702 authorizations are judged, not refused: test/buyer/viem-guard-authorization.test.ts.
  it('refuses to sign transactions', async () => {
    const { fake, client } = await setup()
    const w = withPreSendGuard(client(), { guard: fake.baseUrl })
    await expect(w.signTransaction({ to: recipient, value: 1n } as never)).rejects.toBeInstanceOf(
      TransactionNotCheckableError,
    )
  })

  it('asks once per send, for local and JSON-RPC accounts alike', async () => {
    const { fake, chain, client } = await setup()
    const local = withPreSendGuard(client(), { guard: fake.baseUrl })
    await local.sendTransaction({ to: recipient, value: 5n })
    expect(fake.preflights).toHaveLength(1)
    expect(chain.raw().map((t) => t.value)).toEqual([5n])

    const jsonRpc = withPreSendGuard(
      createWalletClient({ account: account.address, chain: base, transport: chain.transport }),
      { guard: fake.baseUrl },
    )
    await jsonRpc.sendTransaction({ to: recipient, value: 6n })
    expect(fake.preflights).toHaveLength(2)
    expect(fake.preflights[1]).toMatchObject({ from: account.address, value: '0x6' })
    expect(chain.sent().map((r) => r.method)).toEqual([
      'eth_sendRawTransaction',
      'eth_sendTransaction',
    ])
  })
})

describe('paid mode', () => {
  function paidWallet(guard: FakeGuard, client: () => WalletWithAccount) {
    return (options: Partial<PreSendGuardOptions> = {}) =>
      withPreSendGuard(client(), {
        guard: createGuardClient({ baseUrl: guard.baseUrl, payer: { account } }),
        mode: 'paid',
        ...options,
      })
  }

  it('resumes a payment whose outcome was unknown instead of paying again', async () => {
    const { fake, chain, client } = await setup({
      // The first attempt of a payment is pending; the same payment again gets the answer.
      paid: (p) => (p.seen === 0 ? settlementPending : genuinePaidReply(p)),
    })
    const w = paidWallet(fake, client)()

    const first = await w.sendTransaction({ to: recipient, value: 7n }).catch((e: unknown) => e)
    expect(first).toBeInstanceOf(GuardUnavailableError)
    expect(chain.sent()).toEqual([])

    await w.sendTransaction({ to: recipient, value: 7n })
    expect(fake.distinctPayments()).toBe(1)
    expect(fake.payments.map((p) => p.header)).toEqual([
      fake.payments[0]!.header,
      fake.payments[0]!.header,
    ])
    expect(chain.raw().map((t) => t.value)).toEqual([7n])
    expect(w.preSendGuard.lastCheck()?.paid?.verification.valid).toBe(true)
    expect((first as GuardUnavailableError).paymentSignature).toBe(fake.payments[0]!.header)
  })

  it('never sends blind once a payment left, even with failClosed: false', async () => {
    const { fake, chain, client } = await setup({ paid: () => settlementPending })
    const told: GuardError[] = []
    const w = paidWallet(
      fake,
      client as never,
    )({
      failClosed: false,
      onGuardUnavailable: (e) => told.push(e),
    })
    await expect(w.sendTransaction({ to: recipient, value: 1n })).rejects.toBeInstanceOf(
      GuardUnavailableError,
    )
    expect(told).toEqual([])
    expect(chain.sent()).toEqual([])
  })

  it('refuses a paid answer whose settlement failed or whose receipt names another payer', async () => {
    for (const paid of [
      (p: Parameters<typeof genuinePaidReply>[0]) =>
        genuinePaidReply(p, { settlement: { success: false, errorReason: 'reverted' } }),
      (p: Parameters<typeof genuinePaidReply>[0]) =>
        genuinePaidReply(p, { receipt: { payer: DEVNET_ACCOUNTS.usdcMinter.address } }),
    ]) {
      const { fake, chain, client } = await setup({ paid })
      const w = paidWallet(fake, client)()
      const error = await w.sendTransaction({ to: recipient, value: 1n }).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'receipt_invalid' })
      expect((error as GuardError).paymentSignature).toBe(fake.payments[0]!.header)
      expect(chain.sent()).toEqual([])
      await fake.close()
    }
  })
})

describe('options', () => {
  it('sends a review only when onReview resolves exactly true', async () => {
    const { fake, chain, client } = await setup({
      preflight: () => preflightResult({ verdict: 'review' }),
    })
    for (const answer of ['yes', 1, {}]) {
      const w = withPreSendGuard(client(), {
        guard: fake.baseUrl,
        onReview: () => answer as never,
      })
      await expect(w.sendTransaction({ to: recipient, value: 1n })).rejects.toBeInstanceOf(
        TransactionNeedsReviewError,
      )
    }
    expect(chain.sent()).toEqual([])
    const approving = withPreSendGuard(client(), { guard: fake.baseUrl, onReview: () => true })
    await approving.sendTransaction({ to: recipient, value: 1n })
    expect(chain.raw()).toHaveLength(1)
  })

  it("uses the guard's fees only within limits, else lets viem estimate", async () => {
    const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas = parseGwei('0.001')) =>
      preflightResult({
        fees: {
          ...(preflightResult().fees as Record<string, string>),
          baseFeePerGas: parseGwei('1').toString(),
          maxFeePerGas: maxFeePerGas.toString(),
          maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
        },
      })
    const cases: [Record<string, unknown>, Partial<PreSendGuardOptions>, boolean][] = [
      [fees(parseGwei('2.001')), {}, true],
      // 500 gwei: above the 10 gwei ceiling.
      [fees(parseGwei('500')), {}, false],
      // 5 gwei with a 1 gwei base fee: above 3 x base fee + tip.
      [fees(parseGwei('5')), {}, false],
      // A tip above the max fee.
      [fees(parseGwei('2'), parseGwei('3')), {}, false],
      // Within the default limits, above the caller's own ceiling.
      [fees(parseGwei('2.001')), { maxSuggestedFeePerGas: parseGwei('2') }, false],
    ]
    for (const [result, options, used] of cases) {
      const { fake, chain, client } = await setup({ preflight: () => result })
      const w = withPreSendGuard(client(), { guard: fake.baseUrl, ...options })
      await w.sendTransaction({ to: recipient, value: 1n })
      const [sent] = chain.raw()
      const suggested = BigInt((result.fees as { maxFeePerGas: string }).maxFeePerGas)
      expect(sent?.maxFeePerGas === suggested, `suggested ${suggested}`).toBe(used)
      // viem's own estimate: 1.2 x base fee + eth_maxPriorityFeePerGas.
      if (!used) expect(sent?.maxFeePerGas).toBe(parseGwei('1.2') + parseGwei('0.001'))
      await fake.close()
    }
  })
})
