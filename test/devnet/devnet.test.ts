import {
  createPublicClient,
  createWalletClient,
  getContractAddress,
  type Hex,
  http,
  type PrivateKeyAccount,
  parseAbi,
  parseSignature,
  serializeSignature,
  toHex,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { estimateL1Fee } from 'viem/op-stack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CANONICAL_DEPLOYMENTS } from '../../src/adapters/devnet/account-abstraction.js'
import { ANVIL_TEST_MNEMONIC } from '../../src/adapters/devnet/anvil.js'
import { POOL_USDC } from '../../src/adapters/devnet/base-world.js'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import {
  BUYER_INITIAL_USDC,
  DEVNET_ACCOUNTS,
  GAS_PRICE_ORACLE_ADDRESS,
  MULTICALL3_ADDRESS,
  mintDevnetUsdc,
  prepareDevnet,
  USDC_ADDRESS,
} from '../../src/adapters/devnet/prepare.js'
import {
  ENTRY_POINTS,
  SIMPLE_7702_ACCOUNT,
} from '../../src/domain/account-abstraction/entry-points.js'
import {
  CANCEL_AUTHORIZATION_TYPES,
  PERMIT_TYPES,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  USDC_DOMAIN,
} from '../support/usdc-typed-data.js'

const usdcAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address, address) view returns (uint256)',
  'function nonces(address) view returns (uint256)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function eip712Domain() view returns (bytes1, string, string, uint256, address, bytes32, uint256[])',
  'function authorizationState(address, bytes32) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function mint(address to, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

describe('devnet role accounts', () => {
  it('are anvil test-mnemonic accounts #0-#4, keys and addresses as written', () => {
    for (const [role, account] of Object.entries(DEVNET_ACCOUNTS)) {
      const derived = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: account.index })
      const key = derived.getHdKey().privateKey
      expect({ role, address: derived.address, privateKey: key && toHex(key) }).toEqual({
        role,
        address: account.address,
        privateKey: account.privateKey,
      })
    }
    expect(Object.values(DEVNET_ACCOUNTS).map((a) => a.index)).toEqual([0, 1, 2, 3, 4])
  })
})

const buyer = privateKeyToAccount(DEVNET_ACCOUNTS.buyer.privateKey)
const facilitator = privateKeyToAccount(DEVNET_ACCOUNTS.facilitator.privateKey)
const payTo = DEVNET_ACCOUNTS.payTo.address
// secp256k1 group order, to build the high-s twin of a valid signature.
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

let devnet: Devnet
let nonceCounter = 0

function clients(rpcUrl: string) {
  const transport = http(rpcUrl)
  return {
    pub: createPublicClient({ chain: base, transport, pollingInterval: 50 }),
    wallet: (account: PrivateKeyAccount) =>
      createWalletClient({ chain: base, transport, account, pollingInterval: 50 }),
  }
}

/** A fresh, unique EIP-3009 nonce per call so tests never collide. */
function freshNonce(): Hex {
  nonceCounter += 1
  return toHex(nonceCounter, { size: 32 })
}

async function signTransfer(
  signer: PrivateKeyAccount,
  overrides: Partial<{ value: bigint; validAfter: bigint; validBefore: bigint; to: Hex }> = {},
) {
  const message = {
    from: buyer.address,
    to: overrides.to ?? payTo,
    value: overrides.value ?? 10_000n,
    validAfter: overrides.validAfter ?? 0n,
    validBefore: overrides.validBefore ?? 2n ** 48n,
    nonce: freshNonce(),
  }
  const signature = await signer.signTypedData({
    domain: USDC_DOMAIN,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  })
  return { message, signature }
}

function vrsArgs(m: Awaited<ReturnType<typeof signTransfer>>) {
  const { v, r, s } = parseSignature(m.signature)
  const { from, to, value, validAfter, validBefore, nonce } = m.message
  return [from, to, value, validAfter, validBefore, nonce, Number(v), r, s] as const
}

beforeAll(async () => {
  devnet = await startDevnet()
})

afterAll(async () => {
  await devnet?.stop()
})

describe('startDevnet', () => {
  it('answers eth_chainId 0x2105 on loopback', async () => {
    const response = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(await response.json()).toMatchObject({ result: '0x2105' })
    expect(devnet.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(devnet.chainId).toBe(8453)
  })

  it('derives the well-known anvil role accounts', () => {
    expect(devnet.accounts.facilitator.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(devnet.accounts.buyer.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(devnet.accounts.payTo.address).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC')
    expect(devnet.accounts.receiptSigner.address).toBe('0x90F79bf6EB2c4f870365E785982E1f101E93b906')
    expect(privateKeyToAccount(devnet.accounts.buyer.privateKey).address).toBe(
      devnet.accounts.buyer.address,
    )
  })

  it('places Base-shaped USDC with the buyer funded and payTo empty', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const read = <F extends 'name' | 'symbol' | 'version' | 'decimals' | 'DOMAIN_SEPARATOR'>(
      functionName: F,
    ) => pub.readContract({ address: USDC_ADDRESS, abi: usdcAbi, functionName })
    expect(await read('name')).toBe('USD Coin')
    expect(await read('symbol')).toBe('USDC')
    expect(await read('version')).toBe('2')
    expect(await read('decimals')).toBe(6)
    const balanceOf = (address: Hex) =>
      pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [address],
      })
    expect(await balanceOf(DEVNET_ACCOUNTS.buyer.address)).toBeGreaterThanOrEqual(0n)
    const domainFields = await pub.readContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'eip712Domain',
    })
    expect(domainFields.slice(0, 5)).toEqual(['0x0f', 'USD Coin', '2', 8453n, USDC_ADDRESS])
  })

  it('gives the buyer exactly 1,000 USDC before any payment', async () => {
    const fresh = await startDevnet()
    try {
      const { pub } = clients(fresh.rpcUrl)
      const balanceOf = (address: Hex) =>
        pub.readContract({
          address: USDC_ADDRESS,
          abi: usdcAbi,
          functionName: 'balanceOf',
          args: [address],
        })
      expect(await balanceOf(DEVNET_ACCOUNTS.buyer.address)).toBe(1_000_000_000n)
      expect(await balanceOf(DEVNET_ACCOUNTS.payTo.address)).toBe(0n)
      expect(
        await pub.readContract({
          address: USDC_ADDRESS,
          abi: usdcAbi,
          functionName: 'totalSupply',
        }),
        // Besides the buyer's, only the two WETH/USDC pools' USDC exists (base-world.ts).
      ).toBe(BUYER_INITIAL_USDC + 2n * POOL_USDC)
      expect(await pub.getBalance({ address: DEVNET_ACCOUNTS.buyer.address })).toBeGreaterThan(0n)
    } finally {
      await fresh.stop()
    }
  })
})

describe('DevnetUSDC EIP-3009', () => {
  it('moves funds on a buyer-signed transferWithAuthorization submitted by the facilitator', async () => {
    const { pub, wallet } = clients(devnet.rpcUrl)
    const signed = await signTransfer(buyer, { value: 10_000n })
    const before = await pub.readContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [payTo],
    })
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [buyer.address, signed.message.nonce],
      }),
    ).toBe(false)

    const hash = await wallet(facilitator).writeContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'transferWithAuthorization',
      args: vrsArgs(signed),
    })
    const receipt = await pub.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(facilitator.address.toLowerCase())

    const after = await pub.readContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [payTo],
    })
    expect(after - before).toBe(10_000n)
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [buyer.address, signed.message.nonce],
      }),
    ).toBe(true)

    // Replaying the same authorization fails with FiatToken's reason.
    await expect(
      wallet(facilitator).writeContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'transferWithAuthorization',
        args: vrsArgs(signed),
      }),
    ).rejects.toThrow('FiatTokenV2: authorization is used or canceled')
  })

  it('accepts the bytes-signature overload', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const { message, signature } = await signTransfer(buyer)
    const { from, to, value, validAfter, validBefore, nonce } = message
    await expect(
      pub.simulateContract({
        account: facilitator,
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'transferWithAuthorization',
        args: [from, to, value, validAfter, validBefore, nonce, signature],
      }),
    ).resolves.toBeDefined()
  })

  it.each([
    ['a wrong signer', async () => signTransfer(facilitator), 'FiatTokenV2: invalid signature'],
    [
      'an expired authorization',
      async () => signTransfer(buyer, { validBefore: 1n }),
      'FiatTokenV2: authorization is expired',
    ],
    [
      'a not-yet-valid authorization',
      async () => signTransfer(buyer, { validAfter: 2n ** 40n }),
      'FiatTokenV2: authorization is not yet valid',
    ],
    [
      'more than the balance',
      async () => signTransfer(buyer, { value: 10n ** 18n }),
      'ERC20: transfer amount exceeds balance',
    ],
  ])('rejects %s with a reason', async (_label, sign, reason) => {
    const { pub } = clients(devnet.rpcUrl)
    const signed = await sign()
    await expect(
      pub.simulateContract({
        account: facilitator,
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'transferWithAuthorization',
        args: vrsArgs(signed),
      }),
    ).rejects.toThrow(reason)
  })

  it('rejects the high-s twin of a valid signature', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const { message, signature } = await signTransfer(buyer)
    const { r, s, yParity } = parseSignature(signature)
    const highS = serializeSignature({
      r,
      s: toHex(SECP256K1_N - BigInt(s), { size: 32 }),
      yParity: yParity === 0 ? 1 : 0,
    })
    const { from, to, value, validAfter, validBefore, nonce } = message
    await expect(
      pub.simulateContract({
        account: facilitator,
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'transferWithAuthorization',
        args: [from, to, value, validAfter, validBefore, nonce, highS],
      }),
    ).rejects.toThrow('FiatTokenV2: invalid signature')
  })

  it('lets only the payee submit receiveWithAuthorization', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const { message } = await signTransfer(buyer)
    const { from, to, value, validAfter, validBefore, nonce } = message
    await expect(
      pub.simulateContract({
        account: facilitator,
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'receiveWithAuthorization',
        args: [from, to, value, validAfter, validBefore, nonce, '0x'],
      }),
    ).rejects.toThrow('FiatTokenV2: caller must be the payee')
  })

  it('cancelAuthorization burns a nonce', async () => {
    const { pub, wallet } = clients(devnet.rpcUrl)
    const nonce = freshNonce()
    const signature = await buyer.signTypedData({
      domain: USDC_DOMAIN,
      types: CANCEL_AUTHORIZATION_TYPES,
      primaryType: 'CancelAuthorization',
      message: { authorizer: buyer.address, nonce },
    })
    const hash = await wallet(facilitator).writeContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'cancelAuthorization',
      args: [buyer.address, nonce, signature],
    })
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [buyer.address, nonce],
      }),
    ).toBe(true)
  })

  it('supports EIP-2612 permit', async () => {
    const { pub, wallet } = clients(devnet.rpcUrl)
    const nonce = await pub.readContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'nonces',
      args: [buyer.address],
    })
    const deadline = 2n ** 40n
    const signature = await buyer.signTypedData({
      domain: USDC_DOMAIN,
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: { owner: buyer.address, spender: payTo, value: 123n, nonce, deadline },
    })
    const { v, r, s } = parseSignature(signature)
    const hash = await wallet(facilitator).writeContract({
      address: USDC_ADDRESS,
      abi: usdcAbi,
      functionName: 'permit',
      args: [buyer.address, payTo, 123n, deadline, Number(v), r, s],
    })
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'allowance',
        args: [buyer.address, payTo],
      }),
    ).toBe(123n)
  })

  it('mints only for the devnet minter', async () => {
    const { pub } = clients(devnet.rpcUrl)
    await expect(
      pub.simulateContract({
        account: buyer,
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'mint',
        args: [buyer.address, 1n],
      }),
    ).rejects.toThrow('FiatToken: caller is not a minter')
    const to = DEVNET_ACCOUNTS.receiptSigner.address
    await mintDevnetUsdc(devnet.rpcUrl, to, 5_000_000n)
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [to],
      }),
    ).toBe(5_000_000n)
  })

  it('prepareDevnet is idempotent: it tops the buyer up to 1,000 USDC and never burns', async () => {
    const { pub } = clients(devnet.rpcUrl)
    await prepareDevnet(devnet.rpcUrl)
    await prepareDevnet(devnet.rpcUrl)
    expect(
      await pub.readContract({
        address: USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'balanceOf',
        args: [buyer.address],
      }),
    ).toBe(BUYER_INITIAL_USDC)
    expect(
      await pub.readContract({ address: USDC_ADDRESS, abi: usdcAbi, functionName: 'name' }),
    ).toBe('USD Coin')
  })
})

describe('OP-stack GasPriceOracle', () => {
  it('gives viem estimateL1Fee a non-zero, realistic L1 fee', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const fee = await estimateL1Fee(pub, {
      account: buyer.address,
      to: USDC_ADDRESS,
      data: '0xa9059cbb0000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc0000000000000000000000000000000000000000000000000000000000002710',
    })
    expect(fee).toBeGreaterThan(0n)
    // Base's L1 data fee for an ERC-20 transfer is far below 0.0001 ETH at these parameters.
    expect(fee).toBeLessThan(10n ** 14n)

    const oracleAbi = parseAbi([
      'function getL1FeeUpperBound(uint256) view returns (uint256)',
      'function getL1Fee(bytes) view returns (uint256)',
      'function decimals() view returns (uint256)',
      'function isFjord() view returns (bool)',
    ])
    const upper = await pub.readContract({
      address: GAS_PRICE_ORACLE_ADDRESS,
      abi: oracleAbi,
      functionName: 'getL1FeeUpperBound',
      args: [200n],
    })
    expect(upper).toBeGreaterThan(0n)
    expect(
      await pub.readContract({
        address: GAS_PRICE_ORACLE_ADDRESS,
        abi: oracleAbi,
        functionName: 'decimals',
      }),
    ).toBe(6n)
    expect(
      await pub.readContract({
        address: GAS_PRICE_ORACLE_ADDRESS,
        abi: oracleAbi,
        functionName: 'isFjord',
      }),
    ).toBe(true)
  })
})

describe('Multicall3', () => {
  it('serves viem multicall (aggregate3), keeping a failed call as data', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const results = await pub.multicall({
      multicallAddress: MULTICALL3_ADDRESS,
      contracts: [
        { address: USDC_ADDRESS, abi: usdcAbi, functionName: 'name' },
        { address: USDC_ADDRESS, abi: usdcAbi, functionName: 'decimals' },
        {
          address: USDC_ADDRESS,
          abi: usdcAbi,
          functionName: 'mint',
          args: [buyer.address, 1n],
        },
      ],
    })
    expect(results[0]).toEqual({ status: 'success', result: 'USD Coin' })
    expect(results[1]).toEqual({ status: 'success', result: 6 })
    expect(results[2]?.status).toBe('failure')
  })

  it('answers the block helpers', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const abi = parseAbi([
      'function getChainId() view returns (uint256)',
      'function getEthBalance(address) view returns (uint256)',
      'function getBlockNumber() view returns (uint256)',
    ])
    expect(
      await pub.readContract({ address: MULTICALL3_ADDRESS, abi, functionName: 'getChainId' }),
    ).toBe(8453n)
    expect(
      await pub.readContract({
        address: MULTICALL3_ADDRESS,
        abi,
        functionName: 'getEthBalance',
        args: [buyer.address],
      }),
    ).toBe(await pub.getBalance({ address: buyer.address }))
  })
})

describe('ERC-4337 contracts', () => {
  it('places the canonical EntryPoints and Simple7702Account at their Base addresses, each EntryPoint with its SenderCreator', async () => {
    const { pub } = clients(devnet.rpcUrl)
    for (const d of CANONICAL_DEPLOYMENTS) {
      const code = await pub.getCode({ address: d.address })
      expect(code?.length, d.name).toBeGreaterThan(1000)
    }
    const senderCreator = parseAbi(['function senderCreator() view returns (address)'])
    const created = await pub.readContract({
      address: ENTRY_POINTS['0.8'],
      abi: senderCreator,
      functionName: 'senderCreator',
    })
    // The first contract the EntryPoint created (CREATE, nonce 1), as on Base.
    expect(created).toBe(getContractAddress({ from: ENTRY_POINTS['0.8'], nonce: 1n }))
    expect((await pub.getCode({ address: created }))?.length).toBeGreaterThan(100)
    const supports = parseAbi(['function supportsInterface(bytes4) view returns (bool)'])
    expect(
      await pub.readContract({
        address: SIMPLE_7702_ACCOUNT,
        abi: supports,
        functionName: 'supportsInterface',
        args: ['0x01ffc9a7'],
      }),
    ).toBe(true)
  })

  it('re-preparing deploys nothing twice', async () => {
    const { pub } = clients(devnet.rpcUrl)
    const before = await pub.getBlockNumber()
    await prepareDevnet(devnet.rpcUrl)
    // The top-up mint may mine one block; the deployments none.
    expect((await pub.getBlockNumber()) - before).toBeLessThanOrEqual(1n)
  })
})

describe('stop', () => {
  it('kills the anvil process', async () => {
    const own = await startDevnet()
    expect(() => process.kill(own.pid, 0)).not.toThrow()
    const exits: boolean[] = []
    own.onExit((e) => exits.push(e.expected))
    await own.stop()
    expect(() => process.kill(own.pid, 0)).toThrow()
    expect(exits).toEqual([true])
    await own.stop() // idempotent
  })
})
