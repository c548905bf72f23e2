import { type Address, decodeAbiParameters, type Hex } from 'viem'
import { checksummed, isAddressShaped } from '../evm/checksummed.js'
import type { Child } from './decoded-call.js'
import { commandChildren } from './router-plans.js'

/**
 * The calls a recognised container function makes, from its decoded arguments: multicall items,
 * Multicall3 calls, a Safe's `execTransaction` call, the call inside `upgradeToAndCall`/
 * `upgradeAndCall`, Universal Router commands and Safe MultiSend batch items. Empty for
 * functions that are no containers.
 */
export function childrenOf(
  name: string,
  selector: Hex,
  values: readonly unknown[],
  to: Address,
): Child[] {
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
      // cast: `bytes data`, decoded against the function's ABI.
      const data = values[1] as Hex
      return data === '0x' ? [] : [{ target: self, data, operation: 'delegatecall' }]
    }
    case 'upgradeAndCall': {
      const [proxy, , data] = values as [Address, Address, Hex]
      return data === '0x' ? [] : [{ target: proxy, data, operation: 'delegatecall' }]
    }
    case 'execute':
      if (selector === WALLET_EXECUTE) {
        const [target, value, data] = values as [Address, bigint, Hex]
        return [{ target, value, data }]
      }
      // cast: `(bytes32 mode, bytes executionData)`, decoded against the function's ABI.
      if (selector === MODE_EXECUTE) return modeChildren(values[0] as Hex, values[1] as Hex)
      // cast: `(bytes commands, bytes[] inputs)`, decoded against the function's ABI.
      return commandChildren(values[0] as Hex, values[1] as readonly Hex[], self)
    case 'executeBatch':
      return batchChildren(selector, values)
    case 'multiSend':
      // cast: `bytes transactions`, decoded against the function's ABI.
      return multiSendChildren(values[0] as Hex)
    default:
      return []
  }
}

/** `execute(address,uint256,bytes)`: one call from the account. */
export const WALLET_EXECUTE: Hex = '0xb61d27f6'
/** ERC-7821 / ERC-7579 `execute(bytes32 mode, bytes executionData)`. */
export const MODE_EXECUTE: Hex = '0xe9ae5c53'
/** The smart-account executors: the account itself makes the calls they carry. */
export const WALLET_EXECUTORS: ReadonlySet<Hex> = new Set([
  WALLET_EXECUTE,
  MODE_EXECUTE,
  '0x34fcd5be', // executeBatch((address,uint256,bytes)[])
  '0x47e1da2a', // executeBatch(address[],uint256[],bytes[])
  '0x18dfb3c7', // executeBatch(address[],bytes[])
])

const malformedChild = (): Child => ({
  target: '0x0000000000000000000000000000000000000000',
  data: '0x',
  decode: () => ({ call: { selector: null, known: false, reason: 'malformed_arguments' } }),
})

/** The calls of a smart account's `executeBatch`, whichever of the three shapes. */
function batchChildren(selector: Hex, values: readonly unknown[]): Child[] {
  if (selector === '0x34fcd5be') {
    const calls = values[0] as readonly { target: Address; value: bigint; data: Hex }[]
    return calls.map((c) => ({ target: c.target, value: c.value, data: c.data }))
  }
  const dest = values[0] as readonly Address[]
  const withValues = selector === '0x47e1da2a'
  const func = values[withValues ? 2 : 1] as readonly Hex[]
  const amounts = withValues ? (values[1] as readonly bigint[]) : []
  // SimpleAccount reverts on mismatched lengths (an empty value array means no value).
  if (func.length !== dest.length || (amounts.length !== 0 && amounts.length !== dest.length)) {
    return [malformedChild()]
  }
  return dest.map((target, i) => {
    // cast: `func` has `dest`'s length (checked above), so `func[i]` is there.
    const child: Child = { target, data: func[i] as Hex }
    const value = amounts[i]
    if (value !== undefined) child.value = value
    return child
  })
}

/**
 * ERC-7821 / ERC-7579 execution data by the mode's call type: 0x00 one call packed as target (20
 * bytes), value (32) and data; 0x01 an ABI-encoded batch of (target, value, data) (ERC-7821's
 * opData variant appends `bytes opData`, which is ignored here). Other call types (delegatecall,
 * static) are reported malformed, so the screen calls the decoding incomplete.
 */
function modeChildren(mode: Hex, data: Hex): Child[] {
  const callType = mode.slice(2, 4)
  try {
    if (callType === '00') {
      const hex = data.slice(2)
      if (hex.length < 104) return [malformedChild()]
      return [
        {
          target: checksummed(`0x${hex.slice(0, 40)}`),
          value: BigInt(`0x${hex.slice(40, 104)}`),
          data: `0x${hex.slice(104)}`,
        },
      ]
    }
    if (callType === '01') {
      const batchType = [
        {
          type: 'tuple[]',
          components: [
            { name: 'target', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'data', type: 'bytes' },
          ],
        },
      ] as const
      const [calls] = decodeAbiParameters(batchType, data)
      return calls.map((c) => ({ target: c.target, value: c.value, data: c.data }))
    }
  } catch {
    return [malformedChild()]
  }
  return [malformedChild()]
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
    decode: () => ({ call: { selector: null, known: false, reason: 'malformed_arguments' } }),
  }
  let at = 0
  while (at < hex.length) {
    // 85 bytes of header (1 + 20 + 32 + 32) before the data.
    if (hex.length - at < 170) return [...children, malformed]
    const operation = Number.parseInt(hex.slice(at, at + 2), 16)
    const to = checksummed(`0x${hex.slice(at + 2, at + 42)}`)
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

function normaliseAddress(value: string): Address | undefined {
  return isAddressShaped(value) ? checksummed(value) : undefined
}
