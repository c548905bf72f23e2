import type { Address } from 'viem'
import type { JsonValue } from '../calldata/json-value.js'
import { BURN_ADDRESSES } from './burn-addresses.js'
import { addr, type KnownCallSite } from './call-args.js'

/** A change of who controls a contract or what code it runs. */
export interface PrivilegedEffect {
  kind: 'ownership-transfer' | 'ownership-renounce' | 'upgrade' | 'admin-change'
  contract: Address
  /** New owner, implementation or admin. */
  subject?: Address
  via: string
}

/** The changes of owner, implementation or admin one call makes. */
export function privilegedEffects({ site, call, args: a, key }: KnownCallSite): PrivilegedEffect[] {
  const changes: PrivilegedEffect[] = []
  const target = site.target
  switch (key) {
    case 'transferOwnership(address)': {
      const owner = addr(a.newOwner)
      if (owner) {
        // Handing ownership to a burn address is a renounce by another name.
        const kind = BURN_ADDRESSES.has(owner.toLowerCase())
          ? 'ownership-renounce'
          : 'ownership-transfer'
        changes.push({
          kind,
          contract: target,
          subject: owner,
          via: 'transferOwnership',
        })
      }
      break
    }
    case 'renounceOwnership()':
      changes.push({
        kind: 'ownership-renounce',
        contract: target,
        via: 'renounceOwnership',
      })
      break
    case 'upgradeTo(address)':
    case 'upgradeToAndCall(address,bytes)':
      privileged(changes, 'upgrade', target, a.newImplementation, call.name)
      break
    case 'upgrade(address,address)':
    case 'upgradeAndCall(address,address,bytes)': {
      const proxy = addr(a.proxy)
      if (proxy) privileged(changes, 'upgrade', proxy, a.implementation, `ProxyAdmin ${call.name}`)
      break
    }
    case 'changeAdmin(address)':
      privileged(changes, 'admin-change', target, a.newAdmin, 'changeAdmin')
      break
    default:
      break
  }
  return changes
}

function privileged(
  changes: PrivilegedEffect[],
  kind: PrivilegedEffect['kind'],
  contract: Address,
  subjectValue: JsonValue | undefined,
  via: string,
): void {
  const subject = addr(subjectValue)
  changes.push(subject ? { kind, contract, subject, via } : { kind, contract, via })
}
