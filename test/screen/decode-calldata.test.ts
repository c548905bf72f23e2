import fc from 'fast-check'
import { encodeAbiParameters, type Hex, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  DECODE_LIMITS,
  type DecodedCall,
  decodeCalldata,
  type KnownCall,
} from '../../src/domain/calldata/decode-calldata.js'
import { UNIVERSAL_ROUTER_COMMANDS } from '../../src/domain/calldata/universal-router-commands.js'
import {
  EOA,
  encode,
  encodeSig,
  MAX_UINT160,
  MULTICALL3,
  PERMIT2,
  ROUTER,
  SAFE,
  SPENDER_CONTRACT,
  TOKEN,
} from './fixtures.js'

function known(call: DecodedCall): KnownCall {
  if (!call.known) throw new Error(`not decoded: ${JSON.stringify(call)}`)
  return call
}

function argValues(call: DecodedCall): Record<string, unknown> {
  return Object.fromEntries(known(call).args.map((a) => [a.name, a.value]))
}

function commandInput(type: number, values: readonly unknown[]): Hex {
  const command = UNIVERSAL_ROUTER_COMMANDS.get(type)
  if (!command) throw new Error(`no command ${type}`)
  return encodeAbiParameters(command.params, values as never)
}

const details = { token: TOKEN, amount: MAX_UINT160, expiration: 1_800_000_000, nonce: 0 }
const signed = { permitted: { token: TOKEN, amount: 5n }, nonce: 1n, deadline: 9n }
const signedBatch = { permitted: [{ token: TOKEN, amount: 5n }], nonce: 1n, deadline: 9n }
const WITNESS =
  'ExclusiveDutchOrder witness)ExclusiveDutchOrder(address swapper)TokenPermissions(address token,uint256 amount)'

/** One call per decoded function, with the selector REFERENCE.md lists for it. */
const CASES: readonly [string, string, Hex, Record<string, unknown>][] = [
  ['0xa9059cbb', 'transfer', encode('transfer', [EOA, 7n]), { to: EOA, value: '7' }],
  ['0x095ea7b3', 'approve', encode('approve', [EOA, 7n]), { spender: EOA, value: '7' }],
  [
    '0x39509351',
    'increaseAllowance',
    encode('increaseAllowance', [EOA, 7n]),
    { spender: EOA, addedValue: '7' },
  ],
  [
    '0x23b872dd',
    'transferFrom',
    encodeSig('transferFrom(address,address,uint256)', [EOA, SAFE, 7n]),
    { from: EOA, to: SAFE, value: '7' },
  ],
  [
    '0xd505accf',
    'permit',
    encodeSig('permit(address,address,uint256,uint256,uint8,bytes32,bytes32)', [
      EOA,
      SPENDER_CONTRACT,
      7n,
      9n,
      27,
      `0x${'11'.repeat(32)}`,
      `0x${'22'.repeat(32)}`,
    ]),
    { owner: EOA, spender: SPENDER_CONTRACT, value: '7', deadline: '9', v: 27 },
  ],
  [
    '0x8fcbaf0c',
    'permit',
    encodeSig('permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)', [
      EOA,
      SPENDER_CONTRACT,
      1n,
      9n,
      true,
      27,
      `0x${'11'.repeat(32)}`,
      `0x${'22'.repeat(32)}`,
    ]),
    { holder: EOA, spender: SPENDER_CONTRACT, allowed: true },
  ],
  [
    '0xa22cb465',
    'setApprovalForAll',
    encode('setApprovalForAll', [EOA, true]),
    { operator: EOA, approved: true },
  ],
  [
    '0x42842e0e',
    'safeTransferFrom',
    encodeSig('safeTransferFrom(address,address,uint256)', [EOA, SAFE, 3n]),
    { from: EOA, to: SAFE, tokenId: '3' },
  ],
  [
    '0xb88d4fde',
    'safeTransferFrom',
    encodeSig('safeTransferFrom(address,address,uint256,bytes)', [EOA, SAFE, 3n, '0xab']),
    { tokenId: '3', data: '0xab' },
  ],
  [
    '0xf242432a',
    'safeTransferFrom',
    encodeSig('safeTransferFrom(address,address,uint256,uint256,bytes)', [EOA, SAFE, 3n, 4n, '0x']),
    { id: '3', value: '4' },
  ],
  [
    '0x2eb2c2d6',
    'safeBatchTransferFrom',
    encode('safeBatchTransferFrom', [EOA, SAFE, [1n, 2n], [10n, 20n], '0x']),
    { ids: ['1', '2'], values: ['10', '20'] },
  ],
  [
    '0x87517c45',
    'approve',
    encodeSig('approve(address,address,uint160,uint48)', [TOKEN, SPENDER_CONTRACT, 5n, 6]),
    { token: TOKEN, spender: SPENDER_CONTRACT, amount: '5', expiration: 6 },
  ],
  [
    '0x2b67b570',
    'permit',
    encodeSig('permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)', [
      EOA,
      { details, spender: SPENDER_CONTRACT, sigDeadline: 5n },
      '0x',
    ]),
    {
      owner: EOA,
      permitSingle: {
        details: {
          token: TOKEN,
          amount: MAX_UINT160.toString(),
          expiration: 1_800_000_000,
          nonce: 0,
        },
        spender: SPENDER_CONTRACT,
        sigDeadline: '5',
      },
    },
  ],
  [
    '0x2a2d80d1',
    'permit',
    encodeSig('permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)', [
      EOA,
      { details: [details, details], spender: SPENDER_CONTRACT, sigDeadline: 5n },
      '0x',
    ]),
    { owner: EOA },
  ],
  [
    '0x36c78516',
    'transferFrom',
    encodeSig('transferFrom(address,address,uint160,address)', [EOA, SAFE, 5n, TOKEN]),
    { from: EOA, to: SAFE, amount: '5', token: TOKEN },
  ],
  [
    '0x0d58b1db',
    'transferFrom',
    encodeSig('transferFrom((address,address,uint160,address)[])', [
      [{ from: EOA, to: SAFE, amount: 5n, token: TOKEN }],
    ]),
    { transferDetails: [{ from: EOA, to: SAFE, amount: '5', token: TOKEN }] },
  ],
  [
    '0xcc53287f',
    'lockdown',
    encode('lockdown', [[{ token: TOKEN, spender: EOA }]]),
    { approvals: [{ token: TOKEN, spender: EOA }] },
  ],
  [
    '0x9fd5a6cf',
    'permit',
    encodeSig('permit(address,address,uint256,uint256,bytes)', [
      EOA,
      SPENDER_CONTRACT,
      7n,
      9n,
      `0x${'11'.repeat(65)}`,
    ]),
    { owner: EOA, spender: SPENDER_CONTRACT, value: '7', deadline: '9' },
  ],
  [
    '0x30f28b7a',
    'permitTransferFrom',
    encodeSig(
      'permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)',
      [signed, { to: SAFE, requestedAmount: 5n }, EOA, '0x'],
    ),
    { owner: EOA, transferDetails: { to: SAFE, requestedAmount: '5' } },
  ],
  [
    '0xedd9444b',
    'permitTransferFrom',
    encodeSig(
      'permitTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes)',
      [signedBatch, [{ to: SAFE, requestedAmount: 5n }], EOA, '0x'],
    ),
    { owner: EOA },
  ],
  [
    '0x137c29fe',
    'permitWitnessTransferFrom',
    encodeSig(
      'permitWitnessTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes32,string,bytes)',
      [signed, { to: SAFE, requestedAmount: 5n }, EOA, `0x${'ab'.repeat(32)}`, WITNESS, '0x'],
    ),
    { owner: EOA, witnessTypeString: WITNESS, transferDetails: { to: SAFE, requestedAmount: '5' } },
  ],
  [
    '0xfe8ec1a7',
    'permitWitnessTransferFrom',
    encodeSig(
      'permitWitnessTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes32,string,bytes)',
      [
        signedBatch,
        [{ to: SAFE, requestedAmount: 5n }],
        EOA,
        `0x${'ab'.repeat(32)}`,
        WITNESS,
        '0x',
      ],
    ),
    { owner: EOA, witnessTypeString: WITNESS },
  ],
  ['0xf2fde38b', 'transferOwnership', encode('transferOwnership', [EOA]), { newOwner: EOA }],
  ['0x715018a6', 'renounceOwnership', encode('renounceOwnership', []), {}],
  ['0x3659cfe6', 'upgradeTo', encode('upgradeTo', [EOA]), { newImplementation: EOA }],
  [
    '0x4f1ef286',
    'upgradeToAndCall',
    encode('upgradeToAndCall', [EOA, '0x']),
    { newImplementation: EOA, data: '0x' },
  ],
  ['0x8f283970', 'changeAdmin', encode('changeAdmin', [EOA]), { newAdmin: EOA }],
  ['0xd0e30db0', 'deposit', encode('deposit', []), {}],
  ['0x2e1a7d4d', 'withdraw', encode('withdraw', [5n]), { wad: '5' }],
]

describe('decodeCalldata: each listed function', () => {
  it.each(CASES)('%s %s', (selector, name, data, expected) => {
    const call = known(decodeCalldata(data, TOKEN))
    expect(call.selector).toBe(selector)
    expect(call.name).toBe(name)
    expect(argValues(call)).toMatchObject(expected)
    expect(JSON.parse(JSON.stringify(call))).toEqual(call)
  })

  it('names arguments with their canonical types', () => {
    const call = known(decodeCalldata(encode('approve', [EOA, 7n]), TOKEN))
    expect(call).toEqual({
      selector: '0x095ea7b3',
      known: true,
      name: 'approve',
      signature: 'approve(address,uint256)',
      args: [
        { name: 'spender', type: 'address', value: EOA },
        { name: 'value', type: 'uint256', value: '7' },
      ],
    })
  })
})

describe('decodeCalldata: unknown and malformed calldata', () => {
  it('reports empty calldata, short calldata and unknown selectors without guessing', () => {
    expect(decodeCalldata('0x', TOKEN)).toEqual({ selector: null, known: false, reason: 'empty' })
    expect(decodeCalldata('0xa905', TOKEN)).toEqual({
      selector: null,
      known: false,
      reason: 'too_short',
    })
    expect(decodeCalldata('0x12345678aabb', TOKEN)).toEqual({
      selector: '0x12345678',
      known: false,
      reason: 'unknown_selector',
    })
  })

  it('reports a known selector with truncated arguments as malformed', () => {
    const data = encode('approve', [EOA, 7n]).slice(0, 40) as Hex
    expect(decodeCalldata(data, TOKEN)).toEqual({
      selector: '0x095ea7b3',
      known: false,
      reason: 'malformed_arguments',
    })
  })

  it('refuses calldata over the size bound without decoding it', () => {
    const data = `0xac9650d8${'00'.repeat(DECODE_LIMITS.maxCalldataBytes)}` as Hex
    expect(decodeCalldata(data, TOKEN)).toMatchObject({ known: false, reason: 'too_large' })
  })

  it('never throws and stays JSON-safe on random calldata', () => {
    const selectors = ['ac9650d8', '82ad56cb', '3593564c', '6a761202', '095ea7b3', '2b67b570']
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...selectors), { nil: undefined }),
        fc.uint8Array({ maxLength: 600 }),
        (selector, bytes) => {
          const data = `0x${selector ?? ''}${Buffer.from(bytes).toString('hex')}` as Hex
          const out = decodeCalldata(data, TOKEN)
          expect(JSON.parse(JSON.stringify(out))).toEqual(out)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('is deterministic', () => {
    const data = encode('multicall', [[encode('approve', [EOA, 1n]), '0xdeadbeef']])
    expect(decodeCalldata(data, TOKEN)).toEqual(decodeCalldata(data, TOKEN))
  })
})

describe('decodeCalldata: containers', () => {
  it('opens multicall(bytes[]) with the same target for every item', () => {
    const data = encodeSig('multicall(bytes[])', [
      [encode('approve', [EOA, 1n]), '0xdeadbeef', encode('transfer', [EOA, 2n])],
    ])
    const call = known(decodeCalldata(data, ROUTER))
    expect(
      call.calls?.map((c) => [c.path, c.target, c.call.known ? c.call.name : c.call.reason]),
    ).toEqual([
      ['multicall[0]', ROUTER, 'approve'],
      ['multicall[1]', ROUTER, 'unknown_selector'],
      ['multicall[2]', ROUTER, 'transfer'],
    ])
  })

  it('opens multicall(uint256,bytes[])', () => {
    const data = encodeSig('multicall(uint256,bytes[])', [99n, [encode('approve', [EOA, 1n])]])
    const call = known(decodeCalldata(data, ROUTER))
    expect(call.selector).toBe('0x5ae401dc')
    expect(call.calls?.[0]).toMatchObject({ path: 'multicall[0]', call: { name: 'approve' } })
  })

  it('opens aggregate3 with each call target and allowFailure, and aggregate3Value with value', () => {
    const agg = encode('aggregate3', [
      [
        { target: TOKEN, allowFailure: false, callData: encode('approve', [EOA, 1n]) },
        { target: SAFE, allowFailure: true, callData: '0x' },
      ],
    ])
    expect(known(decodeCalldata(agg, MULTICALL3)).calls).toEqual([
      {
        path: 'aggregate3[0]',
        target: TOKEN,
        allowFailure: false,
        call: expect.objectContaining({ name: 'approve' }),
      },
      {
        path: 'aggregate3[1]',
        target: SAFE,
        allowFailure: true,
        call: { selector: null, known: false, reason: 'empty' },
      },
    ])
    const withValue = encode('aggregate3Value', [
      [{ target: EOA, allowFailure: false, value: 5n, callData: '0x' }],
    ])
    expect(known(decodeCalldata(withValue, MULTICALL3)).calls?.[0]).toMatchObject({
      target: EOA,
      value: '5',
    })
  })

  it('opens Safe execTransaction with its operation and value', () => {
    for (const [operation, expected] of [
      [0, 'call'],
      [1, 'delegatecall'],
    ] as const) {
      const data = encode('execTransaction', [
        TOKEN,
        3n,
        encode('approve', [EOA, 1n]),
        operation,
        0n,
        0n,
        0n,
        EOA,
        EOA,
        '0x',
      ])
      expect(known(decodeCalldata(data, SAFE)).calls).toEqual([
        {
          path: 'execTransaction[0]',
          target: TOKEN,
          value: '3',
          operation: expected,
          call: expect.objectContaining({ name: 'approve' }),
        },
      ])
    }
  })

  it('opens upgradeToAndCall as a delegatecall in the proxy', () => {
    const data = encode('upgradeToAndCall', [EOA, encode('transferOwnership', [SAFE])])
    expect(known(decodeCalldata(data, SAFE)).calls?.[0]).toMatchObject({
      path: 'upgradeToAndCall[0]',
      target: SAFE,
      operation: 'delegatecall',
      call: { name: 'transferOwnership' },
    })
  })

  it('nests paths through several containers', () => {
    const inner = encode('aggregate3', [
      [{ target: TOKEN, allowFailure: false, callData: encode('approve', [EOA, 1n]) }],
    ])
    const data = encode('multicall', [['0x12345678', inner]])
    const call = known(decodeCalldata(data, MULTICALL3))
    const nested = known(call.calls?.[1]?.call ?? { selector: null, known: false, reason: 'empty' })
    expect(nested.calls?.[0]?.path).toBe('multicall[1].aggregate3[0]')
  })

  it('decodes Universal Router commands and inputs for both execute selectors', () => {
    const commands = [0x0a, 0x02, 0x00, 0x08, 0x04, 0x05, 0x06, 0x0b, 0x0c, 0x03, 0x10, 0x80 | 0x0c]
    const path = `0x${TOKEN.slice(2)}000bb8${EOA.slice(2)}` as Hex
    const inputs = [
      commandInput(0x0a, [{ details, spender: ROUTER, sigDeadline: 5n }, '0x1234']),
      commandInput(0x02, [TOKEN, ROUTER, 100n]),
      commandInput(0x00, [EOA, 100n, 90n, path, true]),
      commandInput(0x08, [EOA, 100n, 90n, [TOKEN, EOA], false]),
      commandInput(0x04, [TOKEN, EOA, 1n]),
      commandInput(0x05, [TOKEN, EOA, 2n]),
      commandInput(0x06, [TOKEN, EOA, 25n]),
      commandInput(0x0b, [ROUTER, 10n]),
      commandInput(0x0c, [EOA, 10n]),
      commandInput(0x03, [{ details: [details], spender: ROUTER, sigDeadline: 5n }, '0x']),
      '0xabcdef',
      commandInput(0x0c, [EOA, 0n]),
    ]
    for (const data of [
      encodeSig('execute(bytes,bytes[],uint256)', [toHex(new Uint8Array(commands)), inputs, 9n]),
      encodeSig('execute(bytes,bytes[])', [toHex(new Uint8Array(commands)), inputs]),
    ]) {
      const call = known(decodeCalldata(data, ROUTER))
      expect(
        call.calls?.map((c) => [
          c.path,
          c.call.known ? c.call.name : c.call.reason,
          c.allowFailure,
        ]),
      ).toEqual([
        ['execute[0]', 'PERMIT2_PERMIT', false],
        ['execute[1]', 'PERMIT2_TRANSFER_FROM', false],
        ['execute[2]', 'V3_SWAP_EXACT_IN', false],
        ['execute[3]', 'V2_SWAP_EXACT_IN', false],
        ['execute[4]', 'SWEEP', false],
        ['execute[5]', 'TRANSFER', false],
        ['execute[6]', 'PAY_PORTION', false],
        ['execute[7]', 'WRAP_ETH', false],
        ['execute[8]', 'UNWRAP_WETH', false],
        ['execute[9]', 'PERMIT2_PERMIT_BATCH', false],
        ['execute[10]', 'unknown_command', false],
        ['execute[11]', 'UNWRAP_WETH', true],
      ])
      expect(call.calls?.[0]?.call).toMatchObject({
        selector: '0x0a',
        signature: 'PERMIT2_PERMIT(((address,uint160,uint48,uint48),address,uint256),bytes)',
      })
      expect(argValues(call.calls?.[5]?.call as DecodedCall)).toEqual({
        token: TOKEN,
        recipient: EOA,
        value: '2',
      })
    }
  })

  it('marks a command without an input as malformed', () => {
    const data = encodeSig('execute(bytes,bytes[])', [
      '0x0405',
      [commandInput(0x04, [TOKEN, EOA, 1n])],
    ])
    expect(known(decodeCalldata(data, ROUTER)).calls?.[1]?.call).toEqual({
      selector: '0x05',
      known: false,
      reason: 'malformed_arguments',
    })
  })

  it('decodes Permit2 calls sent to Permit2 the same way', () => {
    const data = encodeSig('approve(address,address,uint160,uint48)', [TOKEN, EOA, 1n, 2])
    expect(known(decodeCalldata(data, PERMIT2)).signature).toBe(
      'approve(address,address,uint160,uint48)',
    )
  })
})

describe('decodeCalldata: hostile calldata stays bounded', () => {
  it('stops opening containers below the depth limit', () => {
    let data = encode('approve', [EOA, 1n])
    for (let i = 0; i < 12; i++) data = encode('multicall', [[data]])
    let call = decodeCalldata(data, ROUTER)
    let depth = 0
    while (call.known && call.calls?.[0]) {
      call = call.calls[0].call
      depth++
    }
    expect(depth).toBe(DECODE_LIMITS.maxDepth + 1)
    expect(call).toMatchObject({ known: false, reason: 'depth_limit', selector: '0xac9650d8' })
  })

  it('decodes at most maxNestedCalls nested calls and counts the rest', () => {
    const approve = encode('approve', [EOA, 1n])
    const wide = encode('multicall', [Array.from({ length: 40 }, () => approve)])
    const data = encode('multicall', [[wide, wide, wide]])
    const call = known(decodeCalldata(data, ROUTER))
    let count = 0
    let omitted = 0
    const walk = (c: DecodedCall): void => {
      if (!c.known) return
      omitted += c.omittedCalls ?? 0
      for (const n of c.calls ?? []) {
        count++
        walk(n.call)
      }
    }
    walk(call)
    // 64 decoded: the first `wide` and its 40 items, the second and 22 of its items. Omitted are
    // the second's other 18 items and the third `wide` (whose items are never looked at).
    expect(count).toBe(DECODE_LIMITS.maxNestedCalls)
    expect(omitted).toBe(19)
  })

  it('refuses aliased offsets that would multiply one blob', () => {
    // bytes[] of 512 entries whose offsets all point at one 8 KiB blob: 4 MiB of output if decoded.
    const n = 512
    const word = (x: number | bigint) => BigInt(x).toString(16).padStart(64, '0')
    const blob = `${word(8192)}${'ab'.repeat(8192)}`
    const offsets = Array.from({ length: n }, () => word(n * 32)).join('')
    const data = `0xac9650d8${word(32)}${word(n)}${offsets}${blob}` as Hex
    const started = performance.now()
    expect(decodeCalldata(data, ROUTER)).toEqual({
      selector: '0xac9650d8',
      known: false,
      reason: 'malformed_arguments',
    })
    expect(performance.now() - started).toBeLessThan(50)
  })

  it('decodes a large honest multicall quickly', () => {
    const approve = encode('approve', [EOA, 1n])
    const data = encode('multicall', [Array.from({ length: 200 }, () => approve)])
    const started = performance.now()
    const call = known(decodeCalldata(data, ROUTER))
    expect(call.calls).toHaveLength(DECODE_LIMITS.maxNestedCalls)
    expect(call.omittedCalls).toBe(200 - DECODE_LIMITS.maxNestedCalls)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('decodeCalldata: aliasing guard', () => {
  const word = (x: number | bigint) => BigInt(x).toString(16).padStart(64, '0')

  it('refuses overlapping payloads in aggregate3 tuples', () => {
    // two tuples whose callData offsets land on the same bytes
    const tuple = (callDataOffset: number) =>
      `${word(BigInt(TOKEN))}${word(0)}${word(callDataOffset)}`
    // content: [off0, off1] then tuple0 at 64, tuple1 at 160, shared blob at 256
    const blob = `${word(4)}${'12345678'.padEnd(64, '0')}`
    const data =
      `0x82ad56cb${word(32)}${word(2)}${word(64)}${word(160)}${tuple(192)}${tuple(96)}${blob}` as Hex
    expect(decodeCalldata(data, MULTICALL3)).toMatchObject({
      known: false,
      reason: 'malformed_arguments',
    })
  })

  it('accepts what viem encodes for every container', () => {
    const approve = encode('approve', [EOA, 1n])
    const datas = [
      encodeSig('multicall(bytes[])', [[approve, approve, '0x']]),
      encodeSig('multicall(uint256,bytes[])', [1n, [approve, '0x', approve]]),
      encode('aggregate', [
        [
          { target: TOKEN, callData: approve },
          { target: TOKEN, callData: '0x' },
        ],
      ]),
      encode('tryAggregate', [false, [{ target: TOKEN, callData: approve }]]),
      encode('aggregate3Value', [
        [
          { target: TOKEN, allowFailure: true, value: 0n, callData: '0x' },
          { target: TOKEN, allowFailure: true, value: 1n, callData: approve },
        ],
      ]),
      encodeSig('execute(bytes,bytes[])', ['0x0505', [approve, approve]]),
    ]
    for (const data of datas) expect(decodeCalldata(data, ROUTER).known).toBe(true)
  })
})

describe('decodeCalldata: Universal Router sub-plans', () => {
  const sub = (type: number, commands: number[], inputs: Hex[]) =>
    commandInput(type, [toHex(new Uint8Array(commands)), inputs])
  const permit = commandInput(0x0a, [{ details, spender: EOA, sigDeadline: 5n }, '0x'])
  const execute = (commands: number[], inputs: Hex[]) =>
    encodeSig('execute(bytes,bytes[],uint256)', [toHex(new Uint8Array(commands)), inputs, 9n])

  it('opens EXECUTE_SUB_PLAN (0x20 in router v1.0/v1.1, 0x21 in v1.2 and v2) as commands', () => {
    for (const type of [0x20, 0x21, 0x80 | 0x21]) {
      const data = execute(
        [type],
        [sub(type & 0x3f, [0x0a, 0x05], [permit, commandInput(0x05, [TOKEN, EOA, 1n])])],
      )
      const plan = known(decodeCalldata(data, ROUTER)).calls?.[0]
      expect(plan).toMatchObject({
        path: 'execute[0]',
        target: ROUTER,
        allowFailure: type >= 0x80,
        call: {
          selector: `0x${(type & 0x3f).toString(16)}`,
          name: 'EXECUTE_SUB_PLAN',
          signature: 'EXECUTE_SUB_PLAN(bytes,bytes[])',
        },
      })
      expect(
        known(plan?.call as DecodedCall).calls?.map((c) => [
          c.path,
          c.target,
          c.call.known && c.call.name,
        ]),
      ).toEqual([
        ['execute[0].EXECUTE_SUB_PLAN[0]', ROUTER, 'PERMIT2_PERMIT'],
        ['execute[0].EXECUTE_SUB_PLAN[1]', ROUTER, 'TRANSFER'],
      ])
    }
  })

  it('opens sub-plans inside sub-plans within the depth bound', () => {
    let input = permit
    let type = 0x0a
    for (let i = 0; i < 6; i++) {
      input = sub(0x21, [type], [input])
      type = 0x21
    }
    let call = decodeCalldata(execute([0x21], [input]), ROUTER)
    let depth = 0
    while (call.known && call.calls?.[0]) {
      call = call.calls[0].call
      depth++
    }
    expect(depth).toBe(DECODE_LIMITS.maxDepth + 1)
    expect(call).toMatchObject({ known: false, reason: 'depth_limit' })
  })

  it('marks a sub-plan whose commands and inputs do not line up as malformed', () => {
    const data = execute([0x21], [sub(0x21, [0x0a, 0x0a], [permit])])
    expect(known(decodeCalldata(data, ROUTER)).calls?.[0]?.call).toEqual({
      selector: '0x21',
      known: false,
      reason: 'malformed_arguments',
    })
  })

  it('does not read a v1.x SEAPORT_V1_4 input (uint256 value, bytes data) as a sub-plan', () => {
    const seaport = encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'bytes' }],
      [10n ** 16n, encode('transfer', [EOA, 1n])],
    )
    for (const type of [0x20, 0x21]) {
      expect(known(decodeCalldata(execute([type], [seaport]), ROUTER)).calls?.[0]?.call).toEqual({
        selector: `0x${type.toString(16)}`,
        known: false,
        reason: 'malformed_arguments',
      })
    }
  })

  it('refuses a sub-plan whose inputs alias one blob', () => {
    const word = (x: number | bigint) => BigInt(x).toString(16).padStart(64, '0')
    const n = 64
    const commands = `${word(n)}${'0a'.repeat(n).padEnd(Math.ceil(n / 32) * 64, '0')}`
    const blob = `${word(2048)}${'ab'.repeat(2048)}`
    const listAt = 64 + commands.length / 2
    const offsets = Array.from({ length: n }, () => word(n * 32)).join('')
    const input = `0x${word(64)}${word(listAt)}${commands}${word(n)}${offsets}${blob}` as Hex
    expect(known(decodeCalldata(execute([0x21], [input]), ROUTER)).calls?.[0]?.call).toEqual({
      selector: '0x21',
      known: false,
      reason: 'malformed_arguments',
    })
  })

  it('counts sub-plan commands against the nested-call budget', () => {
    const transfer = commandInput(0x05, [TOKEN, EOA, 1n])
    const wide = sub(0x21, Array(40).fill(0x05), Array(40).fill(transfer))
    const call = known(decodeCalldata(execute([0x21, 0x21], [wide, wide]), ROUTER))
    const second = known(call.calls?.[1]?.call as DecodedCall)
    expect(known(call.calls?.[0]?.call as DecodedCall).calls).toHaveLength(40)
    expect(second.calls).toHaveLength(DECODE_LIMITS.maxNestedCalls - 40 - 2)
    expect(second.omittedCalls).toBe(40 - (DECODE_LIMITS.maxNestedCalls - 40 - 2))
  })
})
