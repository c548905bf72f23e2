import { hexNumber } from '@pre-send-guard/client/types'
import {
  type Address,
  encodeFunctionData,
  type Hex,
  hexToBytes,
  maxUint256,
  parseAbi,
  toRlp,
} from 'viem'
import { BASE_MAINNET } from '../network/network-profile.js'
import type { CallRequest, SimulatedCall } from './chain-reader.js'

/** OP-stack GasPriceOracle predeploy (one address on every Base network, from viem's chains). */
export const GAS_PRICE_ORACLE: Address = BASE_MAINNET.predeploys.gasPriceOracle

/** The GasPriceOracle parameters the Fjord L1 data fee is computed from, at one block. */
export interface L1FeeParams {
  l1BaseFee: bigint
  blobBaseFee: bigint
  baseFeeScalar: bigint
  blobBaseFeeScalar: bigint
}

const ORACLE_ABI = parseAbi([
  'function l1BaseFee() view returns (uint256)',
  'function blobBaseFee() view returns (uint256)',
  'function baseFeeScalar() view returns (uint32)',
  'function blobBaseFeeScalar() view returns (uint32)',
])
const ZERO: Address = '0x0000000000000000000000000000000000000000'
/** The four parameter getters, in {@link L1FeeParams} field order. */
const PARAM_CALLS: readonly CallRequest[] = (
  ['l1BaseFee', 'blobBaseFee', 'baseFeeScalar', 'blobBaseFeeScalar'] as const
).map((functionName) => ({
  from: ZERO,
  to: GAS_PRICE_ORACLE,
  data: encodeFunctionData({ abi: ORACLE_ABI, functionName }),
  value: 0n,
}))

/**
 * The view calls that read {@link L1FeeParams}, in field order: they ride in the preflight's one
 * wave (as `eth_simulateV1` reads, or as `eth_call`s), so the fee needs no call after the
 * estimate.
 */
export function l1FeeParamCalls(): readonly CallRequest[] {
  return PARAM_CALLS
}

/**
 * The parameters from the return data of {@link l1FeeParamCalls}, in order; undefined when any
 * call failed or answered something other than one word (no oracle there: not an OP chain).
 */
export function l1FeeParamsFrom(returned: readonly (Hex | undefined)[]): L1FeeParams | undefined {
  const words = returned.map((data) =>
    data !== undefined && data.length === 66 ? BigInt(data) : undefined,
  )
  const [l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar] = words
  if (
    l1BaseFee === undefined ||
    blobBaseFee === undefined ||
    baseFeeScalar === undefined ||
    blobBaseFeeScalar === undefined
  )
    return undefined
  // The scalars are uint32 in the oracle: a wider word is garbage, not a scalar.
  if (baseFeeScalar >= 1n << 32n || blobBaseFeeScalar >= 1n << 32n) return undefined
  return { l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar }
}

/** {@link l1FeeParamsFrom} over simulated calls: a reverted call counts as unreadable. */
export function l1FeeParamsFromSimulated(calls: readonly SimulatedCall[]): L1FeeParams | undefined {
  return l1FeeParamsFrom(calls.map((c) => (c.status === 'success' ? c.returnData : undefined)))
}

/** The fields of an unsigned EIP-1559 transaction the L1 data fee is measured on. */
export interface UnsignedEip1559 {
  chainId: number
  nonce: number
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  gas: bigint
  to: Address
  value: bigint
  data: Hex
}

/**
 * The unsigned EIP-1559 serialization (`0x02 || rlp([...])`, empty access list) as bytes: what
 * viem's `serializeTransaction` gives for the same fields (test/preflight/l1-fee.test.ts holds
 * them equal), without its address checksum check, its hex concatenation and the conversion
 * back to bytes, which cost a preflight more than the compression they feed. The fields are
 * ours or validated already; a fee cap beyond 256 bits (from implausible node fee facts) throws.
 */
export function unsignedEip1559Bytes(tx: UnsignedEip1559): Uint8Array {
  if (tx.maxFeePerGas > maxUint256 || tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
    throw new RangeError('fee values no transaction can carry')
  }
  // viem's range checks, bar the sign, cost more than the digits: the fields are ours.
  const quantity = (n: bigint | number): Hex => {
    if (n < 0) throw new RangeError('a negative quantity')
    return n ? hexNumber(n) : '0x'
  }
  const rlp = toRlp(
    [
      hexNumber(tx.chainId),
      quantity(tx.nonce),
      quantity(tx.maxPriorityFeePerGas),
      quantity(tx.maxFeePerGas),
      quantity(tx.gas),
      tx.to,
      quantity(tx.value),
      tx.data,
      [],
    ],
    'bytes',
  )
  const out = new Uint8Array(rlp.length + 1)
  out[0] = 2
  out.set(rlp, 1)
  return out
}

/** Fjord linear-regression parameters (OP-stack GasPriceOracle 1.3.0 and later). */
const COST_INTERCEPT = -42_585_600n
const COST_FASTLZ_COEF = 836_500n
const MIN_TRANSACTION_SIZE_SCALED = 100n * 1_000_000n
/** Scalars carry 6 decimals each; the fee divides both out. */
const SCALAR_DIVISOR = 1_000_000_000_000n
/** What the signature and its RLP overhead add to the unsigned serialization. */
const SIGNATURE_OVERHEAD = 68

/**
 * The L1 data fee (wei) of a transaction, as the GasPriceOracle's `getL1Fee` computes it since
 * Fjord (unchanged by Isthmus and Jovian): the FastLZ-compressed size of the unsigned serialized
 * transaction plus 68 bytes, through the linear regression to an estimated brotli size (at least
 * 100 bytes), times `baseFeeScalar * 16 * l1BaseFee + blobBaseFeeScalar * blobBaseFee`, over 1e12.
 * The Isthmus operator fee is a separate charge (`getOperatorFee`) and is not included.
 */
export function fjordL1Fee(unsignedTx: Hex | Uint8Array, params: L1FeeParams): bigint {
  const bytes = typeof unsignedTx === 'string' ? hexToBytes(unsignedTx) : unsignedTx
  const size = BigInt(flzCompressLength(bytes) + SIGNATURE_OVERHEAD)
  let estimated = COST_INTERCEPT + COST_FASTLZ_COEF * size
  if (estimated < MIN_TRANSACTION_SIZE_SCALED) estimated = MIN_TRANSACTION_SIZE_SCALED
  const feeScaled =
    params.baseFeeScalar * 16n * params.l1BaseFee + params.blobBaseFeeScalar * params.blobBaseFee
  return (estimated * feeScaled) / SCALAR_DIVISOR
}

/** FastLZ level-1 hash table: 2^13 entries, each the last position a 3-byte sequence was seen. */
const HASH_BITS = 13
const MAX_DISTANCE = 0x1fff
/** One table reused across calls (the computation is synchronous), cleared before each use. */
const table = new Uint32Array(1 << HASH_BITS)

/**
 * The length of FastLZ level-1 compression of `input`, exactly as the OP-stack GasPriceOracle
 * measures it (Solady `LibZip.flzCompress(data).length`, op-geth `FlzCompressLen`): only the
 * size is computed, no output is written. Greedy matching over a 13-bit multiplicative hash of
 * 3-byte sequences, matches up to 8191 bytes back; literal runs cost one control byte per 32
 * bytes, a match 2 bytes (length up to 8) or 3, plus 3 per further 262 bytes of length. The
 * last 13 bytes are never searched for matches, as in the reference.
 */
export function flzCompressLength(input: Uint8Array): number {
  const length = input.length
  table.fill(0)
  let size = 0
  const literals = (run: number) => {
    size += 33 * Math.floor(run / 32)
    const rest = run % 32
    if (rest !== 0) size += rest + 1
  }
  const u24 = (i: number) =>
    (input[i] as number) | ((input[i + 1] as number) << 8) | ((input[i + 2] as number) << 16)
  // Bits 19..31 of the 32-bit product (Knuth's multiplicative hash).
  const hash = (v: number) => (Math.imul(2654435769 | 0, v) >>> 19) & MAX_DISTANCE
  const ipLimit = length < 13 ? 0 : length - 13
  let anchor = 0
  let ip = 2
  while (ip < ipLimit) {
    let ref = 0
    let distance = 0
    // Find the next position whose 3 bytes were seen within reach.
    for (;;) {
      const seq = u24(ip)
      const h = hash(seq)
      ref = table[h] as number
      table[h] = ip
      distance = ip - ref
      if (ip >= ipLimit) break
      ip++
      if (distance <= MAX_DISTANCE && seq === u24(ref)) break
    }
    if (ip >= ipLimit) break
    ip--
    if (ip > anchor) literals(ip - anchor)
    // Match length past the first 3 bytes, counted as the reference does (first mismatch + 1),
    // never reading past ipLimit + 9.
    const end = ipLimit + 9 - (ip + 3)
    let l = 0
    while (l < end) {
      const same = input[ref + 3 + l] === input[ip + 3 + l]
      l++
      if (!same) break
    }
    const m = l - 1
    size += 3 * Math.floor(m / 262) + (m % 262 >= 6 ? 3 : 2)
    ip += l
    table[hash(u24(ip))] = ip
    ip++
    table[hash(u24(ip))] = ip
    ip++
    anchor = ip
  }
  literals(length - anchor)
  return size
}
