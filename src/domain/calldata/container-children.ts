import type { Address, Hex } from 'viem'
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
