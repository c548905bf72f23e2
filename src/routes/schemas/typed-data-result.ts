import { z } from '@hono/zod-openapi'
import { ENVIRONMENTS, VERDICTS } from '@pre-send-guard/client/types'
import { FindingSchema } from './preflight-result.js'

const decimal = z.string().regex(/^-?[0-9]+$/)
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/)
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)

const KINDS = [
  'eip2612-permit',
  'dai-permit',
  'permit2-permit-single',
  'permit2-permit-batch',
  'permit2-permit-transfer-from',
  'permit2-permit-batch-transfer-from',
  'permit2-permit-witness-transfer-from',
  'permit2-permit-batch-witness-transfer-from',
  'eip3009-transfer-with-authorization',
  'eip3009-receive-with-authorization',
  'seaport-order',
  'safe-tx',
  'unknown',
] as const

/** The typed-data preflight answer (documentation; the domain builds it). */
export const TypedDataResultSchema = z
  .object({
    verdict: z.enum(VERDICTS),
    findings: z.array(FindingSchema),
    environment: z.enum(ENVIRONMENTS),
    chainId: z.string(),
    network: z.string(),
    block: z.object({ number: decimal, hash: hex, timestamp: decimal }),
    signer: address,
    typedData: z.object({
      primaryType: z.string(),
      digest: hex.openapi({ description: 'The EIP-712 digest the signer would sign.' }),
      domainSeparator: hex,
      domain: z.object({
        name: z.string().optional(),
        version: z.string().optional(),
        chainId: decimal.optional(),
        verifyingContract: address.optional(),
        salt: hex.optional(),
      }),
    }),
    kind: z.enum(KINDS).openapi({
      description: 'Recognised by the structure of the primary type, never by names alone.',
    }),
    standardName: z.string().nullable(),
    renamed: z
      .boolean()
      .openapi({ description: "The structure is a known kind's, the type name is not." }),
    witness: z.object({ name: z.string(), type: z.string() }).nullable(),
    decoded: z.record(z.string(), z.unknown()).openapi({
      description: 'The message, validated: integers as decimal strings, addresses checksummed.',
    }),
    grants: z.array(
      z.object({
        at: z.string(),
        owner: address,
        token: address,
        spender: address,
        amount: decimal,
        unlimited: z.boolean(),
        revoke: z.boolean(),
        use: z.enum(['allowance', 'transfer']),
        decimals: z.number().int().nullable(),
        symbol: z.string().nullable(),
      }),
    ),
    deadlines: z.array(
      z.object({
        field: z.string(),
        value: decimal,
        never: z.boolean(),
        secondsAfterBlock: decimal,
      }),
    ),
    chainFacts: z.object({
      verifyingContract: z.object({ address, hasCode: z.boolean() }).nullable(),
      contractDomain: z.object({
        source: z.enum(['eip5267', 'permit2', 'name', 'none']),
        name: z.string().nullable(),
        version: z.string().nullable(),
        chainId: decimal.nullable(),
        verifyingContract: address.nullable(),
        salt: hex.nullable(),
        separator: hex.nullable(),
      }),
      spenders: z.array(z.object({ address, hasCode: z.boolean() })),
      nonces: z.array(
        z.object({
          kind: z.string(),
          status: z.enum(['current', 'used', 'future', 'unknown']),
          current: decimal.nullable(),
        }),
      ),
    }),
  })
  .openapi('TypedDataPreflightResult')
