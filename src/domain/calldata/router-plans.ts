import { hexNumber } from '@pre-send-guard/client/types'
import { type Address, decodeAbiParameters, type Hex } from 'viem'
import { formatAbiParams } from 'viem/utils'
import {
  type UniversalRouterCommand,
  UR_EXECUTE_SUB_PLAN,
  UR_V4_SWAP,
  UR_V4_SWAP_CODE,
  V4_SWAP_PARAMS,
} from '../protocols/universal-router.js'
import { hasAliasedBytesList } from './aliasing-guard.js'
import { namedArgs, withinOutputBound } from './decode-args.js'
import type { Child, DecodedCall, KnownCall, Opened, UnknownCall } from './decoded-call.js'
import { UNIVERSAL_ROUTER_COMMANDS, V4_ACTIONS } from './universal-router-commands.js'

/**
 * Universal Router: one child per command byte, decoded from the matching `inputs[i]`. Sub-plans
 * (`EXECUTE_SUB_PLAN`) open their own commands the same way, one level deeper.
 */
export function commandChildren(commands: Hex, inputs: readonly Hex[], router: Address): Child[] {
  const bytes = commands.slice(2)
  const children: Child[] = []
  // A length mismatch makes the router revert; decode what lines up and mark the rest malformed.
  const count = bytes.length / 2
  for (let i = 0; i < count; i++) {
    const byte = Number.parseInt(bytes.slice(i * 2, i * 2 + 2), 16)
    const type = byte & 0x3f
    const allowFailure = (byte & 0x80) !== 0
    const input = inputs[i]
    children.push({
      target: router,
      data: input ?? '0x',
      allowFailure,
      decode: () => decodeCommand(type, input, router),
    })
  }
  return children
}

function decodeCommand(type: number, input: Hex | undefined, router: Address): Opened {
  const selector = hexNumber(type, 2)
  if (type === UR_V4_SWAP_CODE && input !== undefined) {
    const plan = decodeV4Swap(selector, input, router)
    if (plan !== undefined) return plan
  }
  const command = UNIVERSAL_ROUTER_COMMANDS.get(type)
  if (!command) return { call: { selector, known: false, reason: 'unknown_command' } }
  const malformed: Opened = {
    call: { selector, known: false, reason: 'malformed_arguments' } satisfies UnknownCall,
  }
  if (input === undefined) return malformed
  const subPlan = command.name === UR_EXECUTE_SUB_PLAN
  // A sub-plan carries a list of inputs: refuse aliased entries before viem copies them.
  if (subPlan && hasAliasedBytesList(input.slice(2), { param: 1 })) return malformed
  let values: readonly unknown[]
  try {
    values = decodeAbiParameters(command.params, input) as readonly unknown[]
  } catch {
    return malformed
  }
  const args = namedArgs(command.params, values)
  if (args === undefined || !withinOutputBound(args, input)) return malformed
  const call: KnownCall = {
    selector,
    known: true,
    name: command.name,
    signature: `${command.name}(${formatAbiParams(command.params)})`,
    args,
  }
  if (!subPlan) return { call }
  const [commands, inputs] = values as [Hex, readonly Hex[]]
  // The router's `execute` reverts (LengthMismatch) unless there is one input per command; a
  // v1.x SEAPORT_V1_4 input (`uint256 value, bytes data`) read as a sub-plan fails here too.
  if ((commands.length - 2) / 2 !== inputs.length) return malformed
  return { call, children: commandChildren(commands, inputs, router) }
}

/**
 * A Universal Router v2 `V4_SWAP` plan: one child per action byte, decoded from `params[i]`.
 * Undefined when the input does not have the plan's shape (router v1.x's Seaport command shares
 * the code), so the caller reports the command as unknown.
 */
function decodeV4Swap(selector: Hex, input: Hex, router: Address): Opened | undefined {
  if (hasAliasedBytesList(input.slice(2), { param: 1 })) return undefined
  let values: readonly unknown[]
  try {
    values = decodeAbiParameters(V4_SWAP_PARAMS, input) as readonly unknown[]
  } catch {
    return undefined
  }
  const [actions, params] = values as [Hex, readonly Hex[]]
  if ((actions.length - 2) / 2 !== params.length) return undefined
  const args = namedArgs(V4_SWAP_PARAMS, values)
  if (args === undefined || !withinOutputBound(args, input)) return undefined
  const call: KnownCall = {
    selector,
    known: true,
    name: UR_V4_SWAP,
    signature: `${UR_V4_SWAP}(${formatAbiParams(V4_SWAP_PARAMS)})`,
    args,
  }
  const children: Child[] = params.map((data, i) => {
    const code = Number.parseInt(actions.slice(2 + i * 2, 4 + i * 2), 16)
    return {
      target: router,
      data,
      decode: () => ({ call: decodeTable(V4_ACTIONS.get(code), code, data) }),
    }
  })
  return { call, children }
}

/** One entry of a command table (v4 actions) decoded from its ABI-encoded input. */
function decodeTable(
  entry: UniversalRouterCommand | undefined,
  code: number,
  data: Hex,
): DecodedCall {
  const selector = hexNumber(code, 2)
  if (!entry) return { selector, known: false, reason: 'unknown_command' }
  // Swap params are kept as the raw bytes they are (a one-field `bytes params` view).
  const raw = entry.params.length === 1 && entry.params[0]?.type === 'bytes'
  let values: readonly unknown[]
  try {
    values = raw ? [data] : (decodeAbiParameters(entry.params, data) as readonly unknown[])
  } catch {
    return { selector, known: false, reason: 'malformed_arguments' }
  }
  const args = namedArgs(entry.params, values)
  if (args === undefined || !withinOutputBound(args, data)) {
    return { selector, known: false, reason: 'malformed_arguments' }
  }
  return {
    selector,
    known: true,
    name: entry.name,
    signature: `${entry.name}(${formatAbiParams(entry.params)})`,
    args,
  }
}
