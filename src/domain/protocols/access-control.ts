import { isBytes32Text, lowerHex } from '@pre-send-guard/client/types'
import { type Hex, keccak256, parseAbi, toBytes } from 'viem'
import type { PowerEffect } from './declared-effects.js'
import { addr } from './decoded-args.js'
import type { FunctionKey, ProtocolCall, ProtocolModule } from './protocol-module.js'

/** OpenZeppelin AccessControl (v5 names the renounce argument `callerConfirmation`: same selector). */
const ABI = parseAbi([
  'function grantRole(bytes32 role, address account)',
  'function revokeRole(bytes32 role, address account)',
  'function renounceRole(bytes32 role, address callerConfirmation)',
])

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

/** OpenZeppelin AccessControl: who holds which role. */
export const ACCESS_CONTROL = {
  name: 'OpenZeppelin AccessControl',
  abi: ABI,
  powers: {
    'grantRole(bytes32,address)': (c) => roleChange(c, 'role-grant', c.args.account),
    'revokeRole(bytes32,address)': (c) => roleChange(c, 'role-revoke', c.args.account),
    'renounceRole(bytes32,address)': (c) =>
      roleChange(c, 'role-renounce', c.args.callerConfirmation),
  },
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** A role change named by the call's function; none when `role` is not a bytes32. */
function roleChange(
  { site, call, args }: ProtocolCall,
  kind: PowerEffect['kind'],
  account: ProtocolCall['args'][string] | undefined,
): PowerEffect[] {
  if (!isBytes32Text(args.role)) return []
  const effect: PowerEffect = { kind, contract: site.target, action: call.name }
  const subject = addr(account)
  if (subject !== undefined) effect.subject = subject
  effect.role = lowerHex(args.role)
  return [effect]
}
