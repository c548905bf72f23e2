import { createHash } from 'node:crypto'
import {
  type AbiFunction,
  type AbiParameter,
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  keccak256,
  toBytes,
  toFunctionSelector,
} from 'viem'
import { formatAbiItem } from 'viem/utils'
import { describe, expect, it } from 'vitest'
import { decodeCalldata } from '../../src/domain/calldata/decode-calldata.js'
import { KNOWN_FUNCTIONS_ABI } from '../../src/domain/calldata/known-functions-abi.js'
import {
  UNIVERSAL_ROUTER_COMMANDS,
  V4_ACTIONS,
} from '../../src/domain/calldata/universal-router-commands.js'
import { keptAddresses } from '../../src/domain/delegation/delegate-probe.js'
import { BASE_MAINNET } from '../../src/domain/network/network-profile.js'
import { positionProbes } from '../../src/domain/preflight/position-reads.js'
import { KNOWN_CODE, recogniseCode } from '../../src/domain/protocols/known-code.js'
import {
  PROTOCOL_FUNCTIONS,
  protocolFunction,
} from '../../src/domain/protocols/protocol-catalogue.js'
import {
  allAddressesOfInterest,
  standardProbeTargets,
} from '../../src/domain/screen/addresses-of-interest.js'
import {
  catalogued,
  counterpartyAccounts,
  tipEffects,
} from '../../src/domain/screen/beneficiary-effects.js'
import { knownCallSite } from '../../src/domain/screen/call-args.js'
import { callEffects } from '../../src/domain/screen/call-effects.js'
import { callSites } from '../../src/domain/screen/call-sites.js'
import { calldataTokenParts, swapTokens } from '../../src/domain/screen/calldata-tokens.js'
import type { TokenStandard, TransactionInput } from '../../src/domain/screen/context.js'
import { swapOutputHops } from '../../src/domain/tokens/swap-hops.js'

/**
 * A byte-level record of what the screen knows about calls, over every function the decoder
 * knows and every Universal Router command and v4 action, each with arguments made up by a fixed
 * rule (three variants: the sender's own addresses and small amounts; strangers, zeros and
 * `false`; Uniswap's placeholders and the largest values), at top level and nested in a
 * Multicall3 `aggregate3`: the decoded call, every effect the screen reads from it (approvals,
 * transfers, privileged and power changes, beneficiaries, counterparties, tips, catalogue
 * membership), the addresses whose code and standard the preflight reads, the tokens it names,
 * the sell probe's hops and the positions it reads. Plus the known code and the catalogue.
 *
 * Moving protocol knowledge between files must leave this file unchanged, byte for byte
 * (`npx vitest run test/screen/knowledge-snapshot.test.ts -u` rewrites it when a change is meant).
 */

const SENDER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const TARGET: Address = '0x2222222222222222222222222222222222222222'
const STRANGER: Address = '0x3333333333333333333333333333333333333333'
const TOKEN_A: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const TOKEN_B: Address = '0x4200000000000000000000000000000000000006'
const TOKEN_C: Address = '0x940181a94A35A4569E4529A3CDfB74e38FD98631'
const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
const ZERO: Address = '0x0000000000000000000000000000000000000000'
const UR_MSG_SENDER: Address = '0x0000000000000000000000000000000000000001'
const UR_ADDRESS_THIS: Address = '0x0000000000000000000000000000000000000002'

/** Addresses by variant: cycled through by parameter position. */
const ADDRESSES: readonly (readonly Address[])[] = [
  [SENDER, TOKEN_A, TOKEN_B, TARGET],
  [STRANGER, ZERO, TOKEN_C, SENDER],
  [UR_MSG_SENDER, UR_ADDRESS_THIS, STRANGER, TOKEN_A],
]
const ROLES: readonly Hex[] = [
  `0x${'00'.repeat(32)}`,
  keccak256(toBytes('MINTER_ROLE')),
  `0x${'ab'.repeat(32)}`,
]

/** Calldata nested in `bytes` arguments of the third variant (a container then has a child). */
const NESTED_APPROVE: Hex = encodeFunctionData({
  abi: [
    {
      type: 'function',
      name: 'approve',
      stateMutability: 'nonpayable',
      inputs: [
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
      ],
      outputs: [],
    },
  ],
  args: [STRANGER, 2n ** 256n - 1n],
})

/** Made-up values for `params`, by variant; `counter` spreads addresses over positions. */
function values(params: readonly AbiParameter[], variant: number, counter: { n: number }) {
  return params.map((p) => value(p, variant, counter))
}

function value(p: AbiParameter, variant: number, counter: { n: number }): unknown {
  const type = p.type
  const array = /^(.*)\[(\d*)\]$/.exec(type)
  if (array) {
    const inner = { ...p, type: array[1] ?? '' } as AbiParameter
    const length = array[2] === '' ? 2 : Number(array[2])
    return Array.from({ length }, () => value(inner, variant, counter))
  }
  if (type === 'tuple') {
    const components = (p as { components: readonly AbiParameter[] }).components
    return Object.fromEntries(components.map((c) => [c.name, value(c, variant, counter)]))
  }
  if (type === 'address') {
    const list = ADDRESSES[variant] as readonly Address[]
    return list[counter.n++ % list.length]
  }
  if (type === 'bool') return variant !== 1
  if (type === 'string') return variant === 0 ? 'name' : ''
  if (type === 'bytes32') return ROLES[variant]
  if (type === 'bytes') {
    if (p.name === 'path') {
      return variant === 1
        ? encodePacked(['address', 'uint24', 'address'], [TOKEN_C, 3000, TOKEN_A])
        : encodePacked(
            ['address', 'uint24', 'address', 'uint24', 'address'],
            [TOKEN_A, 500, TOKEN_B, 10_000, TOKEN_C],
          )
    }
    return variant === 2 ? NESTED_APPROVE : '0x'
  }
  const bytes = /^bytes(\d+)$/.exec(type)
  if (bytes) return `0x${'cd'.repeat(Number(bytes[1]))}`
  const int = /^(u?)int(\d*)$/.exec(type)
  if (int) {
    const bits = BigInt(int[2] === '' ? 256 : Number(int[2]))
    const signed = int[1] === ''
    const max = 2n ** (signed ? bits - 1n : bits) - 1n
    // Small fields (a Safe operation, a fee tier) get 1: a delegatecall, the smallest tier.
    const n = variant === 1 ? 0n : variant === 2 ? max : bits <= 8n ? 1n : 1000n
    return bits <= 48n ? Number(n) : n
  }
  throw new Error(`no value for ${type}`)
}

/** The made-up addresses by name, to keep the file small: `SENDER` as given, `sender` lower-case. */
const NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    SENDER,
    TARGET,
    STRANGER,
    TOKEN_A,
    TOKEN_B,
    TOKEN_C,
    MULTICALL3,
    ZERO,
    UR_MSG_SENDER,
    UR_ADDRESS_THIS,
  }).flatMap(([name, a]) => [
    [a, name],
    [a.toLowerCase(), a === a.toLowerCase() ? name : name.toLowerCase()],
  ]),
)

/**
 * JSON with bigints as `<n>n`, the made-up addresses by name, keys in insertion order, empty
 * lists left out (size).
 */
function json(value: unknown): string {
  return JSON.stringify(value, (_, v) => {
    if (typeof v === 'bigint') return `${v}n`
    if (typeof v === 'string') return NAMES.get(v) ?? v
    return Array.isArray(v) && v.length === 0 ? undefined : v
  })
}

const STANDARDS: ReadonlyMap<string, TokenStandard> = new Map([
  [TARGET.toLowerCase(), 'erc721'],
  [TOKEN_A.toLowerCase(), 'erc20'],
])

/**
 * What the screen and the preflight read from one transaction. The decoded tree (names, types
 * and values of every argument, the nested calls) is kept as its SHA-256 at top level only:
 * in full it would be most of the file, and nested it is the same tree one level down.
 */
function knowledge(tx: TransactionInput, top: boolean): object {
  const decoded = decodeCalldata(tx.data, tx.to)
  const sites = callSites(tx, decoded).map((site) => {
    const known = knownCallSite(site)
    return {
      path: site.path ?? null,
      caller: site.caller,
      key: known?.key ?? null,
      effects: callEffects(site),
      catalogued: known ? catalogued(known) !== undefined : false,
      counterparties: known ? counterpartyAccounts(known) : [],
      tips: known ? tipEffects(known) : [],
    }
  })
  const annotated = callSites(tx, decoded, STANDARDS).map((site) => callEffects(site).approvals)
  return {
    ...(top ? { decoded: createHash('sha256').update(json(decoded)).digest('hex') } : {}),
    sites,
    annotated,
    interest: allAddressesOfInterest(tx, decoded),
    standards: standardProbeTargets(tx, decoded),
    tokens: calldataTokenParts(tx, decoded),
    swapTokens: swapTokens(tx, decoded),
    hops: swapOutputHops(tx, decoded),
    positions: positionProbes([tx], [decoded]),
  }
}

/** Every function the decoder knows, by canonical signature. */
const FUNCTIONS = (KNOWN_FUNCTIONS_ABI as readonly { type: string }[])
  .filter((item): item is AbiFunction => item.type === 'function')
  .map((item) => ({ item, signature: formatAbiItem(item) }))
  .sort((a, b) => (a.signature < b.signature ? -1 : 1))

const UR_EXECUTE = toFunctionSelector('execute(bytes,bytes[])')

/** A Universal Router `execute(bytes,bytes[])` with one command. */
function routerCall(code: number, input: Hex): Hex {
  const args = encodeAbiParameters(
    [
      { name: 'commands', type: 'bytes' },
      { name: 'inputs', type: 'bytes[]' },
    ],
    [`0x${code.toString(16).padStart(2, '0')}`, [input]],
  )
  return `${UR_EXECUTE}${args.slice(2)}`
}

/** Every sample: a name and its calldata, sent by SENDER to TARGET. */
function samples(): { name: string; data: Hex }[] {
  const out: { name: string; data: Hex }[] = []
  for (const { item, signature } of FUNCTIONS) {
    for (const variant of [0, 1, 2]) {
      let data: Hex
      try {
        data = encodeFunctionData({
          abi: [item],
          args: values(item.inputs, variant, { n: variant }),
        } as never)
      } catch (error) {
        throw new Error(`${signature} variant ${variant}: ${(error as Error).message}`)
      }
      out.push({ name: `${signature} #${variant}`, data })
    }
  }
  for (const [code, command] of [...UNIVERSAL_ROUTER_COMMANDS].sort(([a], [b]) => a - b)) {
    if (command.name === 'EXECUTE_SUB_PLAN') continue
    for (const variant of [0, 1, 2]) {
      const input = encodeAbiParameters(
        command.params,
        values(command.params, variant, { n: variant }) as never,
      )
      out.push({ name: `ur:${command.name} #${variant}`, data: routerCall(code, input) })
    }
  }
  for (const [code, action] of [...V4_ACTIONS].sort(([a], [b]) => a - b)) {
    for (const variant of [0, 1, 2]) {
      const params =
        action.params.length === 1 && action.params[0]?.type === 'bytes'
          ? '0x1234'
          : encodeAbiParameters(
              action.params,
              values(action.params, variant, { n: variant }) as never,
            )
      const plan = encodeAbiParameters(
        [
          { name: 'actions', type: 'bytes' },
          { name: 'params', type: 'bytes[]' },
        ],
        [`0x${code.toString(16).padStart(2, '0')}`, [params]],
      )
      out.push({ name: `v4:${action.name} #${variant}`, data: routerCall(0x10, plan) })
    }
  }
  // Router02's fee-on-transfer swaps, which only the sell probe's hop reader knows.
  for (const signature of [
    'swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)',
    'swapExactETHForTokensSupportingFeeOnTransferTokens(uint256,address[],address,uint256)',
    'swapExactTokensForETHSupportingFeeOnTransferTokens(uint256,uint256,address[],address,uint256)',
  ]) {
    const inputs = signature
      .slice(signature.indexOf('(') + 1, -1)
      .split(',')
      .map((type, i) => ({ name: `a${i}`, type }))
    const args = encodeAbiParameters(inputs, values(inputs, 0, { n: 0 }) as never)
    out.push({ name: signature, data: `${toFunctionSelector(signature)}${args.slice(2)}` })
  }
  return out
}

/** The same calldata as one call of a Multicall3 `aggregate3` the sender makes. */
function nested(data: Hex): Hex {
  return encodeFunctionData({
    abi: [
      {
        type: 'function',
        name: 'aggregate3',
        stateMutability: 'payable',
        inputs: [
          {
            name: 'calls',
            type: 'tuple[]',
            components: [
              { name: 'target', type: 'address' },
              { name: 'allowFailure', type: 'bool' },
              { name: 'callData', type: 'bytes' },
            ],
          },
        ],
        outputs: [],
      },
    ],
    args: [[{ target: TARGET, allowFailure: false, callData: data }]],
  })
}

describe('what the screen knows about calls, byte for byte', () => {
  it('reads every known function, command and action as it did', async () => {
    const lines = samples().flatMap(({ name, data }) => [
      json({ name, at: 'top', ...knowledge({ from: SENDER, to: TARGET, data, value: 0n }, true) }),
      json({
        name,
        at: 'aggregate3',
        ...knowledge({ from: SENDER, to: MULTICALL3, data: nested(data), value: 0n }, false),
      }),
    ])
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
      './__snapshots__/knowledge-calls.jsonl',
    )
  })

  it('knows the same code and catalogue', async () => {
    const known = KNOWN_CODE.map((k) => ({
      ...k,
      recognised: k.addresses.map((a) => recogniseCode(a, '0x60')?.id ?? null),
    }))
    // The catalogue as the screen reads it: the row of each known function, by its key.
    const catalogue = FUNCTIONS.flatMap(({ signature }) => {
      const row = protocolFunction(signature)
      if (row === undefined) return []
      const { signature: _, ...rest } = row
      return [{ key: signature, ...rest }]
    })
    const lines = [
      json({ kept: keptAddresses(BASE_MAINNET.id) }),
      ...known.map((k) => json(k)),
      ...catalogue.map((f) => json(f)),
      json({ rows: PROTOCOL_FUNCTIONS.length }),
    ]
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
      './__snapshots__/knowledge-code.jsonl',
    )
  })
})
