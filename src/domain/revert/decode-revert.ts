import type { DecodedRevert } from '@pre-send-guard/client/schemas'
import { hexSlice, isBytesText, lowerHex } from '@pre-send-guard/client/types'
import { type AbiParameter, decodeErrorResult, type Hex, toFunctionSelector } from 'viem'
import { formatAbiItem } from 'viem/utils'
import { type JsonValue, toJsonValue } from '../calldata/json-value.js'
import { REVERT_ERRORS_ABI } from './revert-errors-abi.js'

/** Selector of `Error(string)`. */
export const ERROR_STRING_SELECTOR = '0x08c379a0'
/** Selector of `Panic(uint256)`. */
export const PANIC_SELECTOR = '0x4e487b71'

/** Revert data decoded into what a person can read (declared with the answers). */
export type { DecodedRevert } from '@pre-send-guard/client/schemas'

/** Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require"). */
export const PANIC_MEANINGS: Readonly<Record<number, string>> = {
  0: 'generic compiler-inserted panic',
  1: 'assertion failed (assert)',
  17: 'arithmetic overflow or underflow',
  18: 'division or modulo by zero',
  33: 'conversion to an invalid enum value',
  34: 'incorrectly encoded storage byte array',
  49: 'pop() on an empty array',
  50: 'array index out of bounds',
  65: 'out of memory (allocation too large)',
  81: 'call to a zero-initialised internal function variable',
}

const ABI = REVERT_ERRORS_ABI

const SIGNATURES: ReadonlyMap<string, string> = new Map(
  ABI.map((item) => {
    const signature = formatAbiItem(item)
    return [toFunctionSelector(signature), signature] as const
  }),
)

/**
 * Decodes revert data: `Error(string)`, `Panic(uint256)` with its meaning, known custom errors
 * (OpenZeppelin 5, Permit2, Universal Router) with named args, otherwise `unknown`. Never throws.
 *
 * @example decodeRevert('0x') // { kind: 'empty' }
 */
export function decodeRevert(data: Hex): DecodedRevert {
  // Untrusted RPC data: anything not well-formed hex is treated as unreadable, never thrown on.
  if (!isBytesText(data)) {
    return { kind: 'unknown', selector: null }
  }
  if (data === '0x') return { kind: 'empty' }
  if (data.length < 10) return { kind: 'unknown', selector: null }
  const selector = lowerHex(hexSlice(data, 0, 4))
  let decoded: ReturnType<typeof decodeErrorResult<typeof ABI>>
  try {
    decoded = decodeErrorResult({ abi: ABI, data })
  } catch {
    // Unknown selector, or a known selector with malformed arguments: report, don't guess.
    return { kind: 'unknown', selector }
  }
  if (selector === ERROR_STRING_SELECTOR) {
    const reason = decoded.args?.[0]
    return { kind: 'error', selector, reason: typeof reason === 'string' ? reason : '' }
  }
  if (selector === PANIC_SELECTOR) {
    const raw = decoded.args?.[0]
    const code = typeof raw === 'bigint' ? raw : 0n
    const small = code <= 0xffn ? PANIC_MEANINGS[Number(code)] : undefined
    return {
      kind: 'panic',
      selector,
      code: Number(code),
      codeHex: `0x${code.toString(16)}`,
      meaning: small ?? 'unknown panic code',
    }
  }
  const abiItem = decoded.abiItem as { inputs: readonly AbiParameter[] }
  const args: Record<string, JsonValue> = {}
  const values = (decoded.args ?? []) as readonly unknown[]
  abiItem.inputs.forEach((input, i) => {
    args[input.name && input.name.length > 0 ? input.name : String(i)] = toJsonValue(values[i])
  })
  return {
    kind: 'custom',
    selector,
    name: decoded.errorName,
    signature: SIGNATURES.get(selector) ?? decoded.errorName,
    args,
  }
}
