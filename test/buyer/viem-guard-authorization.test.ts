import {
  type Address,
  createWalletClient,
  http,
  type LocalAccount,
  type SignedAuthorization,
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { recoverAuthorizationAddress } from 'viem/utils'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  SignatureBlockedError,
  SignatureNeedsReviewError,
  TransactionBlockedError,
  TransactionNotCheckableError,
} from '../../packages/client/src/viem/pre-send-guard-errors.js'
import {
  type AuthorizationCheck,
  withPreSendGuard,
} from '../../packages/client/src/viem/viem-guard.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { SIMPLE_7702_ACCOUNT } from '../../src/domain/account-abstraction/entry-points.js'
import { deploy } from '../support/contracts.js'
import { type ServedGuard, startServedGuard, transactionsSince } from '../support/served-guard.js'

/**
 * EIP-7702 through `withPreSendGuard`: a real viem wallet client on a real devnet, the real guard
 * over real HTTP judging each authorization on its authorization route before anything is
 * signed or sent. "Nothing signed" is proven by the account's own signer never being called;
 * "nothing sent" by the chain.
 */
let guard: ServedGuard
let sweeper: Address
let clean: Address

beforeAll(async () => {
  guard = await startServedGuard()
  sweeper = (await deploy(guard.devnet.rpcUrl, 'SweeperDelegate')).address
  clean = (await deploy(guard.devnet.rpcUrl, 'CleanDelegate')).address
}, 90_000)

afterAll(async () => {
  await guard?.stop()
})

/** anvil funds its first ten accounts; #7 plays no devnet role and pays for type-4 sends. */
const relayer = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 7 })
const recipient = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 6 }).address

/** A fresh key (nonce 0, no code) whose authorization signatures are counted. */
function countingKey() {
  const key = privateKeyToAccount(generatePrivateKey())
  const signed: unknown[] = []
  const account: LocalAccount = {
    ...key,
    async signAuthorization(authorization) {
      signed.push(authorization)
      return key.signAuthorization(authorization)
    },
  }
  return { key, account, signed }
}

function wallet(account: LocalAccount) {
  return createWalletClient({
    account,
    chain: base,
    transport: http(guard.devnet.rpcUrl),
    pollingInterval: 50,
  })
}

describe('signAuthorization', () => {
  it('signs a delegation to Simple7702Account, judged as the tuple viem fills', async () => {
    const { account, signed } = countingKey()
    const checks: AuthorizationCheck[] = []
    const w = withPreSendGuard(wallet(account), {
      guard: guard.baseUrl,
      onAuthorizationCheck: (check) => checks.push(check),
    })

    const authorization = await w.signAuthorization({ contractAddress: SIMPLE_7702_ACCOUNT })

    expect(authorization).toMatchObject({ address: SIMPLE_7702_ACCOUNT, chainId: 8453, nonce: 0 })
    expect(await recoverAuthorizationAddress({ authorization })).toBe(account.address)
    expect(signed).toHaveLength(1)
    expect(checks).toHaveLength(1)
    expect(checks[0]).toMatchObject({
      authority: account.address,
      authorization: { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x0' },
      verdict: 'sign',
    })
    expect(checks[0]?.result.delegate.recognised?.id).toBe('simple-7702-account')
  })

  it("judges and signs viem's nonce for `executor: 'self'` (the pending nonce + 1)", async () => {
    const { account } = countingKey()
    const checks: AuthorizationCheck[] = []
    const w = withPreSendGuard(wallet(account), {
      guard: guard.baseUrl,
      onAuthorizationCheck: (check) => checks.push(check),
    })
    const authorization = await w.signAuthorization({
      address: SIMPLE_7702_ACCOUNT,
      executor: 'self',
    })
    expect(authorization.nonce).toBe(1)
    expect(checks[0]?.authorization.nonce).toBe('0x1')
    expect(checks[0]?.result.authorization.appliesWhen).toBe('sent-by-authority')
  })

  it('throws SignatureBlockedError for a sweeper and signs nothing', async () => {
    const { account, signed } = countingKey()
    const w = withPreSendGuard(wallet(account), { guard: guard.baseUrl })

    const error = await w.signAuthorization({ address: sweeper }).catch((e: unknown) => e)

    expect(error).toBeInstanceOf(SignatureBlockedError)
    const check = (error as SignatureBlockedError).check as AuthorizationCheck
    expect(check.verdict).toBe('block')
    expect(check.authorization).toMatchObject({ address: sweeper, chainId: '0x2105', nonce: '0x0' })
    expect(signed).toHaveLength(0)
  })

  it('raises SignatureNeedsReviewError for an unknown clean delegate unless onAuthorizationReview approves', async () => {
    const { account, signed } = countingKey()
    const refused = withPreSendGuard(wallet(account), { guard: guard.baseUrl })
    await expect(refused.signAuthorization({ address: clean })).rejects.toBeInstanceOf(
      SignatureNeedsReviewError,
    )
    expect(signed).toHaveLength(0)

    const approving = withPreSendGuard(wallet(account), {
      guard: guard.baseUrl,
      // Only exactly `true` approves.
      onAuthorizationReview: (check) => check.result.probe?.hits?.length === 0,
    })
    const authorization = await approving.signAuthorization({ address: clean })
    expect(authorization.address).toBe(clean)
    expect(signed).toHaveLength(1)
  })
})

describe('prepareAuthorization', () => {
  it('returns the prepared tuple once judged; refuses a sweeper', async () => {
    const { account } = countingKey()
    const w = withPreSendGuard(wallet(account), { guard: guard.baseUrl })
    expect(await w.prepareAuthorization({ address: SIMPLE_7702_ACCOUNT })).toEqual({
      address: SIMPLE_7702_ACCOUNT,
      chainId: 8453,
      nonce: 0,
    })
    await expect(w.prepareAuthorization({ address: sweeper })).rejects.toBeInstanceOf(
      SignatureBlockedError,
    )
  })

  it('preSendGuard.checkAuthorization asks without acting on the verdict', async () => {
    const { account, signed } = countingKey()
    const w = withPreSendGuard(wallet(account), { guard: guard.baseUrl })
    const check = await w.preSendGuard.checkAuthorization({ address: sweeper })
    expect(check.verdict).toBe('block')
    expect(signed).toHaveLength(0)
  })
})

describe('type-4 transactions', () => {
  /** An authorization by a fresh key, for the relayer to send (nonce 0: another account's send). */
  async function authorizedBy(delegate: Address): Promise<{
    authority: Address
    authorization: SignedAuthorization
  }> {
    const key = privateKeyToAccount(generatePrivateKey())
    const authorization = await key.signAuthorization({
      address: delegate,
      chainId: 8453,
      nonce: 0,
    })
    return { authority: key.address, authorization }
  }

  it('sends one delegating to Simple7702Account: the authority is delegated on chain', async () => {
    const { authority, authorization } = await authorizedBy(SIMPLE_7702_ACCOUNT)
    const checks: AuthorizationCheck[] = []
    const observed = withPreSendGuard(wallet(relayer), {
      guard: guard.baseUrl,
      onAuthorizationCheck: (check) => checks.push(check),
    })

    const hash = await observed.sendTransaction({
      to: recipient,
      value: 1n,
      authorizationList: [authorization],
    })

    expect((await guard.rpc.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe(
      'success',
    )
    expect(await guard.rpc.getCode({ address: authority })).toBe(
      `0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`,
    )
    // Judged once (by the named action; the transport saw it approved), signer recovered.
    expect(checks).toHaveLength(1)
    expect(checks[0]).toMatchObject({ authority, verdict: 'sign' })
    expect(observed.preSendGuard.lastCheck()?.transaction).toMatchObject({ to: recipient })
  })

  it('refuses one whose list delegates to a sweeper, before broadcasting: nothing mined', async () => {
    const w = withPreSendGuard(wallet(relayer), { guard: guard.baseUrl })
    const { authority, authorization } = await authorizedBy(sweeper)
    const block = await guard.rpc.getBlockNumber()
    const nonce = await guard.rpc.getTransactionCount({
      address: relayer.address,
      blockTag: 'pending',
    })

    const error = await w
      .sendTransaction({ to: recipient, value: 1n, authorizationList: [authorization] })
      .catch((e: unknown) => e)

    expect(error).toBeInstanceOf(TransactionBlockedError)
    expect((error as TransactionBlockedError).check).toMatchObject({ authority, verdict: 'block' })
    expect(
      await guard.rpc.getTransactionCount({ address: relayer.address, blockTag: 'pending' }),
    ).toBe(nonce)
    expect(await transactionsSince(guard.rpc, block)).toBe(0)
    expect(await guard.rpc.getCode({ address: authority })).toBeUndefined()
  })

  it('refuses a signed type-4 transaction sent raw through the guarded transport', async () => {
    const { authorization } = await authorizedBy(sweeper)
    const serializedTransaction = await wallet(relayer).signTransaction({
      to: recipient,
      value: 1n,
      authorizationList: [authorization],
    })
    const block = await guard.rpc.getBlockNumber()
    const w = withPreSendGuard(wallet(relayer), { guard: guard.baseUrl })
    await expect(w.sendRawTransaction({ serializedTransaction })).rejects.toBeInstanceOf(
      TransactionBlockedError,
    )
    expect(await transactionsSince(guard.rpc, block)).toBe(0)
  })

  it('refuses an authorization it cannot judge (unsigned: no authority), saying why', async () => {
    const w = withPreSendGuard(wallet(relayer), { guard: guard.baseUrl })
    const error = await w
      .sendTransaction({
        to: recipient,
        authorizationList: [
          { address: SIMPLE_7702_ACCOUNT, chainId: 8453, nonce: 0 } as SignedAuthorization,
        ],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransactionNotCheckableError)
    expect((error as Error).message).toMatch(/authorization #0 is unsigned/)
  })
})
