import { readFileSync } from 'node:fs'
import { getAddress, type Hex, keccak256, toFunctionSelector } from 'viem'
import { formatAbiItem } from 'viem/utils'
import { describe, expect, it } from 'vitest'
import { KNOWN_FUNCTIONS_ABI } from '../../src/domain/calldata/known-functions-abi.js'
import { KNOWN_CODE, maskedCodeHash, recogniseCode } from '../../src/domain/protocols/known-code.js'
import { PROTOCOL_FUNCTIONS } from '../../src/domain/protocols/protocol-catalogue.js'

/** Runtime code of a committed protocol artifact (contracts/protocols). */
function runtime(path: string): Hex {
  const url = new URL(`../../contracts/protocols/${path}.json`, import.meta.url)
  return (JSON.parse(readFileSync(url, 'utf8')) as { deployedBytecode: Hex }).deployedBytecode
}

const ELSEWHERE = '0x00000000000000000000000000000000000c0de5'

describe('known code', () => {
  it('spells every canonical address with its EIP-55 checksum, each once', () => {
    const all = KNOWN_CODE.flatMap((k) => k.addresses)
    for (const a of all) expect(getAddress(a)).toBe(a)
    expect(new Set(all.map((a) => a.toLowerCase())).size).toBe(all.length)
  })

  it('knows a canonical address only when it has code', () => {
    const permit2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
    expect(recogniseCode(permit2, '0x6000')?.kind).toBe('permit2')
    expect(recogniseCode(permit2, '0x')).toBeUndefined()
    expect(recogniseCode(permit2, undefined)).toBeUndefined()
  })

  it('knows a copy elsewhere by its code hash with immutables zeroed, whatever their values', () => {
    const code = runtime('permit2/Permit2')
    expect(recogniseCode(ELSEWHERE, code)?.id).toBe('permit2')
    // Other immutable values (another chain's cached domain separator) are the same code.
    const bytes = Buffer.from(code.slice(2), 'hex')
    bytes.fill(0xab, 6983, 6983 + 32)
    expect(recogniseCode(ELSEWHERE, `0x${bytes.toString('hex')}`)?.id).toBe('permit2')
    // One byte changed outside the immutables is other code.
    bytes[100] = (bytes[100] ?? 0) ^ 1
    expect(recogniseCode(ELSEWHERE, `0x${bytes.toString('hex')}`)).toBeUndefined()
    expect(recogniseCode(ELSEWHERE, runtime('safe/MultiSendCallOnly'))?.kind).toBe('safe-multisend')
    expect(recogniseCode(ELSEWHERE, runtime('morpho-blue/Morpho'))?.id).toBe('morpho-blue')
    expect(recogniseCode(ELSEWHERE, runtime('safe/Safe'))).toBeUndefined()
  })

  it('hashes without immutables exactly as keccak256 of the code', () => {
    const code = runtime('weth9/WETH9')
    expect(maskedCodeHash(code, [])).toBe(keccak256(code))
  })
})

describe('the protocol catalogue', () => {
  it('adds its functions to the decoder without sharing a selector with any other', () => {
    const selectors = (KNOWN_FUNCTIONS_ABI as readonly { type: string }[])
      .filter((item) => item.type === 'function')
      .map((item) => toFunctionSelector(formatAbiItem(item as never)))
    expect(new Set(selectors).size).toBe(selectors.length)
    expect(selectors.length).toBeGreaterThanOrEqual(PROTOCOL_FUNCTIONS.length)
  })
})
