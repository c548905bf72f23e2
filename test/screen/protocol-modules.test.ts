import { parseAbi, toFunctionSelector } from 'viem'
import { formatAbiItem } from 'viem/utils'
import { describe, expect, it } from 'vitest'
import { KNOWN_FUNCTIONS_ABI } from '../../src/domain/calldata/known-functions-abi.js'
import {
  UNIVERSAL_ROUTER_COMMANDS,
  V4_ACTIONS,
} from '../../src/domain/calldata/universal-router-commands.js'
import { KNOWN_CODE } from '../../src/domain/protocols/known-code.js'
import { SERVED_NETWORK } from '../../src/domain/protocols/network.js'
import type { FunctionKey, ProtocolModule } from '../../src/domain/protocols/protocol-module.js'
import { PROTOCOL_MODULES, readersOf } from '../../src/domain/protocols/protocol-modules.js'

/** Every key a module reads something for, with the concern. */
function readKeys(module: ProtocolModule): { concern: string; key: string }[] {
  const concerns = {
    catalogue: module.catalogue,
    transfers: module.transfers,
    approvals: module.approvals,
    powers: module.powers,
    privileged: module.privileged,
    swaps: module.swaps,
    positions: module.positions,
  }
  return Object.entries(concerns).flatMap(([concern, byKey]) =>
    Object.keys(byKey ?? {}).map((key) => ({ concern, key })),
  )
}

const ROUTER_KEYS = new Set(
  [...UNIVERSAL_ROUTER_COMMANDS.values(), ...V4_ACTIONS.values()].map((c) => `ur:${c.name}`),
)

describe('protocol modules', () => {
  it('read only functions of their own ABI (or Universal Router commands the decoder opens)', () => {
    const strays = PROTOCOL_MODULES.flatMap((module) => {
      const own = new Set(
        module.abi.flatMap((item) => (item.type === 'function' ? [formatAbiItem(item)] : [])),
      )
      return readKeys(module)
        .filter(({ key }) => !own.has(key) && !ROUTER_KEYS.has(key))
        .map(({ concern, key }) => `${module.name} ${concern} ${key}`)
    })
    expect(strays).toEqual([])
  })

  it('give each selector one function, and the decoder all of them', () => {
    const selectors = PROTOCOL_MODULES.flatMap((m) =>
      m.abi.flatMap((item) => (item.type === 'function' ? [toFunctionSelector(item)] : [])),
    )
    expect(new Set(selectors).size).toBe(selectors.length)
    expect(KNOWN_FUNCTIONS_ABI.filter((item) => item.type === 'function')).toHaveLength(
      selectors.length,
    )
  })

  it('are looked up by key, one reader per concern', () => {
    expect(readersOf('transfer(address,uint256)')?.transfers).toBeTypeOf('function')
    expect(readersOf('ur:PAY_PORTION')?.transfers).toBeTypeOf('function')
    expect(readersOf('supply(address,uint256,address,uint16)')?.row?.protocol).toBe('Aave v3 Pool')
    expect(readersOf('transfer(address,uint256)')?.row).toBeUndefined()
    expect(readersOf('nope()')).toBeUndefined()
  })

  it('key their readers by signatures typed from the ABI: a misspelt key does not compile', () => {
    const abi = parseAbi(['function transfer(address to, uint256 value)'])
    const module = {
      name: 'typed keys',
      abi,
      transfers: { 'transfer(address,uint256)': () => [] },
    } satisfies ProtocolModule<FunctionKey<typeof abi>>
    const misspelt = {
      name: 'typed keys',
      abi,
      // @ts-expect-error `uint25` names no function of the ABI
      transfers: { 'transfer(address,uint25)': () => [] },
    } satisfies ProtocolModule<FunctionKey<typeof abi>>
    expect(Object.keys(module.transfers)).toEqual(['transfer(address,uint256)'])
    expect(Object.keys(misspelt.transfers)).toEqual(['transfer(address,uint25)'])
  })

  it('know their contracts on the served network, where every shared one is also on Sepolia', () => {
    expect(SERVED_NETWORK).toBe('eip155:8453')
    const contracts = PROTOCOL_MODULES.flatMap((m) => m.contracts ?? [])
    expect(KNOWN_CODE.map((k) => k.id)).toEqual(contracts.map((c) => c.id))
    for (const c of contracts) expect(c.deployments['eip155:8453']?.length).toBeGreaterThan(0)
    // CREATE2 deployments and OP-stack predeploys: one address on both networks.
    const shared = contracts.filter((c) => c.deployments['eip155:84532'] !== undefined)
    expect(shared.map((c) => c.id)).toEqual([
      'permit2',
      'weth9',
      'multicall3',
      'safe-multisend-call-only',
      'safe-multisend',
      'entry-point',
      'op-l2-standard-bridge',
      'op-l2-to-l1-message-passer',
      'op-l2-cross-domain-messenger',
    ])
    for (const c of shared)
      expect(c.deployments['eip155:84532']).toEqual(c.deployments['eip155:8453'])
  })
})
