import fc from 'fast-check'
import {
  type Address,
  bytesToHex,
  getAddress,
  type Hex,
  hexToBytes,
  parseAbi,
  serializeTransaction,
  toHex,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import {
  fjordL1Fee,
  flzCompressLength,
  GAS_PRICE_ORACLE,
  type L1FeeParams,
  unsignedEip1559Bytes,
} from '../../src/domain/preflight/l1-fee.js'
import { clients } from '../support/contracts.js'

/**
 * The L1 data fee computed locally (FastLZ length in TypeScript, Fjord formula) against the
 * GasPriceOracle's own `getL1Fee` on anvil, over many varied transactions and fee parameters.
 * The devnet's oracle computes the FastLZ length in Solidity, independently written from the
 * same algorithm; both are also checked against public vectors (op-geth / besu FastLZ tests).
 */
const ORACLE_ABI = parseAbi([
  'function getL1Fee(bytes) view returns (uint256)',
  'function flzCompressLength(bytes) view returns (uint256)',
  'function l1BaseFee() view returns (uint256)',
  'function blobBaseFee() view returns (uint256)',
  'function baseFeeScalar() view returns (uint32)',
  'function blobBaseFeeScalar() view returns (uint32)',
])

/** Public vectors: op-geth's `TestFlzCompressLen` cases as besu's FastLzTest carries them. */
const CONTRACT_CALL_TX = `0x${[
  '02f901550a758302df1483be21b88304743f94f8',
  '0e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8',
  'e41ef24f3f0000000000000000000000000000000000000000000000',
  '00000000000000006e000000000000000000000000af88d065e77c8c',
  'c2239327c5edb3a432268e5831000000000000000000000000000000',
  '000000000000000000000000000003c1e50000000000000000000000',
  '00000000000000000000000000000000000000000000000000000000',
  '000000000000000000000000000000000000000000000000a0000000',
  '00000000000000000000000000000000000000000000000000000000',
  '148c89ed219d02f1a5be012c689b4f5b731827bebe00000000000000',
  '0000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a36',
  '75a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f61',
  '0222e71b7cec06449cb922b93b6a12744e',
].join('')}` as Hex
const VECTORS: [string, Uint8Array, number][] = [
  ['empty', new Uint8Array(0), 0],
  ['1000 x 0x01', new Uint8Array(1000).fill(1), 21],
  ['1000 zeros', new Uint8Array(1000), 21],
  [
    'empty legacy tx',
    hexToBytes('0xDD80808094095E7BAEA6A6C7C4C2DFEB977EFAC326AF552D878080808080'),
    31,
  ],
  ['contract call tx', hexToBytes(CONTRACT_CALL_TX), 202],
]

let devnet: Devnet
let read: ReturnType<typeof clients>['publicClient']

beforeAll(async () => {
  devnet = await startDevnet()
  read = clients(devnet.rpcUrl).publicClient
}, 60_000)

afterAll(async () => {
  await devnet?.stop()
})

const oracle = async (functionName: 'getL1Fee' | 'flzCompressLength', data: Hex) =>
  (await read.readContract({
    address: GAS_PRICE_ORACLE,
    abi: ORACLE_ABI,
    functionName,
    args: [data],
  } as never)) as bigint

async function params(): Promise<L1FeeParams> {
  const get = (functionName: 'l1BaseFee' | 'blobBaseFee' | 'baseFeeScalar' | 'blobBaseFeeScalar') =>
    read.readContract({ address: GAS_PRICE_ORACLE, abi: ORACLE_ABI, functionName })
  const [l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar] = await Promise.all([
    get('l1BaseFee'),
    get('blobBaseFee'),
    get('baseFeeScalar'),
    get('blobBaseFeeScalar'),
  ])
  return {
    l1BaseFee: BigInt(l1BaseFee),
    blobBaseFee: BigInt(blobBaseFee),
    baseFeeScalar: BigInt(baseFeeScalar),
    blobBaseFeeScalar: BigInt(blobBaseFeeScalar),
  }
}

async function setSlot(slot: number, value: bigint) {
  await read.request({
    method: 'anvil_setStorageAt',
    params: [GAS_PRICE_ORACLE, toHex(slot, { size: 32 }), toHex(value, { size: 32 })],
  } as never)
}

/** Calldata shaped like real transactions: ABI words (addresses, small and large numbers, zero
 * padding), repeated chunks, and plain random bytes, long enough to pass the 8191-byte reach. */
const word = fc.oneof(
  fc.constant(new Uint8Array(32)),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((v) => hexToBytes(toHex(v, { size: 32 }))),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((a) => {
    const w = new Uint8Array(32)
    w.set(a, 12)
    return w
  }),
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
)
const calldata = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  fc
    .tuple(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.array(word, { maxLength: 40 }))
    .map(([selector, words]) => concat([selector, ...words])),
  fc
    .tuple(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 40 }))
    .map(([chunk, times]) => concat(Array(times).fill(chunk))),
  fc
    .tuple(fc.uint8Array({ minLength: 50, maxLength: 200 }), fc.integer({ min: 8000, max: 9000 }))
    .map(([chunk, gap]) =>
      concat([chunk, new Uint8Array(gap).map((_, i) => (i * 7) & 0xff), chunk]),
    ),
)

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

const transaction = fc.record({
  to: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((a) => bytesToHex(a) as Address),
  nonce: fc.integer({ min: 0, max: 1_000_000 }),
  gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
  maxFeePerGas: fc.bigInt({ min: 1_000_000n, max: 10n ** 12n }),
  value: fc.bigInt({ min: 0n, max: 10n ** 24n }),
  data: calldata,
})

describe('FastLZ compressed length', () => {
  it.each(VECTORS)('matches the public vector: %s', async (_name, input, expected) => {
    expect(flzCompressLength(input)).toBe(expected)
    expect(await oracle('flzCompressLength', bytesToHex(input))).toBe(BigInt(expected))
  })
})

describe('the unsigned serialization the fee is measured on', () => {
  it("is viem's serializeTransaction, byte for byte, zeros and extremes included", () => {
    const field = <T>(zero: T, arb: fc.Arbitrary<T>) => fc.oneof(fc.constant(zero), arb)
    fc.assert(
      fc.property(
        fc.record({
          chainId: fc.constantFrom(8453, 84532, 31337, 1),
          nonce: field(0, fc.integer({ min: 1, max: 2 ** 40 })),
          gas: field(0n, fc.bigInt({ min: 1n, max: 2n ** 64n - 1n })),
          maxPriorityFeePerGas: field(0n, fc.bigInt({ min: 1n, max: 10n ** 12n })),
          extraFee: field(0n, fc.bigInt({ min: 1n, max: 2n ** 255n })),
          to: transaction.map((t) => t.to),
          checksummed: fc.boolean(),
          value: field(0n, fc.bigInt({ min: 1n, max: 2n ** 256n - 1n })),
          data: field(new Uint8Array(), calldata),
        }),
        (t) => {
          const to = t.checksummed ? getAddress(t.to) : t.to
          const fields = {
            chainId: t.chainId,
            nonce: t.nonce,
            gas: t.gas,
            maxPriorityFeePerGas: t.maxPriorityFeePerGas,
            maxFeePerGas: t.maxPriorityFeePerGas + t.extraFee,
            to,
            value: t.value,
            data: bytesToHex(t.data),
          }
          expect(bytesToHex(unsignedEip1559Bytes(fields))).toBe(
            serializeTransaction({ type: 'eip1559', ...fields }),
          )
        },
      ),
      { numRuns: 500 },
    )
  })

  it('refuses a fee cap beyond 256 bits or below the tip, as viem does', () => {
    const base = {
      chainId: 8453,
      nonce: 0,
      gas: 21_000n,
      to: GAS_PRICE_ORACLE,
      value: 0n,
      data: '0x' as Hex,
    }
    for (const fees of [
      { maxFeePerGas: 2n ** 256n, maxPriorityFeePerGas: 1n },
      { maxFeePerGas: 1n, maxPriorityFeePerGas: 2n },
    ]) {
      expect(() => unsignedEip1559Bytes({ ...base, ...fees })).toThrow()
      expect(() => serializeTransaction({ type: 'eip1559', ...base, ...fees })).toThrow()
    }
  })
})

describe('the L1 data fee computed locally', () => {
  it("equals the oracle's getL1Fee to the wei over varied transactions", async () => {
    const at = await params()
    await fc.assert(
      fc.asyncProperty(transaction, async (t) => {
        const serialized = serializeTransaction({
          chainId: 8453,
          type: 'eip1559',
          nonce: t.nonce,
          gas: t.gas,
          maxFeePerGas: t.maxFeePerGas,
          maxPriorityFeePerGas: 1_000_000n,
          to: t.to,
          value: t.value,
          data: bytesToHex(t.data),
        })
        const bytes = hexToBytes(serialized)
        expect(BigInt(flzCompressLength(bytes))).toBe(await oracle('flzCompressLength', serialized))
        expect(fjordL1Fee(serialized, at)).toBe(await oracle('getL1Fee', serialized))
        expect(fjordL1Fee(bytes, at)).toBe(fjordL1Fee(serialized, at))
      }),
      { numRuns: 200 },
    )
  }, 120_000)

  it('equals getL1Fee under other fee parameters (Base-sized and extreme)', async () => {
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 1n, max: 10n ** 15n }),
          fc.bigInt({ min: 1n, max: 10n ** 12n }),
          fc.bigInt({ min: 1n, max: 2n ** 32n - 1n }),
          fc.bigInt({ min: 1n, max: 2n ** 32n - 1n }),
          calldata,
          async (l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar, data) => {
            await setSlot(0, l1BaseFee)
            await setSlot(1, blobBaseFee)
            await setSlot(2, baseFeeScalar)
            await setSlot(3, blobBaseFeeScalar)
            const read = await params()
            expect(read).toEqual({ l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar })
            const serialized = bytesToHex(data)
            expect(fjordL1Fee(serialized, read)).toBe(await oracle('getL1Fee', serialized))
          },
        ),
        { numRuns: 40 },
      )
    } finally {
      for (const slot of [0, 1, 2, 3]) await setSlot(slot, 0n)
    }
  }, 120_000)
})
