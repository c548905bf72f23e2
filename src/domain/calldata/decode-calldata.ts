import {
  type AbiFunction,
  type AbiParameter,
  type Address,
  decodeAbiParameters,
  decodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  toFunctionSelector,
} from 'viem'
import { formatAbiItem, formatAbiParams } from 'viem/utils'
import { hasAliasedBytesList, hasAliasedCalldataList } from './aliasing-guard.js'
import { type JsonValue, toJsonValue } from './json-value.js'
import { KNOWN_FUNCTIONS_ABI } from './known-functions-abi.js'
import {
  UNIVERSAL_ROUTER_COMMANDS,
  type UniversalRouterCommand,
  UR_EXECUTE_SUB_PLAN,
  UR_V4_SWAP,
  UR_V4_SWAP_CODE,
  V4_ACTIONS,
  V4_SWAP_PARAMS,
} from './universal-router-commands.js'

/**
 * Bounds that keep hostile calldata cheap to decode. Honest containers stay far below them (a
 * Universal Router swap nests 2-6 commands, a Safe one call); anything beyond is reported as
 * incomplete, which the screen turns into a finding rather than silently skipping.
 */
export const DECODE_LIMITS = {
  /** Container levels below the top-level call that are opened (multicall in a Safe in ... ). */
  maxDepth: 4,
  /** Nested calls decoded in the whole tree; later ones are counted in `omittedCalls`. */
  maxNestedCalls: 64,
  /** Calldata larger than this (bytes) is not decoded at all. */
  maxCalldataBytes: 131_072,
} as const

/**
 * One named, JSON-safe argument. `type` is the canonical ABI type (tuples spelled out). Integers
 * of 48 bits or fewer are JSON numbers, wider ones decimal strings (viem's decoding convention);
 * tuples with named components are objects.
 */
export interface DecodedArg {
  name: string
  type: string
  value: JsonValue
}

/** Why a call was not decoded. */
export type UndecodedReason =
  | 'empty'
  | 'too_short'
  | 'too_large'
  | 'unknown_selector'
  | 'unknown_command'
  | 'malformed_arguments'
  | 'depth_limit'

/**
 * A call the decoder recognised. For Universal Router commands `selector` is the one-byte command
 * type (e.g. `0x0a`) and `name` the command's name (e.g. `PERMIT2_PERMIT`).
 */
export interface KnownCall {
  selector: Hex
  known: true
  name: string
  signature: string
  args: DecodedArg[]
  /** Calls this container makes, in execution order. */
  calls?: NestedCall[]
  /** Nested calls not decoded because {@link DECODE_LIMITS}.maxNestedCalls was reached. */
  omittedCalls?: number
}

/** A call the decoder did not recognise or could not read; never guessed at. */
export interface UnknownCall {
  /** First four bytes, or null when there are fewer (empty calldata is a plain transfer). */
  selector: Hex | null
  known: false
  reason: UndecodedReason
}

/** Decoded calldata: recognised with named arguments, or reported as unknown. JSON-safe. */
export type DecodedCall = KnownCall | UnknownCall

/** One call made by a container, with where it goes and how. */
export interface NestedCall {
  /** Position from the top-level call, e.g. `multicall[2]`, `execTransaction[0].multicall[1]`. */
  path: string
  /** Address whose code runs (for multicall and Universal Router commands, the container itself). */
  target: Address
  /** Wei forwarded with the call, as a decimal string, where the container says. */
  value?: string
  /** Safe `operation` and proxy `...AndCall` semantics; absent for plain calls and commands. */
  operation?: 'call' | 'delegatecall'
  /** Multicall3 `allowFailure`, Universal Router's allow-revert flag. */
  allowFailure?: boolean
  call: DecodedCall
}

interface KnownFunction {
  item: AbiFunction
  signature: string
}

const FUNCTIONS: ReadonlyMap<Hex, KnownFunction> = new Map(
  (KNOWN_FUNCTIONS_ABI as readonly { type: string }[])
    .filter((item) => item.type === 'function')
    .map((entry) => {
      const item = entry as AbiFunction
      const signature = formatAbiItem(item)
      return [toFunctionSelector(signature), { item, signature }] as const
    }),
)

interface Budget {
  /** Nested calls still allowed in this tree. */
  nested: number
}

/**
 * Decodes calldata sent to `to`: the function, its named arguments, and for containers (multicall,
 * Multicall3, Universal Router `execute`, Safe `execTransaction`, `upgradeToAndCall`) the calls
 * they make, recursively within {@link DECODE_LIMITS}. Unknown selectors stay unknown. Never throws.
 *
 * @example decodeCalldata('0x', to) // { selector: null, known: false, reason: 'empty' }
 */
export function decodeCalldata(data: Hex, to: Address): DecodedCall {
  return decodeAt(data, to, '', 0, { nested: DECODE_LIMITS.maxNestedCalls })
}

function decodeAt(
  data: Hex,
  to: Address,
  path: string,
  depth: number,
  budget: Budget,
): DecodedCall {
  if (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data)) {
    return { selector: null, known: false, reason: 'malformed_arguments' }
  }
  if (data === '0x') return { selector: null, known: false, reason: 'empty' }
  if (data.length < 10) return { selector: null, known: false, reason: 'too_short' }
  const selector = data.slice(0, 10).toLowerCase() as Hex
  if ((data.length - 2) / 2 > DECODE_LIMITS.maxCalldataBytes) {
    return { selector, known: false, reason: 'too_large' }
  }
  const fn = FUNCTIONS.get(selector)
  if (!fn) return { selector, known: false, reason: 'unknown_selector' }
  if (hasAliasedCalldataList(data)) return { selector, known: false, reason: 'malformed_arguments' }
  let values: readonly unknown[]
  try {
    values = (decodeFunctionData({ abi: [fn.item], data }).args ?? []) as readonly unknown[]
  } catch {
    return { selector, known: false, reason: 'malformed_arguments' }
  }
  const args = namedArgs(fn.item.inputs, values)
  if (args === undefined || !withinOutputBound(args, data)) {
    return { selector, known: false, reason: 'malformed_arguments' }
  }
  const call: KnownCall = {
    selector,
    known: true,
    name: fn.item.name,
    signature: fn.signature,
    args,
  }
  const here = path === '' ? fn.item.name : `${path}.${fn.item.name}`
  const children = childrenOf(fn.item.name, selector, values, to)
  if (children.length > 0) addChildren(call, children, here, depth, budget)
  return call
}

/** A call a container makes, before it is decoded. */
interface Child {
  target: Address
  data: Hex
  value?: bigint
  operation?: 'call' | 'delegatecall'
  allowFailure?: boolean
  /**
   * Own decoder (Universal Router commands are not function calls), given the child's path and
   * depth; run only within budget.
   */
  decode?: (path: string, depth: number, budget: Budget) => DecodedCall
}

function addChildren(
  call: KnownCall,
  children: readonly Child[],
  here: string,
  depth: number,
  budget: Budget,
): void {
  const calls: NestedCall[] = []
  let omitted = 0
  children.forEach((child, i) => {
    if (budget.nested <= 0) {
      omitted++
      return
    }
    budget.nested--
    const path = `${here}[${i}]`
    const nested: DecodedCall =
      depth + 1 > DECODE_LIMITS.maxDepth
        ? {
            selector:
              child.data.length >= 10 ? (child.data.slice(0, 10).toLowerCase() as Hex) : null,
            known: false,
            reason: 'depth_limit',
          }
        : (child.decode?.(path, depth + 1, budget) ??
          decodeAt(child.data, child.target, path, depth + 1, budget))
    // Built field by field so the JSON reads path, target, value, operation, allowFailure, call.
    const entry = { path, target: child.target } as NestedCall
    if (child.value !== undefined) entry.value = child.value.toString(10)
    if (child.operation !== undefined) entry.operation = child.operation
    if (child.allowFailure !== undefined) entry.allowFailure = child.allowFailure
    entry.call = nested
    calls.push(entry)
  })
  call.calls = calls
  if (omitted > 0) call.omittedCalls = omitted
}

function childrenOf(name: string, selector: Hex, values: readonly unknown[], to: Address): Child[] {
  const self = normaliseAddress(to) ?? to
  switch (name) {
    case 'multicall': {
      // Uniswap/OpenZeppelin multicall delegatecalls each item into the same contract.
      const items = (selector === '0xac9650d8' ? values[0] : values[1]) as readonly Hex[]
      return items.map((data) => ({ target: self, data }))
    }
    case 'aggregate':
    case 'tryAggregate': {
      const items = values[name === 'aggregate' ? 0 : 1] as readonly {
        target: Address
        callData: Hex
      }[]
      return items.map((c) => ({ target: c.target, data: c.callData }))
    }
    case 'aggregate3': {
      const items = values[0] as readonly {
        target: Address
        allowFailure: boolean
        callData: Hex
      }[]
      return items.map((c) => ({
        target: c.target,
        data: c.callData,
        allowFailure: c.allowFailure,
      }))
    }
    case 'aggregate3Value': {
      const items = values[0] as readonly {
        target: Address
        allowFailure: boolean
        value: bigint
        callData: Hex
      }[]
      return items.map((c) => ({
        target: c.target,
        data: c.callData,
        allowFailure: c.allowFailure,
        value: c.value,
      }))
    }
    case 'execTransaction': {
      const [target, value, data, operation] = values as [Address, bigint, Hex, number]
      const child: Child = { target, data, value }
      // Safe's Enum.Operation: 0 Call, 1 DelegateCall; any other value reverts in the Safe.
      if (operation === 0) child.operation = 'call'
      if (operation === 1) child.operation = 'delegatecall'
      return [child]
    }
    case 'upgradeToAndCall': {
      // ERC1967Utils.upgradeToAndCall delegatecalls `data` into the new implementation, in the
      // proxy's storage; empty data means no call.
      const data = values[1] as Hex
      return data === '0x' ? [] : [{ target: self, data, operation: 'delegatecall' }]
    }
    case 'upgradeAndCall': {
      const [proxy, , data] = values as [Address, Address, Hex]
      return data === '0x' ? [] : [{ target: proxy, data, operation: 'delegatecall' }]
    }
    case 'execute':
      return commandChildren(values[0] as Hex, values[1] as readonly Hex[], self)
    case 'multiSend':
      return multiSendChildren(values[0] as Hex)
    default:
      return []
  }
}

/**
 * Safe MultiSend's packed batch: per transaction 1 byte operation, 20 bytes `to`, 32 bytes
 * value, 32 bytes data length, then the data. A batch that does not parse exactly (a length past
 * the end, an operation other than 0 or 1) ends in one malformed child, so the screen reports
 * it incomplete instead of skipping the rest; the contract would revert or misread it.
 */
function multiSendChildren(packed: Hex): Child[] {
  const hex = packed.slice(2)
  const children: Child[] = []
  const malformed: Child = {
    target: '0x0000000000000000000000000000000000000000',
    data: '0x',
    decode: () => ({ selector: null, known: false, reason: 'malformed_arguments' }),
  }
  let at = 0
  while (at < hex.length) {
    // 85 bytes of header (1 + 20 + 32 + 32) before the data.
    if (hex.length - at < 170) return [...children, malformed]
    const operation = Number.parseInt(hex.slice(at, at + 2), 16)
    const to = getAddress(`0x${hex.slice(at + 2, at + 42)}`)
    const value = BigInt(`0x${hex.slice(at + 42, at + 106)}`)
    const length = BigInt(`0x${hex.slice(at + 106, at + 170)}`)
    const start = at + 170
    if (operation > 1 || length * 2n > BigInt(hex.length - start)) return [...children, malformed]
    const end = start + Number(length) * 2
    children.push({
      target: to,
      data: `0x${hex.slice(start, end)}`,
      value,
      operation: operation === 1 ? 'delegatecall' : 'call',
    })
    at = end
  }
  return children
}

/**
 * Universal Router: one child per command byte, decoded from the matching `inputs[i]`. Sub-plans
 * (`EXECUTE_SUB_PLAN`) open their own commands the same way, one level deeper.
 */
function commandChildren(commands: Hex, inputs: readonly Hex[], router: Address): Child[] {
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
      decode: (path, depth, budget) => decodeCommand(type, input, router, path, depth, budget),
    })
  }
  return children
}

function decodeCommand(
  type: number,
  input: Hex | undefined,
  router: Address,
  path: string,
  depth: number,
  budget: Budget,
): DecodedCall {
  const selector = `0x${type.toString(16).padStart(2, '0')}` as Hex
  if (type === UR_V4_SWAP_CODE && input !== undefined) {
    const plan = decodeV4Swap(selector, input, router, path, depth, budget)
    if (plan !== undefined) return plan
  }
  const command = UNIVERSAL_ROUTER_COMMANDS.get(type)
  if (!command) return { selector, known: false, reason: 'unknown_command' }
  if (input === undefined) return { selector, known: false, reason: 'malformed_arguments' }
  const malformed: UnknownCall = { selector, known: false, reason: 'malformed_arguments' }
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
  if (subPlan) {
    const [commands, inputs] = values as [Hex, readonly Hex[]]
    // The router's `execute` reverts (LengthMismatch) unless there is one input per command; a
    // v1.x SEAPORT_V1_4 input (`uint256 value, bytes data`) read as a sub-plan fails here too.
    if ((commands.length - 2) / 2 !== inputs.length) return malformed
    const children = commandChildren(commands, inputs, router)
    if (children.length > 0) addChildren(call, children, `${path}.${command.name}`, depth, budget)
  }
  return call
}

/**
 * A Universal Router v2 `V4_SWAP` plan: one child per action byte, decoded from `params[i]`.
 * Undefined when the input does not have the plan's shape (router v1.x's Seaport command shares
 * the code), so the caller reports the command as unknown.
 */
function decodeV4Swap(
  selector: Hex,
  input: Hex,
  router: Address,
  path: string,
  depth: number,
  budget: Budget,
): KnownCall | undefined {
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
      decode: () => decodeTable(V4_ACTIONS.get(code), code, data),
    }
  })
  if (children.length > 0) addChildren(call, children, `${path}.${UR_V4_SWAP}`, depth, budget)
  return call
}

/** One entry of a command table (v4 actions) decoded from its ABI-encoded input. */
function decodeTable(
  entry: UniversalRouterCommand | undefined,
  code: number,
  data: Hex,
): DecodedCall {
  const selector = `0x${code.toString(16).padStart(2, '0')}` as Hex
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

function namedArgs(
  params: readonly AbiParameter[],
  values: readonly unknown[],
): DecodedArg[] | undefined {
  if (values.length !== params.length) return undefined
  return params.map((param, i) => ({
    name: param.name && param.name.length > 0 ? param.name : String(i),
    type: formatAbiParams([param]),
    value: toJsonValue(values[i]),
  }))
}

/**
 * Honest ABI encoding never yields more text than it was given (each word becomes at most one
 * address, decimal or hex string), but a hostile encoding can point many offsets at one blob and
 * multiply it. Such calldata is refused as malformed rather than reported at its inflated size.
 */
function withinOutputBound(args: readonly DecodedArg[], data: Hex): boolean {
  const limit = data.length * 2 + 4096
  let size = 0
  const stack: JsonValue[] = args.map((a) => a.value)
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') size += v.length
    else if (Array.isArray(v)) for (const item of v) stack.push(item)
    else if (v !== null && typeof v === 'object')
      for (const item of Object.values(v)) stack.push(item)
    else size += 8
    if (size > limit) return false
  }
  return true
}

function normaliseAddress(value: string): Address | undefined {
  return isAddress(value, { strict: false }) ? getAddress(value) : undefined
}
