import { isBytes32Text, lowerHex } from '@pre-send-guard/client/types'
import { type Address, type Hex, keccak256, toBytes } from 'viem'
import { addr, big, type KnownCallSite, str } from './call-args.js'

/** A change of who holds a role in an AccessControl contract or who controls a Safe. */
export interface PowerEffect {
  kind:
    | 'role-grant'
    | 'role-revoke'
    | 'role-renounce'
    | 'safe-owner'
    | 'safe-threshold'
    | 'safe-module'
    | 'safe-guard'
    | 'safe-fallback-handler'
  /** The AccessControl contract or the Safe. */
  contract: Address
  /** The account, owner, module, guard or handler the change is about (the one gaining power first). */
  subject?: Address
  /** AccessControl role id (bytes32 hex), for role changes. */
  role?: Hex
  /** What the call does, in words, for the detail text. */
  action: string
}

/** OpenZeppelin AccessControl's `DEFAULT_ADMIN_ROLE`: it grants and revokes every other role. */
export const DEFAULT_ADMIN_ROLE: Hex = `0x${'00'.repeat(32)}`

/** Role names whose `keccak256(name)` ids are in wide use; a detail names them instead of the hash. */
const WELL_KNOWN_ROLES = [
  'MINTER_ROLE',
  'BURNER_ROLE',
  'PAUSER_ROLE',
  'UPGRADER_ROLE',
  'ADMIN_ROLE',
  'OPERATOR_ROLE',
  'MANAGER_ROLE',
  'GOVERNOR_ROLE',
  'GUARDIAN_ROLE',
  'KEEPER_ROLE',
  'EXECUTOR_ROLE',
  'PROPOSER_ROLE',
  'CANCELLER_ROLE',
  'TIMELOCK_ADMIN_ROLE',
  'RELAYER_ROLE',
  'SNAPSHOT_ROLE',
  'URI_SETTER_ROLE',
] as const

const ROLE_NAMES: ReadonlyMap<string, string> = new Map([
  [DEFAULT_ADMIN_ROLE, 'DEFAULT_ADMIN_ROLE'],
  ...WELL_KNOWN_ROLES.map((name) => [keccak256(toBytes(name)), name] as const),
])

/** `MINTER_ROLE (0x9f2d…)`, or the raw id when the role is not a well-known one. */
export function roleName(role: Hex): string {
  const name = ROLE_NAMES.get(role.toLowerCase())
  return name === undefined ? `role ${role}` : `${name} (${role})`
}

/**
 * The role and Safe-control changes one call makes. Safe management functions are judged on any
 * target: on a real Safe they only succeed inside its own `execTransaction`, where the decoder
 * already opens the inner call.
 */
export function powerEffects({ site, args: a, key }: KnownCallSite): PowerEffect[] {
  const contract = site.target
  const one = (kind: PowerEffect['kind'], action: string, subject?: Address, role?: Hex) => {
    const effect: PowerEffect = { kind, contract, action }
    if (subject !== undefined) effect.subject = subject
    if (role !== undefined) effect.role = role
    return [effect]
  }
  const role = isBytes32Text(a.role) ? lowerHex(a.role) : undefined
  switch (key) {
    case 'grantRole(bytes32,address)':
      return role === undefined ? [] : one('role-grant', 'grantRole', addr(a.account), role)
    case 'revokeRole(bytes32,address)':
      return role === undefined ? [] : one('role-revoke', 'revokeRole', addr(a.account), role)
    case 'renounceRole(bytes32,address)':
      return role === undefined
        ? []
        : one('role-renounce', 'renounceRole', addr(a.callerConfirmation), role)
    case 'addOwnerWithThreshold(address,uint256)':
      return one(
        'safe-owner',
        `addOwnerWithThreshold adds owner ${str(a.owner)} and sets the threshold to ${threshold(a._threshold)}`,
        addr(a.owner),
      )
    case 'removeOwner(address,address,uint256)':
      return one(
        'safe-owner',
        `removeOwner removes owner ${str(a.owner)} and sets the threshold to ${threshold(a._threshold)}`,
        addr(a.owner),
      )
    case 'swapOwner(address,address,address)':
      return one(
        'safe-owner',
        `swapOwner replaces owner ${str(a.oldOwner)} with ${str(a.newOwner)}`,
        addr(a.newOwner),
      )
    case 'changeThreshold(uint256)':
      return one(
        'safe-threshold',
        `changeThreshold sets the threshold to ${threshold(a._threshold)}`,
      )
    case 'enableModule(address)':
      return one(
        'safe-module',
        `enableModule lets module ${str(a.module)} execute any transaction from the Safe without owner signatures`,
        addr(a.module),
      )
    case 'disableModule(address,address)':
      return one('safe-module', `disableModule removes module ${str(a.module)}`, addr(a.module))
    case 'setGuard(address)':
      return one(
        'safe-guard',
        `setGuard makes ${str(a.guard)} the transaction guard, which can veto every later Safe transaction`,
        addr(a.guard),
      )
    case 'setFallbackHandler(address)':
      return one(
        'safe-fallback-handler',
        `setFallbackHandler makes ${str(a.handler)} the fallback handler, which answers calls the Safe does not implement (EIP-1271 signature checks among them)`,
        addr(a.handler),
      )
    default:
      return []
  }
}

function threshold(value: Parameters<typeof big>[0]): string {
  const n = big(value)
  return n === undefined ? '(unreadable)' : n.toString(10)
}
