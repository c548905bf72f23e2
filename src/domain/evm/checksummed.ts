import { isAddressText } from '@pre-send-guard/client/types'
import { type Address, getAddress } from 'viem'

/** Most entries kept; the cache starts over when full (addresses repeat within a request). */
const CACHE_LIMIT = 4096
const cache = new Map<string, Address>()

/**
 * True when `value` is `0x` and 40 hex digits in any case: what viem's
 * `isAddress(value, { strict: false })` accepts, without its cache's key building and reordering.
 */
export function isAddressShaped(value: unknown): value is Address {
  return isAddressText(value)
}

/**
 * `address` in its EIP-55 checksummed form, as viem's `getAddress` gives it (whatever the case
 * of `address`; throws like `getAddress` when it is not an address). A preflight checksums the
 * same few addresses dozens of times (calldata arguments, call sites, logs); this cache is a
 * plain map keyed by the lower-case form, where viem's LRU reorders itself on every hit.
 *
 * @example checksummed('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc') // '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
 */
export function checksummed(address: string): Address {
  const key = address.toLowerCase()
  const hit = cache.get(key)
  if (hit !== undefined) return hit
  const value = getAddress(key)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(key, value)
  return value
}
