import type { JsonValue } from '@pre-send-guard/client/schemas'
import { type Address, parseAbi } from 'viem'
import { BURN_ADDRESSES } from '../evm/burn-addresses.js'
import type { PrivilegedEffect } from './declared-effects.js'
import { addr } from './decoded-args.js'
import type { CallReader, FunctionKey, ProtocolModule } from './protocol-module.js'

/** Ownership and proxies: OpenZeppelin Ownable, ERC1967/UUPS, transparent proxy, ProxyAdmin. */
const ABI = parseAbi([
  'function transferOwnership(address newOwner)',
  'function renounceOwnership()',
  'function upgradeTo(address newImplementation)',
  'function upgradeToAndCall(address newImplementation, bytes data)',
  'function changeAdmin(address newAdmin)',
  'function upgrade(address proxy, address implementation)',
  'function upgradeAndCall(address proxy, address implementation, bytes data)',
])

/** The proxy's own upgrade (`upgradeTo`, `upgradeToAndCall`). */
const upgrade: CallReader<PrivilegedEffect[]> = ({ site, call, args: a }) =>
  privileged('upgrade', site.target, a.newImplementation, call.name)

/** A ProxyAdmin's upgrade of `proxy`. */
const adminUpgrade: CallReader<PrivilegedEffect[]> = ({ call, args: a }) => {
  const proxy = addr(a.proxy)
  return proxy ? privileged('upgrade', proxy, a.implementation, `ProxyAdmin ${call.name}`) : []
}

/** Who owns a contract and what code a proxy runs. */
export const OWNERSHIP = {
  name: 'Ownable and proxies',
  abi: ABI,
  privileged: {
    'transferOwnership(address)': ({ site, args: a }) => {
      const owner = addr(a.newOwner)
      if (!owner) return []
      // Handing ownership to a burn address is a renounce by another name.
      const kind = BURN_ADDRESSES.has(owner.toLowerCase())
        ? 'ownership-renounce'
        : 'ownership-transfer'
      return [{ kind, contract: site.target, subject: owner, via: 'transferOwnership' }]
    },
    'renounceOwnership()': ({ site }) => [
      { kind: 'ownership-renounce', contract: site.target, via: 'renounceOwnership' },
    ],
    'upgradeTo(address)': upgrade,
    'upgradeToAndCall(address,bytes)': upgrade,
    'upgrade(address,address)': adminUpgrade,
    'upgradeAndCall(address,address,bytes)': adminUpgrade,
    'changeAdmin(address)': ({ site, args: a }) =>
      privileged('admin-change', site.target, a.newAdmin, 'changeAdmin'),
  },
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

function privileged(
  kind: PrivilegedEffect['kind'],
  contract: Address,
  subjectValue: JsonValue | undefined,
  via: string,
): PrivilegedEffect[] {
  const subject = addr(subjectValue)
  return [subject ? { kind, contract, subject, via } : { kind, contract, via }]
}
