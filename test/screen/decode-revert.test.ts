import fc from 'fast-check'
import { encodeErrorResult, type Hex, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeRevert } from '../../src/domain/revert/decode-revert.js'
import { REVERT_ERRORS_ABI } from '../../src/domain/revert/revert-errors-abi.js'

const ALICE = '0x00000000000000000000000000000000000A11cE'

describe('decodeRevert', () => {
  it('decodes Error(string)', () => {
    const data = encodeErrorResult({
      abi: parseAbi(['error Error(string)']),
      errorName: 'Error',
      args: ['not enough'],
    })
    expect(decodeRevert(data)).toEqual({
      kind: 'error',
      selector: '0x08c379a0',
      reason: 'not enough',
    })
  })

  it.each([
    [0x01, 'assert'],
    [0x11, 'overflow'],
    [0x12, 'division'],
    [0x21, 'enum'],
    [0x22, 'storage'],
    [0x31, 'pop'],
    [0x32, 'out of bounds'],
    [0x41, 'memory'],
    [0x51, 'zero-initialised'],
  ])('decodes Panic(0x%s) with its meaning', (code, word) => {
    const data = encodeErrorResult({
      abi: parseAbi(['error Panic(uint256)']),
      errorName: 'Panic',
      args: [BigInt(code)],
    })
    const out = decodeRevert(data)
    expect(out).toMatchObject({ kind: 'panic', selector: '0x4e487b71', code })
    expect(out.kind === 'panic' && out.meaning).toContain(word)
  })

  it('names an unknown panic code as such, exactly in hex', () => {
    const data = encodeErrorResult({
      abi: parseAbi(['error Panic(uint256)']),
      errorName: 'Panic',
      args: [2n ** 200n],
    })
    expect(decodeRevert(data)).toMatchObject({
      kind: 'panic',
      codeHex: `0x1${'0'.repeat(50)}`,
      meaning: 'unknown panic code',
    })
  })

  it('decodes OpenZeppelin ERC20InsufficientBalance with JSON-safe named args', () => {
    const data = encodeErrorResult({
      abi: REVERT_ERRORS_ABI,
      errorName: 'ERC20InsufficientBalance',
      args: [ALICE, 5n, 2n ** 255n],
    })
    const out = decodeRevert(data)
    expect(out).toEqual({
      kind: 'custom',
      selector: '0xe450d38c',
      name: 'ERC20InsufficientBalance',
      signature: 'ERC20InsufficientBalance(address,uint256,uint256)',
      args: { sender: ALICE, balance: '5', needed: (2n ** 255n).toString() },
    })
    expect(JSON.parse(JSON.stringify(out))).toEqual(out)
  })

  it.each([
    ['OwnableUnauthorizedAccount', [ALICE]],
    ['AccessControlUnauthorizedAccount', [ALICE, `0x${'00'.repeat(32)}`]],
    ['SafeERC20FailedOperation', [ALICE]],
    ['ERC721NonexistentToken', [7n]],
    ['ERC1155MissingApprovalForAll', [ALICE, ALICE]],
    ['ERC1967InvalidImplementation', [ALICE]],
    ['UUPSUnauthorizedCallContext', []],
    ['AllowanceExpired', [123n]],
    ['InsufficientAllowance', [1n]],
    ['ExcessiveInvalidation', []],
    ['InvalidNonce', []],
    ['SignatureExpired', [9n]],
    ['InvalidSignature', []],
  ] as const)('decodes %s', (errorName, args) => {
    const data = encodeErrorResult({
      abi: REVERT_ERRORS_ABI,
      errorName,
      args: args as never,
    })
    expect(decodeRevert(data)).toMatchObject({ kind: 'custom', name: errorName })
  })

  it('reports empty data as empty and unknown selectors as unknown', () => {
    expect(decodeRevert('0x')).toEqual({ kind: 'empty' })
    expect(decodeRevert('0xdeadbeef')).toEqual({ kind: 'unknown', selector: '0xdeadbeef' })
    expect(decodeRevert('0x1234')).toEqual({ kind: 'unknown', selector: null })
    // a known selector with truncated arguments is not guessed at
    expect(decodeRevert('0x08c379a0')).toEqual({ kind: 'unknown', selector: '0x08c379a0' })
    expect(decodeRevert('nonsense' as Hex)).toEqual({ kind: 'unknown', selector: null })
  })

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const hex = `0x${Buffer.from(bytes).toString('hex')}` as Hex
        const out = decodeRevert(hex)
        expect(JSON.parse(JSON.stringify(out))).toEqual(out)
      }),
    )
  })
})
