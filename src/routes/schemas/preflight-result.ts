import { z } from '@hono/zod-openapi'
import { ENVIRONMENTS, SEVERITIES, VERDICTS } from '@pre-send-guard/client/types'
import type { DecodedCall } from '../../domain/calldata/decode-calldata.js'
import type { DecodedRevert } from '../../domain/revert/decode-revert.js'

const wei = (description: string) =>
  z
    .string()
    .regex(/^[0-9]+$/)
    .openapi({ description: `${description} Wei, decimal string.` })
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/)

/** One explained finding. */
export const FindingSchema = z
  .object({
    id: z.string().openapi({ description: 'Stable rule id (see docs/rules.md).' }),
    severity: z.enum(SEVERITIES).openapi({
      description: 'critical makes the verdict block, warning review, info changes nothing.',
    }),
    title: z.string(),
    detail: z.string().openapi({ description: 'Names the addresses and amounts involved.' }),
    path: z.string().optional().openapi({
      description: 'Where in nested calldata the finding comes from, e.g. `multicall[2].approve`.',
    }),
  })
  .openapi('Finding')

const hexString = { type: 'string', pattern: '^0x[0-9a-fA-F]*$' } as const
const jsonValue = {
  description: 'JSON-safe ABI value: integers over 48 bits are decimal strings, tuples objects.',
} as const

const DecodedRevertSchema = z.custom<DecodedRevert>().openapi('DecodedRevert', {
  type: 'object',
  description:
    'Revert data decoded. `kind`: `empty` (no data), `error` (`Error(string)`: `reason`), `panic` (`Panic(uint256)`: `code`, `codeHex`, `meaning`), `custom` (a known custom error of OpenZeppelin ERC-20/721/1155, Ownable, AccessControl, SafeERC20, ERC-1967/UUPS or Permit2: `name`, `signature`, `args`), `unknown` (selector not known; never guessed).',
  oneOf: [
    {
      type: 'object',
      required: ['kind'],
      properties: { kind: { type: 'string', enum: ['empty'] } },
    },
    {
      type: 'object',
      required: ['kind', 'selector', 'reason'],
      properties: {
        kind: { type: 'string', enum: ['error'] },
        selector: hexString,
        reason: { type: 'string' },
      },
    },
    {
      type: 'object',
      required: ['kind', 'selector', 'code', 'codeHex', 'meaning'],
      properties: {
        kind: { type: 'string', enum: ['panic'] },
        selector: hexString,
        code: { type: 'number' },
        codeHex: hexString,
        meaning: { type: 'string' },
      },
    },
    {
      type: 'object',
      required: ['kind', 'selector', 'name', 'signature', 'args'],
      properties: {
        kind: { type: 'string', enum: ['custom'] },
        selector: hexString,
        name: { type: 'string', example: 'ERC20InsufficientBalance' },
        signature: { type: 'string' },
        args: { type: 'object', additionalProperties: jsonValue },
      },
    },
    {
      type: 'object',
      required: ['kind', 'selector'],
      properties: {
        kind: { type: 'string', enum: ['unknown'] },
        selector: { type: ['string', 'null'], pattern: hexString.pattern },
      },
    },
  ],
})

const RevertSchema = z
  .object({ data: hex, selector: hex.nullable(), decoded: DecodedRevertSchema })
  .openapi('Revert')

const DecodedCallSchema = z.custom<DecodedCall>().openapi('DecodedCall', {
  type: 'object',
  description:
    'The calldata decoded. Known functions carry `name`, `signature` and named `args`; containers (multicall, Multicall3 aggregate3, Universal Router execute, Safe execTransaction) carry their nested `calls` in execution order, each with its `path` (e.g. `multicall[2]`), `target`, and where meaningful `value`, `operation` and `allowFailure`. Unknown or unreadable calldata is `known: false` with a `reason`; it is never guessed. Bounds: depth 4, 64 nested calls (`omittedCalls` counts the rest), 131,072 bytes.',
  oneOf: [
    {
      type: 'object',
      required: ['selector', 'known', 'name', 'signature', 'args'],
      properties: {
        selector: {
          ...hexString,
          description: 'Four-byte selector (one byte for Universal Router commands).',
        },
        known: { type: 'boolean', enum: [true] },
        name: { type: 'string', example: 'approve' },
        signature: { type: 'string', example: 'approve(address,uint256)' },
        args: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'type', 'value'],
            properties: { name: { type: 'string' }, type: { type: 'string' }, value: jsonValue },
          },
        },
        calls: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'target', 'call'],
            properties: {
              path: { type: 'string', example: 'multicall[2]' },
              target: hexString,
              value: { type: 'string', description: 'Wei, decimal string.' },
              operation: { type: 'string', enum: ['call', 'delegatecall'] },
              allowFailure: { type: 'boolean' },
              call: { $ref: '#/components/schemas/DecodedCall' },
            },
          },
        },
        omittedCalls: { type: 'integer' },
      },
    },
    {
      type: 'object',
      required: ['selector', 'known', 'reason'],
      properties: {
        selector: { type: ['string', 'null'], pattern: hexString.pattern },
        known: { type: 'boolean', enum: [false] },
        reason: {
          type: 'string',
          enum: [
            'empty',
            'too_short',
            'too_large',
            'unknown_selector',
            'unknown_command',
            'malformed_arguments',
            'depth_limit',
          ],
        },
      },
    },
  ],
})

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const AssetSchema = z
  .object({
    standard: z.enum(['eth', 'erc20', 'erc721', 'erc1155']),
    token: address.nullable().openapi({ description: 'Null for ETH.' }),
    tokenId: z.string().nullable().openapi({ description: 'ERC-721/1155 id, decimal string.' }),
    symbol: z
      .string()
      .nullable()
      .openapi({ description: 'Read at the pinned block; null when unreadable.' }),
    decimals: z.number().int().nullable(),
  })
  .openapi('EffectAsset')
export const ChangeSchema = z
  .object({
    asset: AssetSchema,
    direction: z.enum(['in', 'out']),
    amount: z
      .string()
      .regex(/^[0-9]+$/)
      .openapi({ description: 'Raw amount, decimal string.' }),
    display: z
      .string()
      .nullable()
      .openapi({ description: 'Human amount, e.g. `1,250.5 USDC`; null when units are unknown.' }),
  })
  .openapi('AssetChange')
const AccountChangesSchema = z
  .object({ account: address, isSender: z.boolean(), changes: z.array(ChangeSchema) })
  .openapi('AccountChanges')
const ApprovalChangeSchema = z
  .object({
    kind: z.enum(['erc20', 'erc721', 'operator', 'permit2']),
    token: address,
    owner: address,
    spender: address,
    amount: z.string().openapi({ description: 'Raw allowance, or `all` for operator grants.' }),
    tokenId: z.string().nullable(),
    expiration: z.string().nullable().openapi({ description: 'Permit2 expiration (unix s).' }),
    revoke: z.boolean(),
    ownerIsSender: z.boolean(),
    via: z.enum(['Approval', 'ApprovalForAll', 'Permit2 Approval', 'Permit2 Permit']),
    display: z.string().nullable(),
  })
  .openapi('ApprovalChange')

/** What execution does to assets and approvals. */
export const EffectsSchema = z
  .union([
    z.object({
      available: z.literal(true),
      source: z.enum(['eth_simulateV1', 'debug_traceCall']),
      assetChanges: z.array(AccountChangesSchema).openapi({
        description:
          'Net change per account whose holdings change (the sender first, then by address), per asset.',
      }),
      approvalChanges: z.array(ApprovalChangeSchema).openapi({
        description:
          'Every Approval, ApprovalForAll and Permit2 Approval/Permit emitted, in order.',
      }),
      senderNet: z.object({
        changes: z.array(ChangeSchema),
        summary: z.string().openapi({ example: '- 100 EFT, + 100 VSH' }),
      }),
      tokenMetadata: z.object({
        limit: z.number().int(),
        omitted: z
          .number()
          .int()
          .openapi({ description: 'Tokens whose symbol/decimals were not read (over the limit).' }),
      }),
    }),
    z.object({ available: z.literal(false), reason: z.string() }),
  ])
  .openapi('ExecutionEffects', {
    description:
      'Asset and approval changes the simulated execution produces (eth_simulateV1 with traced ETH transfers, or a debug_traceCall callTracer trace). `available: false` when the node offers neither.',
  })

/** The read-only preflight answer (spec 2.4). */
export const PreflightResultSchema = z
  .object({
    verdict: z.enum(VERDICTS).openapi({
      description:
        'Worst severity among findings: critical -> block, warning -> review, else sign.',
    }),
    findings: z.array(FindingSchema),
    environment: z.enum(ENVIRONMENTS).openapi({
      description: '`devnet` means the embedded local chain, NOT Base mainnet.',
    }),
    chainId: z.string().openapi({ example: '0x2105' }),
    network: z.string().openapi({ example: 'eip155:8453' }),
    block: z
      .object({ number: z.string(), hash: hex, timestamp: z.string() })
      .openapi({ description: 'The block every read was pinned to.' }),
    transaction: z.object({ from: hex, to: hex, data: hex, value: wei('Value sent.') }),
    call: z
      .union([
        z.object({ success: z.literal(true), returnData: hex }),
        z.object({ success: z.literal(false), message: z.string(), revert: RevertSchema }),
      ])
      .openapi({ description: '`eth_call` result.' }),
    gas: z
      .union([
        z.object({ success: z.literal(true), estimate: z.string() }),
        z.object({
          success: z.literal(false),
          estimate: z.null(),
          message: z.string(),
          // A union, not `.nullable()`: on a registered schema the generator writes
          // `allOf: [$ref, {type: [object, null]}]`, which no null satisfies.
          revert: z.union([RevertSchema, z.null()]).openapi({
            description: 'The revert estimateGas saw, or null when the node gave no revert data.',
          }),
        }),
      ])
      .openapi({ description: '`eth_estimateGas` result.' }),
    fees: z
      .object({
        baseFeePerGas: wei('Base fee of the pinned block.'),
        maxPriorityFeePerGas: wei('Suggested tip: median of recent rewards, at least 0.001 gwei.'),
        maxFeePerGas: wei('Suggested cap: 2 x base fee + tip.'),
        gasLimit: z
          .string()
          .openapi({ description: 'Gas used for the costs (the estimate; 0 if it failed).' }),
        l2ExecutionCost: wei('gas x (base fee + tip): expected L2 execution cost.'),
        l2ExecutionCostMax: wei('gas x max fee: worst-case L2 execution cost.'),
        l1DataFee: wei(
          "L1 data fee as the GasPriceOracle predeploy's getL1Fee computes it (Fjord formula, from the oracle's parameters at the pinned block); the Isthmus operator fee is not included.",
        ),
        totalCost: wei('l2ExecutionCost + l1DataFee.'),
        totalCostMax: wei('l2ExecutionCostMax + l1DataFee.'),
        totalCostPlusValue: wei('totalCostMax + value: what the sender must hold.'),
      })
      .openapi('FeeContext'),
    decoded: DecodedCallSchema,
    effects: EffectsSchema,
  })
  .openapi('PreflightResult')
