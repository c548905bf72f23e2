import { hexSlice, isBytesText, lowerHex } from '@pre-send-guard/client/types'
import {
  type AbiFunction,
  type Address,
  decodeAbiParameters,
  type Hex,
  toFunctionSelector,
} from 'viem'
import { formatAbiItem } from 'viem/utils'
import { hasAliasedCalldataList } from './aliasing-guard.js'
import { childrenOf } from './container-children.js'
import { namedArgs, withinOutputBound } from './decode-args.js'
import {
  type Child,
  DECODE_LIMITS,
  type DecodedCall,
  type KnownCall,
  type NestedCall,
  type Opened,
} from './decoded-call.js'
import { KNOWN_FUNCTIONS_ABI } from './known-functions-abi.js'

export {
  DECODE_LIMITS,
  type DecodedArg,
  type DecodedCall,
  type KnownCall,
  type NestedCall,
  type UndecodedReason,
  type UnknownCall,
} from './decoded-call.js'

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
 * Multicall3, Universal Router `execute`, Safe `execTransaction` and MultiSend, `upgradeToAndCall`)
 * the calls they make, recursively within {@link DECODE_LIMITS}. Unknown selectors stay unknown.
 * Never throws.
 *
 * @example decodeCalldata('0x', to) // { selector: null, known: false, reason: 'empty' }
 */
export function decodeCalldata(data: Hex, to: Address): DecodedCall {
  return decodeAt(data, to, '', 0, { nested: DECODE_LIMITS.maxNestedCalls })
}

/**
 * The calldata of each call whose selector no module knows, kept beside the answer (not in it):
 * the screen guesses its argument layout to name the addresses it passes.
 */
const UNDECODED = new WeakMap<DecodedCall, Hex>()

/** The calldata of a call decoded as `unknown_selector`; undefined for any other call. */
export function undecodedCalldata(call: DecodedCall): Hex | undefined {
  return UNDECODED.get(call)
}

function decodeAt(
  data: Hex,
  to: Address,
  path: string,
  depth: number,
  budget: Budget,
): DecodedCall {
  return open(openCall(data, to), path, depth, budget)
}

/** A function call by selector, with the calls it makes when it is a container (not yet opened). */
function openCall(data: Hex, to: Address): Opened {
  if (!isBytesText(data)) {
    return { call: { selector: null, known: false, reason: 'malformed_arguments' } }
  }
  if (data === '0x') return { call: { selector: null, known: false, reason: 'empty' } }
  if (data.length < 10) return { call: { selector: null, known: false, reason: 'too_short' } }
  const selector = lowerHex(hexSlice(data, 0, 4))
  if ((data.length - 2) / 2 > DECODE_LIMITS.maxCalldataBytes) {
    return { call: { selector, known: false, reason: 'too_large' } }
  }
  const fn = FUNCTIONS.get(selector)
  if (!fn) {
    const call: DecodedCall = { selector, known: false, reason: 'unknown_selector' }
    UNDECODED.set(call, data)
    return { call }
  }
  const malformed: Opened = { call: { selector, known: false, reason: 'malformed_arguments' } }
  if (hasAliasedCalldataList(data)) return malformed
  let values: readonly unknown[]
  try {
    // The arguments after the selector, as viem's decodeFunctionData reads them once it has
    // found the function (which it does by hashing the signature: the map above already did).
    values =
      fn.item.inputs.length === 0
        ? []
        : (decodeAbiParameters(fn.item.inputs, `0x${data.slice(10)}`) as readonly unknown[])
  } catch {
    return malformed
  }
  const args = namedArgs(fn.item.inputs, values)
  if (args === undefined || !withinOutputBound(args, data)) return malformed
  const call: KnownCall = {
    selector,
    known: true,
    name: fn.item.name,
    signature: fn.signature,
    args,
  }
  return { call, children: childrenOf(fn.item.name, selector, values, to) }
}

/** Decodes an opened call's children under `<path>.<name>`, depth-first, within the budget. */
function open(opened: Opened, path: string, depth: number, budget: Budget): DecodedCall {
  const { call, children } = opened
  if (call.known && children !== undefined && children.length > 0) {
    const here = path === '' ? call.name : `${path}.${call.name}`
    addChildren(call, children, here, depth, budget)
  }
  return call
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
            selector: child.data.length >= 10 ? lowerHex(hexSlice(child.data, 0, 4)) : null,
            known: false,
            reason: 'depth_limit',
          }
        : child.decode !== undefined
          ? open(child.decode(), path, depth + 1, budget)
          : decodeAt(child.data, child.target, path, depth + 1, budget)
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
