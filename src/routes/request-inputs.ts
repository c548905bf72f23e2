import type {
  BundleRequestSchema,
  SignedAuthorization,
  TransactionRequestSchema,
  TypedDataRequestSchema,
} from '@pre-send-guard/client/schemas'
import { isBytes32Text, lowerHex } from '@pre-send-guard/client/types'
import { type Address, getAddress, type Hex } from 'viem'
import type { z } from 'zod'
import { checksummed } from '../domain/evm/checksummed.js'
import type { StateOverride, StateOverrides } from '../domain/preflight/chain-reader.js'
import type { SignedAuthorizationInput, TransactionInput } from '../domain/screen/context.js'

// Validated request bodies as the domain takes them. The shapes are declared once, in
// `@pre-send-guard/client/schemas`; the routes validate with them, and these functions only
// normalise what passed: checksummed addresses, lower-case hex, numbers as bigints.

/** A validated transaction body (the free and the paid route, and each transaction of a bundle). */
export type TransactionRequest = z.output<typeof TransactionRequestSchema>
/** A validated bundle body. */
export type BundleRequest = z.output<typeof BundleRequestSchema>
/** A validated typed-data body. */
export type TypedDataRequest = z.output<typeof TypedDataRequestSchema>

/** Normalises a validated request: checksummed addresses, lower-case calldata, value as bigint. */
export function toTransactionInput(
  body: Pick<TransactionRequest, 'from' | 'to' | 'data' | 'value'>,
): TransactionInput {
  const from = checksummed(body.from)
  const to = checksummed(body.to)
  const misspelled = [
    { field: 'from' as const, given: body.from, valid: from },
    { field: 'to' as const, given: body.to, valid: to },
  ]
    .filter((a) => isMixedCase(a.given) && a.given !== a.valid)
    .map(({ field, given }) => ({ field, given }))
  return {
    from,
    to,
    data: lowerHex(body.data),
    value: body.value === undefined ? 0n : BigInt(body.value),
    ...(misspelled.length > 0 ? { misspelled } : {}),
  }
}

/** A spelling that claims an EIP-55 checksum: both cases among its hex letters. */
function isMixedCase(address: string): boolean {
  const hex = address.slice(2)
  return hex !== hex.toLowerCase() && hex !== hex.toUpperCase()
}

/**
 * Overrides keyed by checksummed address, quantities as numbers. One address given twice in two
 * spellings is refused (`duplicate`) rather than merged: which one would win is not obvious.
 */
export function toStateOverrides(
  raw: BundleRequest['stateOverrides'],
): StateOverrides | undefined | { duplicate: string } {
  if (raw === undefined) return undefined
  const out: Record<Address, StateOverride> = {}
  for (const [key, o] of Object.entries(raw)) {
    const address = getAddress(key.toLowerCase())
    if (out[address] !== undefined) return { duplicate: key }
    const entry: StateOverride = {}
    if (o.balance !== undefined) entry.balance = BigInt(o.balance)
    if (o.nonce !== undefined) entry.nonce = Number(BigInt(o.nonce))
    if (o.code !== undefined) entry.code = lowerHex(o.code)
    if (o.state !== undefined) entry.state = lowerSlots(o.state)
    if (o.stateDiff !== undefined) entry.stateDiff = lowerSlots(o.stateDiff)
    out[address] = entry
  }
  return out
}

function lowerSlots(slots: Record<Hex, Hex>): Record<Hex, Hex> {
  const out: Record<Hex, Hex> = {}
  // Every key passed the schema's 32-byte check; the guard only tells TypeScript so.
  for (const [k, v] of Object.entries(slots)) if (isBytes32Text(k)) out[lowerHex(k)] = lowerHex(v)
  return out
}

/** The validated typed-data body as the domain takes it. */
export function toTypedDataInput(body: TypedDataRequest) {
  return {
    signer: body.signer,
    typedData: {
      domain: body.typedData.domain,
      types: body.typedData.types,
      primaryType: body.typedData.primaryType,
      message: body.typedData.message,
    },
  }
}

/** A hex quantity (signature parts in RPC form drop leading zeros) as a 32-byte word. */
export function toWord(quantity: string): Hex {
  return `0x${BigInt(quantity).toString(16).padStart(64, '0')}`
}

/** A validated signed EIP-7702 tuple, normalised: checksummed delegate, bigints, 32-byte r/s. */
export function toSignedAuthorization(a: SignedAuthorization): SignedAuthorizationInput {
  return {
    address: checksummed(a.address),
    chainId: BigInt(a.chainId),
    nonce: BigInt(a.nonce),
    yParity: BigInt(a.yParity) === 1n ? 1 : 0,
    r: toWord(a.r),
    s: toWord(a.s),
  }
}
