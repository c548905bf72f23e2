import { z } from '@hono/zod-openapi'
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
    severity: z.enum(['critical', 'warning', 'info']).openapi({
      description: 'critical makes the verdict block, warning review, info changes nothing.',
    }),
    title: z.string(),
    detail: z.string().openapi({ description: 'Names the addresses and amounts involved.' }),
    path: z.string().optional().openapi({
      description: 'Where in nested calldata the finding comes from, e.g. `multicall[2].approve`.',
    }),
  })
  .openapi('Finding')

const DecodedRevertSchema = z.custom<DecodedRevert>().openapi('DecodedRevert', {
  type: 'object',
  description:
    '`kind` is one of empty, error (Error(string): `reason`), panic (`code`, `meaning`), custom (`name`, `signature`, `args`), unknown.',
  properties: { kind: { type: 'string', enum: ['empty', 'error', 'panic', 'custom', 'unknown'] } },
  required: ['kind'],
})

const RevertSchema = z
  .object({ data: hex, selector: hex.nullable(), decoded: DecodedRevertSchema })
  .openapi('Revert')

const DecodedCallSchema = z.custom<DecodedCall>().openapi('DecodedCall', {
  type: 'object',
  description:
    'The calldata decoded: `selector`, `known`, and for known functions `name`, `signature`, `args` ([{name, type, value}]) and, for containers (multicall, aggregate3, Universal Router execute, Safe execTransaction), nested `calls` with their `path`. Unknown selectors are reported as unknown, never guessed.',
})

/** The read-only preflight answer (spec 2.4). */
export const PreflightResultSchema = z
  .object({
    verdict: z.enum(['sign', 'review', 'block']).openapi({
      description:
        'Worst severity among findings: critical -> block, warning -> review, else sign.',
    }),
    findings: z.array(FindingSchema),
    environment: z.enum(['devnet', 'mainnet']).openapi({
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
          revert: RevertSchema.nullable(),
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
        l1DataFee: wei('L1 data fee from the GasPriceOracle predeploy (getL1Fee).'),
        totalCost: wei('l2ExecutionCost + l1DataFee.'),
        totalCostMax: wei('l2ExecutionCostMax + l1DataFee.'),
        totalCostPlusValue: wei('totalCostMax + value: what the sender must hold.'),
      })
      .openapi('FeeContext'),
    decoded: DecodedCallSchema,
  })
  .openapi('PreflightResult')
