import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  maxUint256,
  type PrivateKeyAccount,
  parseEther,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { base, mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGuardClient } from '../../packages/client/src/client/guard-client.js'
import { GuardError } from '../../packages/client/src/client/guard-error.js'
import {
  GuardUnavailableError,
  TransactionBlockedError,
  TransactionNeedsReviewError,
  TransactionNotCheckableError,
} from '../../packages/client/src/viem/pre-send-guard-errors.js'
import {
  type BatchCheck,
  type GuardCheck,
  withPreSendGuard,
} from '../../packages/client/src/viem/viem-guard.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import {
  DEVNET_ACCOUNTS,
  MULTICALL3_ADDRESS,
  USDC_ADDRESS,
} from '../../src/adapters/devnet/prepare.js'
import { usdcBalances } from '../payment/paid-stack.js'
import { preflightApp } from '../support/preflight-app.js'
import { DEAD_URL, type ServedGuard, serveApp, startServedGuard } from '../support/served-guard.js'

/**
 * `withPreSendGuard` in front of a real viem wallet client on a real devnet, asking the real
 * guard over real HTTP. "Nothing sent" is proven by the sender's nonce on chain.
 */
let guard: ServedGuard

beforeAll(async () => {
  guard = await startServedGuard()
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

/** anvil funds its first ten accounts with ETH; #5 and up play no devnet role. */
const sender = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 5 })
const recipient = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 6 }).address

function wallet(account: PrivateKeyAccount | typeof sender = sender, dataSuffix?: `0x${string}`) {
  return createWalletClient({
    account,
    chain: base,
    transport: http(guard.devnet.rpcUrl),
    pollingInterval: 50,
    ...(dataSuffix ? { dataSuffix } : {}),
  })
}

const nonceOf = (address: Address) =>
  guard.rpc.getTransactionCount({ address, blockTag: 'pending' })
const mined = (hash: `0x${string}`) =>
  guard.rpc.waitForTransactionReceipt({ hash, pollingInterval: 50 })
const allowance = () =>
  guard.rpc.readContract({
    address: USDC_ADDRESS,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [sender.address, MULTICALL3_ADDRESS],
  })

describe('sign', () => {
  it("sends a benign transaction, with the guard's suggested fees", async () => {
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    const before = await guard.rpc.getBalance({ address: recipient })

    const hash = await w.sendTransaction({ to: recipient, value: parseEther('0.01') })

    expect((await mined(hash)).status).toBe('success')
    expect((await guard.rpc.getBalance({ address: recipient })) - before).toBe(parseEther('0.01'))
    const check = w.preSendGuard.lastCheck()
    expect(check).toMatchObject({ mode: 'read-only', verdict: 'sign', findings: [] })
    expect(check?.transaction).toEqual({
      chainId: '0x2105',
      from: sender.address,
      to: recipient,
      data: '0x',
      value: '0x2386f26fc10000',
    })
    const sent = await guard.rpc.getTransaction({ hash })
    expect(sent.maxFeePerGas).toBe(BigInt(check!.result.fees.maxFeePerGas))
    expect(sent.maxPriorityFeePerGas).toBe(BigInt(check!.result.fees.maxPriorityFeePerGas))
  })

  it("keeps the caller's fees when it set any", async () => {
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    const hash = await w.sendTransaction({
      to: recipient,
      value: 1n,
      maxFeePerGas: 7_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    })
    const sent = await guard.rpc.getTransaction({ hash })
    expect(sent.maxFeePerGas).toBe(7_000_000_000n)
    expect(sent.maxPriorityFeePerGas).toBe(1_000_000n)
  })

  it('checks the calldata viem actually sends (the client data suffix included)', async () => {
    const reviewed: GuardCheck[] = []
    const w = withPreSendGuard(wallet(sender, '0xdeadbeef'), {
      guard: guard.baseUrl,
      onReview: (check) => {
        reviewed.push(check)
        return true
      },
    })
    const hash = await w.sendTransaction({ to: recipient, data: '0x1234' })
    expect((await guard.rpc.getTransaction({ hash })).input).toBe('0x1234deadbeef')
    expect(reviewed[0]?.transaction.data).toBe('0x1234deadbeef')
  })
})

describe('block', () => {
  it('throws TransactionBlockedError from writeContract without sending', async () => {
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    const nonce = await nonceOf(sender.address)

    const error = await w
      .writeContract({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [USDC_ADDRESS, 10n],
      })
      .catch((e: unknown) => e)

    expect(error).toBeInstanceOf(TransactionBlockedError)
    const blocked = error as TransactionBlockedError
    expect(blocked.findings.map((f) => f.id)).toContain('transfer-to-token-contract')
    expect(blocked.check.verdict).toBe('block')
    expect(blocked.message).toContain('transfer-to-token-contract')

    // The synchronous variants go through the guard too.
    await expect(
      w.writeContractSync({
        address: USDC_ADDRESS,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [USDC_ADDRESS, 10n],
      }),
    ).rejects.toBeInstanceOf(TransactionBlockedError)
    await expect(
      w.sendTransactionSync({ to: recipient, value: parseEther('1000000') }),
    ).rejects.toBeInstanceOf(TransactionBlockedError)
    expect(await nonceOf(sender.address)).toBe(nonce)
  })

  it('throws from sendTransaction, and from sendRawTransaction for a signed one', async () => {
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    const nonce = await nonceOf(sender.address)

    // More value than the sender holds: insufficient-balance (critical).
    await expect(
      w.sendTransaction({ to: recipient, value: parseEther('1000000') }),
    ).rejects.toBeInstanceOf(TransactionBlockedError)

    const request = await wallet().prepareTransactionRequest({
      to: recipient,
      value: parseEther('1000000'),
      gas: 21_000n,
    })
    const serializedTransaction = await sender.signTransaction(request as never)
    await expect(w.sendRawTransaction({ serializedTransaction })).rejects.toBeInstanceOf(
      TransactionBlockedError,
    )
    expect(await nonceOf(sender.address)).toBe(nonce)

    // A benign signed transaction goes through.
    const benign = await wallet().prepareTransactionRequest({ to: recipient, value: 1n })
    const hash = await w.sendRawTransaction({
      serializedTransaction: await sender.signTransaction(benign as never),
    })
    expect((await mined(hash)).status).toBe('success')
    expect(w.preSendGuard.lastCheck()?.transaction.from).toBe(sender.address)
  })
})

describe('review', () => {
  const unlimitedApproval = {
    address: USDC_ADDRESS,
    abi: erc20Abi,
    functionName: 'approve',
    args: [MULTICALL3_ADDRESS, maxUint256],
  } as const

  it('throws TransactionNeedsReviewError without onReview, or when onReview says no', async () => {
    const nonce = await nonceOf(sender.address)
    const strict = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    const error = await strict.writeContract(unlimitedApproval).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransactionNeedsReviewError)
    expect((error as TransactionNeedsReviewError).findings.map((f) => f.id)).toEqual([
      'unlimited-allowance',
    ])

    // viem's token actions go through the guard too.
    await expect(
      strict.token.approve({
        token: USDC_ADDRESS,
        spender: MULTICALL3_ADDRESS,
        amount: maxUint256,
      }),
    ).rejects.toBeInstanceOf(TransactionNeedsReviewError)

    const declined = withPreSendGuard(wallet(), {
      guard: guard.baseUrl,
      onReview: async () => false,
    })
    await expect(declined.writeContract(unlimitedApproval)).rejects.toBeInstanceOf(
      TransactionNeedsReviewError,
    )
    expect(await nonceOf(sender.address)).toBe(nonce)
    expect(await allowance()).toBe(0n)
  })

  it('sends when onReview approves', async () => {
    const seen: GuardCheck[] = []
    const w = withPreSendGuard(wallet(), {
      guard: guard.baseUrl,
      onReview: async (check) => {
        seen.push(check)
        return check.findings.every((f) => f.id === 'unlimited-allowance')
      },
    })
    const hash = await w.writeContract(unlimitedApproval)
    expect((await mined(hash)).status).toBe('success')
    expect(seen.map((c) => c.verdict)).toEqual(['review'])
    expect(await allowance()).toBe(maxUint256)
  })
})

describe('guard unavailable', () => {
  it('fails closed when the guard is down: nothing is sent', async () => {
    const nonce = await nonceOf(sender.address)
    const w = withPreSendGuard(wallet(), { guard: DEAD_URL })
    const error = await w.sendTransaction({ to: recipient, value: 1n }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardUnavailableError)
    expect((error as GuardUnavailableError).cause).toMatchObject({ code: 'guard_unreachable' })
    expect(await nonceOf(sender.address)).toBe(nonce)
  })

  it('fails closed when the guard answers 503, passing on Retry-After', async () => {
    const broken = await serveApp(preflightApp(DEAD_URL, { timeoutMs: 500 }))
    try {
      const nonce = await nonceOf(sender.address)
      const w = withPreSendGuard(wallet(), { guard: broken.baseUrl })
      const error = await w.sendTransaction({ to: recipient, value: 1n }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(GuardUnavailableError)
      expect(error).toMatchObject({ retryAfter: 5, cause: { code: 'rpc_unavailable' } })
      expect(await nonceOf(sender.address)).toBe(nonce)
    } finally {
      await broken.close()
    }
  })

  it('sends blind only with failClosed: false, and says so', async () => {
    const told: GuardError[] = []
    const w = withPreSendGuard(wallet(), {
      guard: DEAD_URL,
      failClosed: false,
      onGuardUnavailable: (e) => told.push(e),
    })
    const hash = await w.sendTransaction({ to: recipient, value: 1n })
    expect((await mined(hash)).status).toBe('success')
    expect(told.map((e) => e.code)).toEqual(['guard_unreachable'])
    expect(w.preSendGuard.lastCheck()).toBeUndefined()
  })

  it('never sends blind on a refusal, even with failClosed: false', async () => {
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl, failClosed: false })
    const nonce = await nonceOf(sender.address)
    // Odd-length calldata: the guard answers 422, which is not "down".
    const error = await w.sendTransaction({ to: recipient, data: '0x123' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GuardError)
    expect(error).toMatchObject({ code: 'invalid_request', status: 422 })
    expect(await nonceOf(sender.address)).toBe(nonce)
  })
})

describe('batches (EIP-5792 sendCalls) go to the bundle route as one', () => {
  it('a batch judged review is not sent; a benign one is asked about as a whole', async () => {
    const nonce = await nonceOf(sender.address)
    const batches: BatchCheck[] = []
    const w = withPreSendGuard(wallet(), {
      guard: guard.baseUrl,
      onBatchCheck: (check) => batches.push(check),
    })
    const review = await w
      .sendCalls({
        calls: [
          { to: recipient, value: 1n },
          { to: recipient, data: '0x12345678' },
        ],
      })
      .catch((e: unknown) => e)
    expect(review).toBeInstanceOf(TransactionNeedsReviewError)
    expect(batches[0]?.verdict).toBe('review')
    expect(batches[0]?.result.transactions.map((t) => t.verdict)).toEqual(['sign', 'review'])
    expect(await nonceOf(sender.address)).toBe(nonce)

    const explicit = await w.preSendGuard.checkBatch([
      { from: sender.address, to: recipient, data: '0x', value: '0x1' },
      { from: sender.address, to: recipient, data: '0x', value: '0x2' },
    ])
    expect(explicit.verdict).toBe('sign')
    expect(explicit.result.netEffects[0]?.summary).toBe('- 0.000000000000000003 ETH')
  })
})

describe('not checkable', () => {
  it('refuses contract creation, batches and other chains without sending', async () => {
    const nonce = await nonceOf(sender.address)
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl })
    await expect(
      w.deployContract({ abi: [], bytecode: '0x6080', account: sender, chain: base }),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)
    // More calls than a bundle holds cannot be judged as one.
    await expect(
      w.sendCalls({ calls: Array.from({ length: 9 }, () => ({ to: recipient, value: 1n })) }),
    ).rejects.toBeInstanceOf(TransactionNotCheckableError)

    const onMainnet = withPreSendGuard(
      createWalletClient({ account: sender, chain: mainnet, transport: http(guard.devnet.rpcUrl) }),
      { guard: guard.baseUrl },
    )
    const error = await onMainnet
      .sendTransaction({ to: recipient, value: 1n })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransactionNotCheckableError)
    expect((error as Error).message).toContain('chain 1')
    expect(await nonceOf(sender.address)).toBe(nonce)
  })

  it('refuses a check from another environment than the wallet expects', async () => {
    const nonce = await nonceOf(sender.address)
    const w = withPreSendGuard(wallet(), { guard: guard.baseUrl, environment: 'mainnet' })
    await expect(w.sendTransaction({ to: recipient, value: 1n })).rejects.toMatchObject({
      code: 'environment_mismatch',
    })
    expect(await nonceOf(sender.address)).toBe(nonce)
  })
})

describe('paid mode', () => {
  it('buys a preflight, keeps its verified receipt, then sends', async () => {
    const buyer = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
    const payTo = DEVNET_ACCOUNTS.payTo.address
    const client = createGuardClient({
      baseUrl: guard.baseUrl,
      payer: {
        account: buyer,
        publicClient: createPublicClient({ transport: http(guard.devnet.rpcUrl) }),
      },
    })
    const checks: GuardCheck[] = []
    const w = withPreSendGuard(wallet(buyer), {
      guard: client,
      mode: 'paid',
      onCheck: (c) => checks.push(c),
    })
    const [usdcBefore, payToBefore] = await usdcBalances(guard.rpc, buyer.address, payTo)
    const ethBefore = await guard.rpc.getBalance({ address: recipient })

    const hash = await w.sendTransaction({ to: recipient, value: parseEther('0.001') })

    expect((await mined(hash)).status).toBe('success')
    expect((await guard.rpc.getBalance({ address: recipient })) - ethBefore).toBe(
      parseEther('0.001'),
    )
    const [usdcAfter, payToAfter] = await usdcBalances(guard.rpc, buyer.address, payTo)
    expect(usdcBefore! - usdcAfter!).toBe(10_000n)
    expect(payToAfter! - payToBefore!).toBe(10_000n)
    expect(checks).toHaveLength(1)
    const paid = checks[0]?.paid
    expect(paid?.verification.valid).toBe(true)
    expect(paid?.receipt).toMatchObject({
      type: 'PRE_SEND_PROOF_RECEIPT',
      verdict: 'sign',
      payer: buyer.address,
      settlementTx: paid?.settlement.transaction,
    })
    expect(w.preSendGuard.lastCheck()).toBe(checks[0])
  })
})
