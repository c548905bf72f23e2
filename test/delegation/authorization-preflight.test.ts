import type { AuthorizationResult, BundleResult } from '@pre-send-guard/client/schemas'
import {
  type Address,
  concat,
  createTestClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  parseAbi,
  parseEther,
  zeroAddress,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import metamask from '../../contracts/protocols/metamask/EIP7702StatelessDeleGator.json' with {
  type: 'json',
}
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import { SIMPLE_7702_ACCOUNT } from '../../src/domain/account-abstraction/entry-points.js'
import { clients, deploy } from '../support/contracts.js'
import { startCountingRpc } from '../support/counting-rpc.js'
import { postJson, preflightApp } from '../support/preflight-app.js'

// The contract: the routes' published paths, spelled out.
const BASE_AUTHORIZATION_PREFLIGHT_PATH = '/payanagent/v1/base-authorization-preflight'
const BASE_BUNDLE_PREFLIGHT_PATH = '/payanagent/v1/base-bundle-preflight'

let devnet: Devnet
let app: ReturnType<typeof preflightApp>
let counting: Awaited<ReturnType<typeof startCountingRpc>>
const delegates: Record<string, Address> = {}
const OPERATOR: Address = '0x9a531AF5E0B704F57A70F22cD843a2FaD8D2fed8'

beforeAll(async () => {
  devnet = await startDevnet()
  counting = await startCountingRpc(devnet.rpcUrl, { holdMs: 40 })
  app = preflightApp(counting.url)
  for (const name of [
    'SweeperDelegate',
    'OpenExecutorDelegate',
    'ConstantOperatorDelegate',
    'CleanDelegate',
    'OzEip7702Account',
  ]) {
    delegates[name] = (await deploy(devnet.rpcUrl, name)).address
  }
  delegates.ImmutableOperatorDelegate = (
    await deploy(devnet.rpcUrl, 'ImmutableOperatorDelegate', [OPERATOR])
  ).address
  // MetaMask's delegator, built as on Base (its DelegationManager and EntryPoint v0.7), at a
  // devnet address: recognised by its code, immutables masked.
  const { publicClient, walletClient } = clients(devnet.rpcUrl)
  const hash = await walletClient.sendTransaction({
    data: encodeDeployData({
      abi: metamask.abi,
      bytecode: metamask.bytecode as Hex,
      args: [metamask.deployments.DelegationManager, metamask.deployments.EntryPoint],
    }),
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  delegates.MetaMask = receipt.contractAddress as Address
}, 120_000)

afterAll(async () => {
  await counting?.close()
  await devnet?.stop()
})

const anvil = () => createTestClient({ mode: 'anvil', transport: http(devnet.rpcUrl) })

/** A fresh key account (nonce 0, no code). */
function freshKey(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey())
}

async function signed(
  signer: PrivateKeyAccount,
  delegate: Address,
  options: { chainId?: number; nonce?: number } = {},
) {
  const a = await signer.signAuthorization({
    address: delegate,
    chainId: options.chainId ?? 8453,
    nonce: options.nonce ?? 0,
  })
  return {
    address: a.address,
    chainId: `0x${a.chainId.toString(16)}`,
    nonce: `0x${a.nonce.toString(16)}`,
    yParity: a.yParity === 1 ? '0x1' : '0x0',
    r: a.r,
    s: a.s,
  }
}

async function judge(authority: Address, authorization: unknown): Promise<AuthorizationResult> {
  const response = await postJson(app, BASE_AUTHORIZATION_PREFLIGHT_PATH, {
    authority,
    authorization,
  })
  expect(response.status, await response.clone().text()).toBe(200)
  return (await response.json()) as AuthorizationResult
}

const ids = (r: AuthorizationResult) => r.findings.map((f) => f.id)

describe('POST /payanagent/v1/base-authorization-preflight: recognised wallets', () => {
  it('signs a delegation to Simple7702Account with the right chain and nonce, in one RPC wave', async () => {
    const key = freshKey()
    // The first request of an app reads `latest` before anything else; from then on the head is
    // tracked and confirmed beside the reads.
    await judge(freshKey().address, await signed(freshKey(), SIMPLE_7702_ACCOUNT))
    counting.reset()
    const r = await judge(key.address, await signed(key, SIMPLE_7702_ACCOUNT))
    expect(counting.waves).toBe(1)
    expect(r.verdict).toBe('sign')
    expect(ids(r)).toEqual(['delegate-recognised'])
    expect(r.authorization).toMatchObject({
      signature: 'valid',
      recovered: key.address,
      appliesWhen: 'sent-by-another-account',
    })
    expect(r.delegate.recognised?.id).toBe('simple-7702-account')
    expect(r.probe).toMatchObject({ ran: true, hits: [], ethKept: r.probe?.ethSent })
  })

  it("signs MetaMask's EIP7702StatelessDeleGator, recognised by its code with the immutables masked", async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, delegates.MetaMask as Address))
    expect(r.delegate.recognised?.id).toBe('metamask-eip7702-stateless-delegator')
    expect(r.verdict).toBe('sign')
  })

  it('signs clearing a delegation (the zero address), without a probe', async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, zeroAddress))
    expect(r.verdict).toBe('sign')
    expect(ids(r)).toEqual(['authorization-clears-delegation'])
    expect(r.probe).toBeNull()
  })

  it('judges an unsigned authorization for what signing it would grant', async () => {
    const key = freshKey()
    const r = await judge(key.address, {
      address: SIMPLE_7702_ACCOUNT,
      chainId: '0x2105',
      nonce: '0x0',
    })
    expect(r.verdict).toBe('sign')
    expect(r.authorization.signature).toBe('absent')
    expect(ids(r)).toContain('authorization-unsigned')
  })
})

describe('POST /payanagent/v1/base-authorization-preflight: malicious delegates', () => {
  it('blocks a sweeper whose receive() forwards incoming ETH', async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, delegates.SweeperDelegate as Address))
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('delegate-sweeps-incoming-eth')
    expect(r.probe?.ethKept).toBe('0')
  })

  it('blocks an open executor: a stranger moves the account’s tokens', async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, delegates.OpenExecutorDelegate as Address))
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('delegate-open-to-anyone')
    expect(r.probe?.hits?.[0]).toMatchObject({ how: 'executor' })
  })

  it('blocks a delegate whose constant (PUSH20) operator can sweep the account', async () => {
    const key = freshKey()
    const r = await judge(
      key.address,
      await signed(key, delegates.ConstantOperatorDelegate as Address),
    )
    expect(r.verdict).toBe('block')
    expect(ids(r)).toEqual(['delegate-hard-coded-operator'])
    expect(r.probe?.hardCoded).toContain('0x1E6D7AE25cBfcC1451Be9447973C76589Abee895')
  })

  it('blocks a delegate whose immutable (PUSH32) operator can pull the account’s tokens', async () => {
    const key = freshKey()
    const r = await judge(
      key.address,
      await signed(key, delegates.ImmutableOperatorDelegate as Address),
    )
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('delegate-hard-coded-operator')
    expect(r.probe?.hardCoded).toContain(OPERATOR)
  })

  it('blocks a delegate without code', async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, freshKey().address))
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('delegate-no-code')
  })

  it('blocks an authorization signed by another key', async () => {
    const key = freshKey()
    const other = freshKey()
    const r = await judge(key.address, await signed(other, SIMPLE_7702_ACCOUNT))
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('authorization-signer-mismatch')
    expect(r.authorization).toMatchObject({ signature: 'invalid', recovered: other.address })
  })
})

describe('POST /payanagent/v1/base-authorization-preflight: review', () => {
  it('reviews an unknown delegate whose probe is clean (a probe cannot prove safety)', async () => {
    for (const name of ['CleanDelegate', 'OzEip7702Account']) {
      const key = freshKey()
      const r = await judge(key.address, await signed(key, delegates[name] as Address))
      expect(r.verdict, JSON.stringify(r.findings)).toBe('review')
      expect(ids(r), name).toEqual(['delegate-unknown'])
      expect(r.probe?.hits, name).toEqual([])
    }
  })

  it('never signs an authorization valid on every chain (chain id 0)', async () => {
    const key = freshKey()
    const r = await judge(key.address, await signed(key, SIMPLE_7702_ACCOUNT, { chainId: 0 }))
    expect(r.verdict).toBe('review')
    expect(ids(r)).toContain('authorization-any-chain')
  })

  it('reviews a nonce the chain would skip, and says which sender a nonce fits', async () => {
    const key = freshKey()
    const skipped = await judge(key.address, await signed(key, SIMPLE_7702_ACCOUNT, { nonce: 5 }))
    expect(skipped.verdict).toBe('review')
    expect(ids(skipped)).toContain('authorization-nonce-skipped')
    expect(skipped.authorization.appliesWhen).toBe('not-now')
    const own = await judge(key.address, await signed(key, SIMPLE_7702_ACCOUNT, { nonce: 1 }))
    expect(own.verdict).toBe('sign')
    expect(own.authorization.appliesWhen).toBe('sent-by-authority')
  })

  it('reviews replacing an existing delegation; re-delegating to the same wallet is not a replacement', async () => {
    const key = freshKey()
    const test = anvil()
    await test.setCode({
      address: key.address,
      bytecode: concat(['0xef0100', SIMPLE_7702_ACCOUNT]),
    })
    const replaced = await judge(key.address, await signed(key, delegates.CleanDelegate as Address))
    expect(ids(replaced)).toContain('authorization-replaces-delegation')
    expect(replaced.authority.delegatedTo).toBe(SIMPLE_7702_ACCOUNT)
    const same = await judge(key.address, await signed(key, SIMPLE_7702_ACCOUNT))
    expect(ids(same)).not.toContain('authorization-replaces-delegation')
    expect(same.verdict).toBe('sign')
  })

  it('the probe leaves the real account untouched: its balance and code are as before', async () => {
    const key = freshKey()
    const { publicClient } = clients(devnet.rpcUrl)
    await anvil().setBalance({ address: key.address, value: parseEther('2') })
    await judge(key.address, await signed(key, delegates.SweeperDelegate as Address))
    expect(await publicClient.getBalance({ address: key.address })).toBe(parseEther('2'))
    expect(await publicClient.getCode({ address: key.address })).toBeUndefined()
  })
})

describe('POST /payanagent/v1/base-authorization-preflight: invalid input', () => {
  it.each([
    [
      'a partial signature',
      { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x0', r: '0x1' },
    ],
    [
      'a nonce that is not a quantity',
      { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x00' },
    ],
    [
      'an unknown field',
      { address: SIMPLE_7702_ACCOUNT, chainId: '0x2105', nonce: '0x0', extra: 1 },
    ],
    ['a bad delegate', { address: '0x1234', chainId: '0x2105', nonce: '0x0' }],
  ])('answers 422 invalid_request for %s', async (_, authorization) => {
    const response = await postJson(app, BASE_AUTHORIZATION_PREFLIGHT_PATH, {
      authority: freshKey().address,
      authorization,
    })
    expect(response.status).toBe(422)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request')
  })
})

describe('POST /payanagent/v1/base-bundle-preflight: transactions carrying authorizationList', () => {
  const relayer = privateKeyToAccount(generatePrivateKey())
  beforeAll(async () => {
    await anvil().setBalance({ address: relayer.address, value: parseEther('1') })
  })

  async function bundle(transactions: unknown[]) {
    const response = await postJson(app, BASE_BUNDLE_PREFLIGHT_PATH, { transactions })
    expect(response.status, await response.clone().text()).toBe(200)
    return (await response.json()) as BundleResult
  }

  async function funded(): Promise<PrivateKeyAccount> {
    const key = freshKey()
    await anvil().setBalance({ address: key.address, value: parseEther('1') })
    return key
  }

  it('blocks a bundle whose first transaction delegates the victim to a sweeper', async () => {
    const victim = await funded()
    const r = await bundle([
      {
        from: relayer.address,
        to: victim.address,
        data: '0x',
        authorizationList: [await signed(victim, delegates.SweeperDelegate as Address)],
      },
      { from: relayer.address, to: victim.address, data: '0x', value: '0x2386f26fc10000' },
    ])
    expect(r.verdict).toBe('block')
    const first = r.transactions[0]
    expect(first?.findings).toContainEqual(
      expect.objectContaining({ id: 'delegate-sweeps-incoming-eth', path: 'authorizationList[0]' }),
    )
    // The chain applied it: the second transaction's ETH left the victim at once.
    const second = r.transactions[1]
    const victimChange = second?.effects.available
      ? second.effects.assetChanges.find((a) => a.account === victim.address)
      : undefined
    expect(victimChange?.changes ?? []).toEqual([])
  })

  it('signs delegating to Simple7702Account, then the account paying a friend through it', async () => {
    const owner = await funded()
    const friend = freshKey().address
    const r = await bundle([
      {
        from: relayer.address,
        to: owner.address,
        data: '0x',
        authorizationList: [await signed(owner, SIMPLE_7702_ACCOUNT)],
      },
      {
        from: owner.address,
        to: owner.address,
        data: encodeFunctionData({
          abi: parseAbi(['function execute(address target, uint256 value, bytes data)']),
          functionName: 'execute',
          args: [friend, parseEther('0.1'), '0x'],
        }),
      },
    ])
    expect(r.verdict, JSON.stringify(r.transactions.map((t) => t.findings))).toBe('sign')
    expect(r.transactions[1]?.call.success).toBe(true)
    expect(r.netEffects.find((n) => n.sender === owner.address)?.summary).toContain('ETH')
  })

  it('says the chain skips a tuple whose nonce is not current, and simulates it skipped', async () => {
    const owner = await funded()
    const r = await bundle([
      {
        from: relayer.address,
        to: owner.address,
        data: '0x',
        authorizationList: [await signed(owner, SIMPLE_7702_ACCOUNT, { nonce: 7 })],
      },
      {
        from: relayer.address,
        to: owner.address,
        data: encodeFunctionData({
          abi: parseAbi(['function supportsInterface(bytes4) view returns (bool)']),
          functionName: 'supportsInterface',
          args: ['0x01ffc9a7'],
        }),
      },
    ])
    expect(r.transactions[0]?.findings.map((f) => f.id)).toContain('authorization-nonce-skipped')
    // Not applied: the account still has no code when the second transaction calls it.
    expect(r.transactions[1]?.findings.map((f) => f.id)).toContain('calldata-to-no-code')
  })
})

describe('POST /payanagent/v1/base-authorization-preflight: extreme values', () => {
  it('answers (never a 500) for a 256-bit chain id and a 64-bit nonce with a signature', async () => {
    const key = freshKey()
    const response = await postJson(app, BASE_AUTHORIZATION_PREFLIGHT_PATH, {
      authority: key.address,
      authorization: {
        address: SIMPLE_7702_ACCOUNT,
        chainId: `0x${'f'.repeat(64)}`,
        nonce: `0x${'f'.repeat(16)}`,
        yParity: '0x1',
        r: `0x${'11'.repeat(32)}`,
        s: `0x${'22'.repeat(32)}`,
      },
    })
    expect(response.status).toBe(200)
    const r = (await response.json()) as AuthorizationResult
    expect(r.verdict).toBe('block')
    expect(ids(r)).toContain('authorization-signer-mismatch')
  })
})
