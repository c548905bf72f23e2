import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Address,
  createTestClient,
  createWalletClient,
  custom,
  getAddress,
  http,
  type LocalAccount,
  parseUnits,
  verifyTypedData,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/client/src/cli/cli.js'
import { EXIT } from '../../packages/client/src/cli/cli-output.js'
import { createGuardClient } from '../../packages/client/src/client/guard-client.js'
import {
  GuardUnavailableError,
  SignatureBlockedError,
  SignatureNeedsReviewError,
  TransactionNotCheckableError,
} from '../../packages/client/src/viem/pre-send-guard-errors.js'
import {
  type TypedDataCheck,
  withTypedDataGuard,
} from '../../packages/client/src/viem/typed-data-guard.js'
import { withPreSendGuard } from '../../packages/client/src/viem/viem-guard.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import {
  DEVNET_ACCOUNTS,
  MULTICALL3_ADDRESS,
  USDC_ADDRESS,
} from '../../src/adapters/devnet/prepare.js'
import { loadArtifact } from '../support/contracts.js'
import { DEAD_URL, type ServedGuard, startServedGuard } from '../support/served-guard.js'
import { PERMIT_SINGLE_TYPES, PERMIT2_ADDRESS } from '../support/typed-data-kinds.js'

/**
 * The buyer kit in front of signatures: real wallet clients on a real devnet, the real guard
 * served over HTTP. "Nothing signed" means the signing method (the node's
 * `eth_signTypedData_v4`, or the local account's `signTypedData`) was never reached.
 */

const NOBODY: Address = getAddress('0x00000000000000000000000000000000c0dec0de')
/** Anvil account #8: unlocked on the devnet, so the node itself signs for it (JSON-RPC account). */
const SIGNER = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 8 })
let guard: ServedGuard
let now: bigint

beforeAll(async () => {
  guard = await startServedGuard()
  const test = createTestClient({ mode: 'anvil', transport: http(guard.devnet.rpcUrl) })
  // Test fixture: Permit2's domain logic and views at Permit2's address.
  await test.setCode({
    address: PERMIT2_ADDRESS,
    bytecode: loadArtifact('TestPermit2').deployedBytecode,
  })
  await test.mine({ blocks: 1 })
  now = (await guard.rpc.getBlock()).timestamp
}, 60_000)

afterAll(async () => {
  await guard?.stop()
})

function permitSingle(spender: Address, amount: bigint, expiration: bigint) {
  return {
    domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
    types: PERMIT_SINGLE_TYPES,
    primaryType: 'PermitSingle' as const,
    message: {
      details: { token: USDC_ADDRESS, amount, expiration: Number(expiration), nonce: 0 },
      spender,
      sigDeadline: now + 1800n,
    },
  }
}
/** Typed data as a JSON string, as a dapp hands it to `eth_signTypedData_v4`. */
const toJson = (t: unknown) =>
  JSON.stringify(t, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
const dangerous = () => permitSingle(NOBODY, 2n ** 160n - 1n, 2n ** 48n - 1n)
const bounded = () => permitSingle(MULTICALL3_ADDRESS, parseUnits('5', 6), now + 1800n)
const unlimitedToContract = () => permitSingle(MULTICALL3_ADDRESS, 2n ** 160n - 1n, now + 1800n)

/** The devnet's node behind a transport that records every method that reaches it. */
function recordingNode() {
  const methods: string[] = []
  const node = http(guard.devnet.rpcUrl)({ chain: base })
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      methods.push(method)
      return node.request({ method, params } as never)
    },
  })
  return { methods, transport }
}

/** A local account whose signing is counted. */
function countingAccount(index: number) {
  const account = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: index })
  const calls = { typed: 0, raw: 0 }
  const counted: LocalAccount = {
    ...account,
    signTypedData: (p) => {
      calls.typed += 1
      return account.signTypedData(p)
    },
    sign: (p) => {
      calls.raw += 1
      return account.sign(p)
    },
  }
  return { account: counted, calls }
}

describe('the viem guard in front of signTypedData (JSON-RPC account, the node signs)', () => {
  it('blocks a dangerous permit before any signature exists', async () => {
    const { methods, transport } = recordingNode()
    const wallet = withPreSendGuard(
      createWalletClient({ account: SIGNER.address, chain: base, transport }),
      {
        guard: guard.baseUrl,
      },
    )
    const error = await wallet.signTypedData(dangerous()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignatureBlockedError)
    expect((error as SignatureBlockedError).findings.map((f) => f.id)).toContain(
      'permit-spender-no-code',
    )
    expect(methods).not.toContain('eth_signTypedData_v4')
    // The same request made directly on the transport is refused the same way.
    const direct = await wallet
      .request({
        method: 'eth_signTypedData_v4',
        params: [SIGNER.address, toJson(dangerous())],
      } as never)
      .catch((e: unknown) => e)
    expect(direct).toBeInstanceOf(SignatureBlockedError)
    expect(methods).not.toContain('eth_signTypedData_v4')
  })

  it('signs a bounded permit to a contract spender (sign), and the node made the signature', async () => {
    const { methods, transport } = recordingNode()
    const checks: TypedDataCheck[] = []
    const wallet = withPreSendGuard(
      createWalletClient({ account: SIGNER.address, chain: base, transport }),
      {
        guard: guard.baseUrl,
        onTypedDataCheck: (check) => checks.push(check),
      },
    )
    const signature = await wallet.signTypedData(bounded())
    expect(methods).toContain('eth_signTypedData_v4')
    expect(checks.map((c) => c.verdict)).toEqual(['sign'])
    expect(await verifyTypedData({ address: SIGNER.address, signature, ...bounded() })).toBe(true)
  })

  it('asks onTypedDataReview on review, and signs only on an exact true', async () => {
    const { methods, transport } = recordingNode()
    const client = createWalletClient({ account: SIGNER.address, chain: base, transport })
    const refused = await withPreSendGuard(client, {
      guard: guard.baseUrl,
      onTypedDataReview: () => 'yes' as never,
    })
      .signTypedData(unlimitedToContract())
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(SignatureNeedsReviewError)
    expect(methods).not.toContain('eth_signTypedData_v4')
    const approved = withPreSendGuard(client, {
      guard: guard.baseUrl,
      onTypedDataReview: () => true,
    })
    await approved.signTypedData(unlimitedToContract())
    expect(methods).toContain('eth_signTypedData_v4')
  })

  it('refuses raw-hash eth_sign unless allowRawSign', async () => {
    const { methods, transport } = recordingNode()
    const client = createWalletClient({ account: SIGNER.address, chain: base, transport })
    const hash = `0x${'ab'.repeat(32)}`
    const refused = await withPreSendGuard(client, { guard: guard.baseUrl })
      .request({ method: 'eth_sign', params: [SIGNER.address, hash] } as never)
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(TransactionNotCheckableError)
    expect(methods).not.toContain('eth_sign')
    const allowed = withPreSendGuard(client, { guard: guard.baseUrl, allowRawSign: true })
    await expect(
      allowed.request({ method: 'eth_sign', params: [SIGNER.address, hash] } as never),
    ).resolves.toMatch(/^0x[0-9a-f]{130}$/)
    expect(methods).toContain('eth_sign')
  })

  it('fails closed when the guard is down: nothing signed', async () => {
    const { methods, transport } = recordingNode()
    const wallet = withPreSendGuard(
      createWalletClient({ account: SIGNER.address, chain: base, transport }),
      { guard: DEAD_URL },
    )
    await expect(wallet.signTypedData(bounded())).rejects.toBeInstanceOf(GuardUnavailableError)
    expect(methods).not.toContain('eth_signTypedData_v4')
  })
})

describe('the viem guard with a local account (no transport involved in signing)', () => {
  it('blocks before the account signs, through the action, the account and a per-call account', async () => {
    const own = countingAccount(8)
    const other = countingAccount(9)
    const { transport } = recordingNode()
    const wallet = withPreSendGuard(
      createWalletClient({ account: own.account, chain: base, transport }),
      { guard: guard.baseUrl },
    )
    await expect(wallet.signTypedData(dangerous())).rejects.toBeInstanceOf(SignatureBlockedError)
    await expect(wallet.account.signTypedData(dangerous())).rejects.toBeInstanceOf(
      SignatureBlockedError,
    )
    await expect(
      wallet.signTypedData({ ...dangerous(), account: other.account }),
    ).rejects.toBeInstanceOf(SignatureBlockedError)
    await expect(wallet.account.sign?.({ hash: `0x${'ab'.repeat(32)}` })).rejects.toBeInstanceOf(
      TransactionNotCheckableError,
    )
    expect(own.calls).toEqual({ typed: 0, raw: 0 })
    expect(other.calls).toEqual({ typed: 0, raw: 0 })
    const signature = await wallet.signTypedData(bounded())
    expect(own.calls.typed).toBe(1)
    expect(await verifyTypedData({ address: own.account.address, signature, ...bounded() })).toBe(
      true,
    )
  })
})

describe("the kit's own x402 payment", () => {
  it('its TransferWithAuthorization for our paid route is screened as sign, then paid', async () => {
    const discovery = await createGuardClient({ baseUrl: guard.baseUrl }).discovery()
    const checks: TypedDataCheck[] = []
    const buyer = mnemonicToAccount(ANVIL_TEST_MNEMONIC, {
      addressIndex: DEVNET_ACCOUNTS.buyer.index,
    })
    const account = withTypedDataGuard(buyer, {
      guard: guard.baseUrl,
      onCheck: (c) => checks.push(c),
    })
    const client = createGuardClient({ baseUrl: guard.baseUrl, payer: { account } })
    const paid = await client.paidPreflight(
      {
        chainId: '0x2105',
        from: buyer.address,
        to: discovery.payTo as Address,
        data: '0x',
        value: '0x0',
      },
      { discovery },
    )
    expect(paid.result.verdict).toBeDefined()
    expect(checks).toHaveLength(1)
    const [check] = checks
    expect(check?.verdict).toBe('sign')
    expect(check?.findings).toEqual([])
    expect(check?.result.kind).toBe('eip3009-transfer-with-authorization')
    expect(check?.typedData.message).toMatchObject({
      to: discovery.payTo.toLowerCase(),
      value: discovery.amount,
    })
    expect(check?.typedData.domain).toMatchObject({ name: 'USD Coin', version: '2' })
    // Settled on chain: the same authorization screened again reads its nonce as used.
    const again = await client.typedDataPreflight({
      signer: buyer.address,
      typedData: (check as TypedDataCheck).typedData,
    })
    expect(again.verdict).toBe('review')
    expect(again.findings.map((f) => f.id)).toEqual(['permit-nonce-not-current'])
  })
})

describe('CLI', () => {
  function io() {
    const out: string[] = []
    return {
      out,
      io: { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), env: {} },
    }
  }

  it('check-typed: exit code is the verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'typed-'))
    writeFileSync(join(dir, 'ok.json'), toJson(bounded()))
    writeFileSync(join(dir, 'bad.json'), toJson(dangerous()))
    const ok = io()
    expect(
      await runCli(
        [
          'check-typed',
          '--url',
          guard.baseUrl,
          '--file',
          join(dir, 'ok.json'),
          '--signer',
          SIGNER.address,
        ],
        ok.io,
      ),
    ).toBe(EXIT.ok)
    expect(ok.out.join('')).toContain('read as permit2-permit-single')
    const bad = io()
    expect(
      await runCli(
        [
          'check-typed',
          '--url',
          guard.baseUrl,
          '--file',
          join(dir, 'bad.json'),
          '--signer',
          SIGNER.address,
        ],
        bad.io,
      ),
    ).toBe(EXIT.block)
    expect(bad.out.join('')).toContain('[critical] permit-spender-no-code')
    const missing = io()
    expect(
      await runCli(
        ['check-typed', '--url', guard.baseUrl, '--file', join(dir, 'ok.json')],
        missing.io,
      ),
    ).toBe(EXIT.error)
  })

  it('flow screens the payment authorization before signing it', async () => {
    const run = io()
    expect(await runCli(['flow', '--url', guard.baseUrl], run.io)).toBe(EXIT.ok)
    expect(run.out.join('')).toContain(
      'payment authorization screened (eip3009-transfer-with-authorization): SIGN',
    )
  })
})
