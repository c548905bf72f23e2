import { type Address, type Hex, keccak256 } from 'viem'
import { BASE_MAINNET } from '../network/network-profile.js'
import { type NetworkId, servedNetwork } from './network.js'
import type { KnownCodeHash, KnownKind } from './protocol-module.js'
import { PROTOCOL_MODULES } from './protocol-modules.js'

/**
 * A contract the screen trusts for what it is, on the served network: recognised by its
 * canonical address there (with code) or by its code hash anywhere.
 */
export interface KnownCode {
  id: string
  name: string
  kind: KnownKind
  /**
   * Its canonical addresses on the served network. An address counts only when it has code:
   * there it holds the named code (the OP-stack predeploys are fixed by the chain's genesis); a
   * devnet or a fork places the same code there.
   */
  addresses: readonly Address[]
  /** The code anywhere else: a copy at another address is recognised by these hashes only. */
  codes: readonly KnownCodeHash[]
}

/**
 * Every protocol module's contracts, with their addresses on `network` (none where the network
 * has no deployment at a known address).
 */
export function knownCodeOn(network: NetworkId): readonly KnownCode[] {
  return PROTOCOL_MODULES.flatMap((module) =>
    (module.contracts ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      kind: c.kind,
      addresses: c.deployments[network] ?? [],
      codes: c.codes,
    })),
  )
}

/**
 * Known infrastructure and protocols (every protocol module's contracts), with their addresses on
 * Base mainnet, the catalogue's reference network (`network.ts`). Lookups by address use the
 * served network's ({@link recogniseCode}, {@link walletDelegateAt}).
 */
export const KNOWN_CODE: readonly KnownCode[] = knownCodeOn(BASE_MAINNET.id)

/** The known codes by lower-case canonical address, per network, built on first use. */
const byAddressOn = new Map<NetworkId, ReadonlyMap<string, KnownCode>>()

/** The known codes by address on the served network. */
function byAddress(): ReadonlyMap<string, KnownCode> {
  const network = servedNetwork()
  let map = byAddressOn.get(network)
  if (!map) {
    map = new Map(
      knownCodeOn(network).flatMap((k) => k.addresses.map((a) => [a.toLowerCase(), k] as const)),
    )
    byAddressOn.set(network, map)
  }
  return map
}

/** Known codes of one immutable layout, by hash. */
interface Layout {
  immutables: KnownCodeHash['immutables']
  known: Map<string, KnownCode>
}

/** Every known code's hash, by the immutable layout it is computed over. */
const BY_LAYOUT: ReadonlyMap<string, Layout> = (() => {
  const out = new Map<string, Layout>()
  for (const k of KNOWN_CODE) {
    for (const c of k.codes) {
      const layout = JSON.stringify(c.immutables)
      const entry = out.get(layout) ?? { immutables: c.immutables, known: new Map() }
      entry.known.set(c.hash.toLowerCase(), k)
      out.set(layout, entry)
    }
  }
  return out
})()

/** Recent answers by code (bounded: a preflight reads at most 64 codes). */
const recognised = new Map<string, KnownCode | null>()

/**
 * What the code at `address` is, if we know it: by its canonical address on the served network (with code), or
 * by its runtime code hash with immutables zeroed (a copy elsewhere). `code` is what the
 * preflight read at the pinned block; `0x` or unread is never recognised.
 *
 * @example recogniseCode('0x000000000022D473030F116dDEE9F6B43aC78BA3', code)?.kind // 'permit2'
 */
export function recogniseCode(address: string, code: Hex | undefined): KnownCode | undefined {
  if (code === undefined || code === '0x') return undefined
  const atAddress = byAddress().get(address.toLowerCase())
  if (atAddress) return atAddress
  if (BY_LAYOUT.size === 0) return undefined
  const cached = recognised.get(code)
  if (cached !== undefined) return cached ?? undefined
  let found: KnownCode | undefined
  for (const { immutables, known } of BY_LAYOUT.values()) {
    found = known.get(maskedCodeHash(code, immutables))
    if (found) break
  }
  if (recognised.size >= 64) recognised.clear()
  recognised.set(code, found ?? null)
  return found
}

/**
 * The known wallet delegate at a canonical address, without reading its code (on Base the
 * address holds the named code; a devnet places the same code there).
 */
export function walletDelegateAt(address: string): KnownCode | undefined {
  const known = byAddress().get(address.toLowerCase())
  return known?.kind === 'wallet-delegate' ? known : undefined
}

/** keccak256 of `code` with each `[start, length]` byte range zeroed (its immutables). */
export function maskedCodeHash(code: Hex, immutables: KnownCodeHash['immutables']): Hex {
  if (immutables.length === 0) return keccak256(code)
  const bytes = Buffer.from(code.slice(2), 'hex')
  for (const [start, length] of immutables) {
    if (start + length <= bytes.length) bytes.fill(0, start, start + length)
  }
  return keccak256(bytes)
}
