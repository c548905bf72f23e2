import { type Address, maxUint256, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC_ADDRESS } from '../../src/adapters/devnet/prepare.js'
import { TYPED_DATA_RULES } from '../../src/domain/typed-data/typed-data-rules.js'
import { clients, loadArtifact } from '../support/contracts.js'
import {
  DAI_PERMIT_TYPES,
  PERMIT_BATCH_TYPES,
  PERMIT2_ADDRESS,
  SAFE_TX_TYPES,
  SEAPORT_TYPES,
  ZERO_BYTES32,
} from '../support/typed-data-kinds.js'
import {
  BUY_TST,
  cometAuthorization,
  cowOrder,
  morphoAuthorization,
  priorityOrder,
  STRANGER,
  unknownWithdrawal,
} from './protocol-requests.js'
import {
  idsOf,
  screenTypedData,
  startTypedDataChain,
  type TypedDataChain,
} from './typed-data-chain.js'
import { NOBODY, OWNER, owner, permit, permitSingle, ROUTER, ZERO } from './typed-data-requests.js'

/**
 * Every typed-data rule through the real app against real compiled contracts on a real anvil:
 * a request that fires it and a benign twin that does not.
 */

let chain: TypedDataChain

beforeAll(async () => {
  chain = await startTypedDataChain()
}, 120_000)

afterAll(async () => {
  await chain?.stop()
})

/** Rules shown firing with a benign twin; the last test checks every rule is among them. */
const covered = new Set<string>()

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
      permit(chain, { chainId: 1 }),
      permit(chain, {}),
    )
    expect(fired.verdict).toBe('block')
    expect(twin.verdict).toBe('sign')
  })

  it('typed-data-verifier-no-code', async () => {
    await pair(
      'typed-data-verifier-no-code',
      permitSingle(chain, {
        spender: ROUTER,
        amount: 1n,
        expiration: chain.now + 60n,
        verifyingContract: NOBODY,
      }),
      permitSingle(chain, { spender: ROUTER, amount: 1n, expiration: chain.now + 60n }),
    )
  })

  it("typed-data-domain-mismatch: the contract's own EIP-5267 domain, and Permit2's name elsewhere", async () => {
    await pair('typed-data-domain-mismatch', permit(chain, { version: '2' }), permit(chain, {}))
    const { fired } = await pair(
      'typed-data-domain-mismatch',
      permitSingle(chain, {
        spender: ROUTER,
        amount: 1n,
        expiration: chain.now + 60n,
        verifyingContract: chain.seaport,
      }),
      permitSingle(chain, { spender: ROUTER, amount: 1n, expiration: chain.now + 60n }),
    )
    const detail = fired.findings.find((f) => f.id === 'typed-data-domain-mismatch')?.detail
    expect(detail).toContain(chain.seaport)
    expect(detail).toContain(PERMIT2_ADDRESS)
  })

  it('typed-data-domain-mismatch on real USDC: its own domain is sign', async () => {
    const usdc = permit(chain, {
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
    const { fired } = await pair(
      'permit-spender-no-code',
      permit(chain, { spender: NOBODY }),
      permit(chain, {}),
    )
    expect(fired.verdict).toBe('block')
  })

  it('permit-unlimited, in token units', async () => {
    const { fired, twin } = await pair(
      'permit-unlimited',
      permit(chain, { value: maxUint256 }),
      permit(chain, { value: parseEther('100') }),
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
      permit(chain, { deadline: maxUint256 }),
      permit(chain, { deadline: chain.now + 1800n }),
    )
    await pair(
      'typed-data-far-deadline',
      permitSingle(chain, { spender: ROUTER, amount: 1n, expiration: chain.now + 400n * 86_400n }),
      permitSingle(chain, { spender: ROUTER, amount: 1n, expiration: chain.now + 1800n }),
    )
  })

  it('permit-nonce-not-current: a future EIP-2612 nonce, and a Permit2 nonce invalidated on chain', async () => {
    await pair('permit-nonce-not-current', permit(chain, { nonce: 5 }), permit(chain, { nonce: 0 }))
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
      permitSingle(chain, { spender: chain.safe, amount: 1n, expiration: 0n, nonce: 0 }),
      permitSingle(chain, { spender: chain.safe, amount: 1n, expiration: 0n, nonce: 3 }),
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

  it('typed-data-order-pays-third-party: a CoW order whose receiver is a stranger', async () => {
    const { fired, twin } = await pair(
      'typed-data-order-pays-third-party',
      cowOrder(chain, { receiver: STRANGER }),
      cowOrder(chain),
    )
    expect(fired.verdict).toBe('review')
    expect(twin.verdict).toBe('sign')
  })

  it('typed-data-order-fee (info): a UniswapX output of 0.25 % to the interface', async () => {
    const fee = (BUY_TST * 25n) / 9_975n
    const { fired } = await pair(
      'typed-data-order-fee',
      priorityOrder(chain, {
        outputs: [
          { recipient: OWNER, amount: BUY_TST },
          { recipient: STRANGER, amount: fee },
        ],
      }),
      priorityOrder(chain),
    )
    expect(fired.verdict).toBe('sign')
  })

  it('typed-data-order-unknown-reactor: a UniswapX order for a contract that is no reactor', async () => {
    const { fired } = await pair(
      'typed-data-order-unknown-reactor',
      priorityOrder(chain, { reactor: chain.safe }),
      priorityOrder(chain),
    )
    expect(fired.verdict).toBe('review')
  })

  it('typed-data-operator-no-code: Morpho Blue authorization of a key', async () => {
    const { fired } = await pair(
      'typed-data-operator-no-code',
      morphoAuthorization(chain, { authorized: STRANGER }),
      morphoAuthorization(chain, { authorized: OWNER }),
    )
    expect(fired.verdict).toBe('block')
  })

  it('typed-data-operator-contract: Compound III manager that is a contract', async () => {
    const { fired, twin } = await pair(
      'typed-data-operator-contract',
      cometAuthorization(chain, { manager: chain.safe }),
      cometAuthorization(chain, { manager: chain.safe, isAllowed: false }),
    )
    expect(fired.verdict).toBe('review')
    expect(twin.verdict).toBe('sign')
  })

  it('typed-data-unknown-parties: an unknown message for a contract naming a stranger', async () => {
    const login = {
      signer: OWNER,
      typedData: {
        domain: {
          name: 'Seaport',
          version: '1.6',
          chainId: 8453,
          verifyingContract: chain.seaport,
        },
        types: { Login: [{ name: 'nonce', type: 'string' }] },
        primaryType: 'Login',
        message: { nonce: 'abc' },
      },
    }
    const { fired, twin } = await pair(
      'typed-data-unknown-parties',
      unknownWithdrawal(chain, { to: STRANGER }),
      login,
    )
    expect(fired.verdict).toBe('review')
    expect(twin.verdict).toBe('sign')
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
    const { fired } = await pair('typed-data-unknown', login, permit(chain, {}))
    expect(fired.verdict).toBe('sign')
    expect(fired.kind).toBe('unknown')
  })
})

describe('coverage', () => {
  it('has a firing case and a benign twin for every typed-data rule', () => {
    expect([...covered].sort()).toEqual(TYPED_DATA_RULES.map((r) => r.id).sort())
  })
})
