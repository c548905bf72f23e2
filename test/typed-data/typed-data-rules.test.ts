import { type Address, getAddress, maxUint256, parseEther, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MULTICALL3_ADDRESS, USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { TYPED_DATA_RULES } from '../../src/domain/typed-data/typed-data-rules.js'
import { clients, loadArtifact, testAccount } from '../support/contracts.js'
import {
  DAI_PERMIT_TYPES,
  PERMIT_BATCH_TYPES,
  PERMIT_SINGLE_TYPES,
  PERMIT2_ADDRESS,
  SAFE_TX_TYPES,
  SEAPORT_TYPES,
  ZERO_BYTES32,
} from '../support/typed-data-kinds.js'
import { PERMIT_TYPES } from '../support/usdc-typed-data.js'
import {
  idsOf,
  screenTypedData,
  startTypedDataChain,
  type TypedDataChain,
} from './typed-data-chain.js'

/**
 * Every typed-data rule through the real app against real compiled contracts on a real anvil:
 * a request that fires it and a benign twin that does not, plus the must-hold cases.
 */

const owner = testAccount(7)
const OWNER = owner.address
/** Never used on the devnet: no code. */
const NOBODY: Address = getAddress('0x00000000000000000000000000000000c0dec0de')
/** A contract spender (Multicall3 is on the devnet). */
const ROUTER = MULTICALL3_ADDRESS
const MAX_UINT160 = 2n ** 160n - 1n
const ZERO: Address = '0x0000000000000000000000000000000000000000'

let chain: TypedDataChain
/** Rules shown firing with a benign twin; the last test checks every rule is among them. */
const covered = new Set<string>()

beforeAll(async () => {
  chain = await startTypedDataChain()
}, 120_000)

afterAll(async () => {
  await chain?.stop()
})

const PERMIT2_DOMAIN_TYPES = [
  { name: 'name', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

function permitSingle(o: {
  spender: Address
  amount: bigint
  expiration: bigint
  sigDeadline?: bigint
  nonce?: number
  verifyingContract?: Address
}) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: 'Permit2',
        chainId: 8453,
        verifyingContract: o.verifyingContract ?? PERMIT2_ADDRESS,
      },
      types: { EIP712Domain: PERMIT2_DOMAIN_TYPES, ...PERMIT_SINGLE_TYPES },
      primaryType: 'PermitSingle',
      message: {
        details: {
          token: chain.token,
          amount: o.amount.toString(),
          expiration: o.expiration.toString(),
          nonce: o.nonce ?? 0,
        },
        spender: o.spender,
        sigDeadline: (o.sigDeadline ?? chain.now + 1800n).toString(),
      },
    },
  }
}

function permit(o: {
  name?: string
  version?: string
  chainId?: number
  verifyingContract?: Address
  spender?: Address
  value?: bigint
  nonce?: number
  deadline?: bigint
}) {
  return {
    signer: OWNER,
    typedData: {
      domain: {
        name: o.name ?? 'Test Token',
        version: o.version ?? '1',
        chainId: o.chainId ?? 8453,
        verifyingContract: o.verifyingContract ?? chain.token,
      },
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: {
        owner: OWNER,
        spender: o.spender ?? ROUTER,
        value: (o.value ?? parseEther('100')).toString(),
        nonce: o.nonce ?? 0,
        deadline: (o.deadline ?? chain.now + 1800n).toString(),
      },
    },
  }
}

describe('must hold', () => {
  it('an unlimited Permit2 PermitSingle to an address without code is block', async () => {
    const { status, body } = await screenTypedData(
      chain,
      permitSingle({ spender: NOBODY, amount: MAX_UINT160, expiration: 2n ** 48n - 1n }),
    )
    expect(status).toBe(200)
    expect(body.kind).toBe('permit2-permit-single')
    expect(body.verdict).toBe('block')
    expect(idsOf(body)).toEqual(
      expect.arrayContaining(['permit-spender-no-code', 'permit-unlimited']),
    )
    const noCode = body.findings.find((f) => f.id === 'permit-spender-no-code')
    expect(noCode?.detail).toContain(NOBODY)
  })

  it('the same permit to a contract spender, bounded, expiring in 30 minutes is sign', async () => {
    const { body } = await screenTypedData(
      chain,
      permitSingle({ spender: ROUTER, amount: parseEther('250'), expiration: chain.now + 1800n }),
    )
    expect(body.verdict).toBe('sign')
    expect(body.findings).toEqual([])
    expect(body.chainFacts).toMatchObject({
      contractDomain: { source: 'permit2', name: 'Permit2', verifyingContract: PERMIT2_ADDRESS },
      nonces: [{ kind: 'permit2-allowance', status: 'current', current: '0' }],
      spenders: [{ address: ROUTER, hasCode: true }],
    })
    // Amounts come in token units where decimals are readable.
    expect(body.grants).toMatchObject([
      { amount: parseEther('250').toString(), decimals: 18, symbol: 'TST' },
    ])
  })

  it("a Permit claiming USDC's name and version at another contract is not sign, naming both addresses", async () => {
    const { body } = await screenTypedData(chain, permit({ name: 'USD Coin', version: '2' }))
    expect(body.verdict).not.toBe('sign')
    const mismatch = body.findings.find((f) => f.id === 'typed-data-domain-mismatch')
    expect(mismatch?.severity).toBe('critical')
    expect(mismatch?.detail).toContain(chain.token)
    expect(mismatch?.detail).toContain(USDC_ADDRESS)
    expect(mismatch?.detail).toContain('"Test Token"')
  })
})

describe('each rule fires, and its benign twin does not', () => {
  async function pair(
    rule: string,
    firing: { signer: Address; typedData: unknown },
    benign: { signer: Address; typedData: unknown },
  ) {
    const fired = await screenTypedData(chain, firing)
    const twin = await screenTypedData(chain, benign)
    expect(fired.status, fired.text).toBe(200)
    expect(twin.status, twin.text).toBe(200)
    expect(idsOf(fired.body), fired.text).toContain(rule)
    expect(idsOf(twin.body), twin.text).not.toContain(rule)
    covered.add(rule)
    return { fired: fired.body, twin: twin.body }
  }

  it('typed-data-foreign-chain', async () => {
    const { fired, twin } = await pair(
      'typed-data-foreign-chain',
      permit({ chainId: 1 }),
      permit({}),
    )
    expect(fired.verdict).toBe('block')
    expect(twin.verdict).toBe('sign')
  })

  it('typed-data-verifier-no-code', async () => {
    await pair(
      'typed-data-verifier-no-code',
      permitSingle({
        spender: ROUTER,
        amount: 1n,
        expiration: chain.now + 60n,
        verifyingContract: NOBODY,
      }),
      permitSingle({ spender: ROUTER, amount: 1n, expiration: chain.now + 60n }),
    )
  })

  it("typed-data-domain-mismatch: the contract's own EIP-5267 domain, and Permit2's name elsewhere", async () => {
    await pair('typed-data-domain-mismatch', permit({ version: '2' }), permit({}))
    const { fired } = await pair(
      'typed-data-domain-mismatch',
      permitSingle({
        spender: ROUTER,
        amount: 1n,
        expiration: chain.now + 60n,
        verifyingContract: chain.seaport,
      }),
      permitSingle({ spender: ROUTER, amount: 1n, expiration: chain.now + 60n }),
    )
    const detail = fired.findings.find((f) => f.id === 'typed-data-domain-mismatch')?.detail
    expect(detail).toContain(chain.seaport)
    expect(detail).toContain(PERMIT2_ADDRESS)
  })

  it('typed-data-domain-mismatch on real USDC: its own domain is sign', async () => {
    const usdc = permit({
      name: 'USD Coin',
      version: '2',
      verifyingContract: USDC_ADDRESS,
      value: 5_000_000n,
    })
    const { body } = await screenTypedData(chain, usdc)
    expect(body.verdict).toBe('sign')
    expect(body.grants).toMatchObject([{ amount: '5000000', decimals: 6, symbol: 'USDC' }])
  })

  it('permit-spender-no-code', async () => {
    const { fired } = await pair('permit-spender-no-code', permit({ spender: NOBODY }), permit({}))
    expect(fired.verdict).toBe('block')
  })

  it('permit-unlimited, in token units', async () => {
    const { fired, twin } = await pair(
      'permit-unlimited',
      permit({ value: maxUint256 }),
      permit({ value: parseEther('100') }),
    )
    expect(fired.verdict).toBe('review')
    expect(twin.verdict).toBe('sign')
    expect(fired.findings.find((f) => f.id === 'permit-unlimited')?.detail).toContain(' TST)')
  })

  it('permit-unlimited and typed-data-far-deadline for a DAI permit (allowed, expiry 0 = never)', async () => {
    const dai = (allowed: boolean, expiry: bigint) => ({
      signer: OWNER,
      typedData: {
        domain: { name: 'Test Token', version: '1', chainId: 8453, verifyingContract: chain.token },
        types: DAI_PERMIT_TYPES,
        primaryType: 'Permit',
        message: { holder: OWNER, spender: ROUTER, nonce: 0, expiry: expiry.toString(), allowed },
      },
    })
    const { fired } = await pair('permit-unlimited', dai(true, 0n), dai(false, chain.now + 600n))
    expect(fired.kind).toBe('dai-permit')
    expect(fired.findings.find((f) => f.id === 'typed-data-far-deadline')?.detail).toContain(
      'never expires',
    )
    await pair('typed-data-far-deadline', dai(true, 0n), dai(true, chain.now + 600n))
  })

  it('typed-data-far-deadline', async () => {
    await pair(
      'typed-data-far-deadline',
      permit({ deadline: maxUint256 }),
      permit({ deadline: chain.now + 1800n }),
    )
    await pair(
      'typed-data-far-deadline',
      permitSingle({ spender: ROUTER, amount: 1n, expiration: chain.now + 400n * 86_400n }),
      permitSingle({ spender: ROUTER, amount: 1n, expiration: chain.now + 1800n }),
    )
  })

  it('permit-nonce-not-current: a future EIP-2612 nonce, and a Permit2 nonce invalidated on chain', async () => {
    await pair('permit-nonce-not-current', permit({ nonce: 5 }), permit({ nonce: 0 }))
    // The owner really moves its Permit2 nonce (token, spender) forward: 0 is then used, 3 current.
    const { publicClient, walletClient } = clients(chain.devnet.rpcUrl, owner)
    const hash = await walletClient.writeContract({
      address: PERMIT2_ADDRESS,
      abi: loadArtifact('TestPermit2').abi,
      functionName: 'invalidateNonces',
      args: [chain.token, chain.safe, 3],
    })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    const { fired } = await pair(
      'permit-nonce-not-current',
      permitSingle({ spender: chain.safe, amount: 1n, expiration: 0n, nonce: 0 }),
      permitSingle({ spender: chain.safe, amount: 1n, expiration: 0n, nonce: 3 }),
    )
    expect(fired.findings.find((f) => f.id === 'permit-nonce-not-current')?.detail).toContain(
      'already used',
    )
  })

  it('permit2-batch-many-tokens', async () => {
    const batch = (tokens: Address[]) => ({
      signer: OWNER,
      typedData: {
        domain: { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS },
        types: PERMIT_BATCH_TYPES,
        primaryType: 'PermitBatch',
        message: {
          details: tokens.map((token) => ({
            token,
            amount: '1000',
            expiration: (chain.now + 600n).toString(),
            nonce: 0,
          })),
          spender: ROUTER,
          sigDeadline: (chain.now + 600n).toString(),
        },
      },
    })
    const { fired, twin } = await pair(
      'permit2-batch-many-tokens',
      batch([chain.token, ...chain.others]),
      batch([chain.token, chain.others[0] as Address]),
    )
    expect(fired.verdict).toBe('review')
    expect(twin.verdict).toBe('sign')
  })

  it('seaport-order-for-nothing', async () => {
    const order = (paidToOfferer: bigint) => ({
      signer: OWNER,
      typedData: {
        domain: {
          name: 'Seaport',
          version: '1.6',
          chainId: 8453,
          verifyingContract: chain.seaport,
        },
        types: SEAPORT_TYPES,
        primaryType: 'OrderComponents',
        message: {
          offerer: OWNER,
          zone: ZERO,
          offer: [
            {
              itemType: 2,
              token: chain.others[1],
              identifierOrCriteria: '7',
              startAmount: '1',
              endAmount: '1',
            },
          ],
          consideration: [
            {
              itemType: 0,
              token: ZERO,
              identifierOrCriteria: '0',
              startAmount: paidToOfferer.toString(),
              endAmount: paidToOfferer.toString(),
              recipient: OWNER,
            },
            {
              itemType: 0,
              token: ZERO,
              identifierOrCriteria: '0',
              startAmount: '1000',
              endAmount: '1000',
              recipient: NOBODY,
            },
          ],
          orderType: 0,
          startTime: chain.now.toString(),
          endTime: (chain.now + 86_400n).toString(),
          zoneHash: ZERO_BYTES32,
          salt: '1',
          conduitKey: ZERO_BYTES32,
          counter: '0',
        },
      },
    })
    const { fired, twin } = await pair(
      'seaport-order-for-nothing',
      order(1n),
      order(parseEther('1')),
    )
    expect(fired.verdict).toBe('block')
    expect(twin.verdict).toBe('sign')
    expect(fired.kind).toBe('seaport-order')
  })

  it('safe-tx-delegatecall', async () => {
    const safeTx = (operation: number) => ({
      signer: OWNER,
      typedData: {
        domain: { chainId: 8453, verifyingContract: chain.safe },
        types: SAFE_TX_TYPES,
        primaryType: 'SafeTx',
        message: {
          to: chain.token,
          value: '0',
          data: '0x',
          operation,
          safeTxGas: '0',
          baseGas: '0',
          gasPrice: '0',
          gasToken: ZERO,
          refundReceiver: ZERO,
          nonce: '0',
        },
      },
    })
    const { fired, twin } = await pair('safe-tx-delegatecall', safeTx(1), safeTx(0))
    expect(fired.verdict).toBe('block')
    expect(twin.verdict).toBe('sign')
    expect(twin.chainFacts).toMatchObject({
      nonces: [{ kind: 'safe', status: 'current', current: '0' }],
    })
  })

  it('typed-data-unknown (info: sign)', async () => {
    const login = {
      signer: OWNER,
      typedData: {
        domain: { name: 'Example', version: '1', chainId: 8453 },
        types: {
          Login: [
            { name: 'nonce', type: 'string' },
            { name: 'issuedAt', type: 'uint256' },
          ],
        },
        primaryType: 'Login',
        message: { nonce: 'abc', issuedAt: chain.now.toString() },
      },
    }
    const { fired } = await pair('typed-data-unknown', login, permit({}))
    expect(fired.verdict).toBe('sign')
    expect(fired.kind).toBe('unknown')
  })
})

describe('amount units', () => {
  it('gives whole tokens at 6 decimals for USDC', async () => {
    const { body } = await screenTypedData(
      chain,
      permit({
        name: 'USD Coin',
        version: '2',
        verifyingContract: USDC_ADDRESS,
        value: parseUnits('1000000000000000000000000000000000000000', 6),
      }),
    )
    const detail = body.findings.find((f) => f.id === 'permit-unlimited')?.detail
    expect(detail).toContain('(1000000000000000000000000000000000000000 USDC)')
  })
})

describe('coverage', () => {
  it('has a firing case and a benign twin for every typed-data rule', () => {
    expect([...covered].sort()).toEqual(TYPED_DATA_RULES.map((r) => r.id).sort())
  })
})
