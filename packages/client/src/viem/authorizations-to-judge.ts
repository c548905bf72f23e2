import { type Address, isAddress, isHex, toHex } from 'viem'
import { recoverAuthorizationAddress } from 'viem/utils'
import type { AuthorizationTuple } from '../schemas/requests.js'
import { isPlainObject } from './is-plain-object.js'
import { TransactionNotCheckableError } from './pre-send-guard-errors.js'

/** A signed EIP-7702 authorization as the authorization route takes it: its signer recovered. */
export interface AuthorizationToJudge {
  /** Who signed it: recovered from the signature, never taken from the caller. */
  authority: Address
  /** The tuple in JSON-RPC form, signature included. */
  authorization: AuthorizationTuple
}

/** An unsigned tuple (viem's `prepareAuthorization` result) in the route's JSON-RPC form. */
export function unsignedTuple(prepared: {
  address: Address
  chainId: number | bigint
  nonce: number | bigint
}): AuthorizationTuple {
  return {
    address: prepared.address,
    chainId: toHex(prepared.chainId),
    nonce: toHex(prepared.nonce),
  }
}

/**
 * A type-4 transaction's `authorizationList`, as viem holds it (numbers), as JSON-RPC sends it
 * (hex quantities) or as a parsed signed transaction has it, each entry with its signer
 * recovered. Absent or empty: none. An entry that cannot be judged (unsigned, malformed, a
 * signature that recovers to nobody) refuses the whole transaction, saying which and why.
 */
export async function authorizationsToJudge(list: unknown): Promise<AuthorizationToJudge[]> {
  if (list === undefined || list === null) return []
  if (!Array.isArray(list)) {
    throw new TransactionNotCheckableError('a malformed EIP-7702 authorization list (not a list)')
  }
  return Promise.all(list.map((entry, index) => authorizationToJudge(entry, index)))
}

async function authorizationToJudge(entry: unknown, index: number): Promise<AuthorizationToJudge> {
  const refuse = (why: string) =>
    new TransactionNotCheckableError(`EIP-7702 authorization #${index} ${why}`)
  if (!isPlainObject(entry)) throw refuse('is not an object')
  const delegate = entry.address ?? entry.contractAddress
  if (typeof delegate !== 'string' || !isAddress(delegate, { strict: false })) {
    throw refuse('has no delegate address')
  }
  const chainId = quantity(entry.chainId)
  const nonce = quantity(entry.nonce)
  if (chainId === undefined || nonce === undefined) throw refuse('has a malformed chainId or nonce')
  if (entry.r === undefined || entry.s === undefined) {
    throw refuse('is unsigned: its authority (the signer) cannot be recovered to judge it')
  }
  const r = quantity(entry.r)
  const s = quantity(entry.s)
  const yParity = parity(entry.yParity, entry.v)
  if (
    r === undefined ||
    s === undefined ||
    yParity === undefined ||
    r >= 2n ** 256n ||
    s >= 2n ** 256n
  ) {
    throw refuse('has a malformed signature: its authority cannot be recovered to judge it')
  }
  const signature = { r: toHex(r, { size: 32 }), s: toHex(s, { size: 32 }), yParity }
  let authority: Address
  try {
    // Quantities stay bigints (viem hashes them with numberToHex, which takes either): a chain
    // id or nonce above 2^53 would be rounded as a number.
    authority = await recoverAuthorizationAddress({
      authorization: {
        address: delegate,
        chainId: chainId as unknown as number,
        nonce: nonce as unknown as number,
        ...signature,
      },
    })
  } catch {
    throw refuse('has a signature that recovers to no signer: it cannot be judged')
  }
  return {
    authority,
    authorization: {
      address: delegate,
      chainId: toHex(chainId),
      nonce: toHex(nonce),
      yParity: yParity === 1 ? '0x1' : '0x0',
      r: signature.r,
      s: signature.s,
    },
  }
}

/** A non-negative integer given as a number, a bigint or a hex string; else undefined. */
function quantity(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n ? value : undefined
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
  }
  if (typeof value === 'string' && isHex(value) && value.length > 2) return BigInt(value)
  return undefined
}

/** The signature's y parity from `yParity`, else from a legacy `v` (27/28). */
function parity(yParity: unknown, v: unknown): 0 | 1 | undefined {
  const y = quantity(yParity)
  if (y === 0n || y === 1n) return Number(y) as 0 | 1
  if (yParity !== undefined) return undefined
  const legacy = quantity(v)
  return legacy === 27n ? 0 : legacy === 28n ? 1 : undefined
}
