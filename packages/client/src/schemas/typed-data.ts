import { z } from 'zod'
import { DEFAULT_NETWORK } from '../types/networks.js'
import { ENVIRONMENTS, TYPED_DATA_KINDS, VERDICTS } from '../types/vocabulary.js'
import { FindingSchema } from './preflight.js'
import { address, decimal, hex, PinnedBlockSchema } from './primitives.js'

/** A value of the decoded message as JSON: integers as decimal strings. */
export type DecodedValue = string | boolean | DecodedValue[] | { [field: string]: DecodedValue }

/** A signed decimal integer string (seconds after the block may be negative). */
const signedDecimal = z.string().regex(/^-?[0-9]+$/, 'expected a decimal integer string')

/** The typed-data preflight answer. Integers are decimal strings (uint256 exceeds JSON numbers). */
export const TypedDataResultSchema = z
  .object({
    verdict: z.enum(VERDICTS),
    findings: z.array(FindingSchema),
    environment: z.enum(ENVIRONMENTS),
    chainId: hex.meta({ example: DEFAULT_NETWORK.chainIdHex }),
    network: z.string(),
    block: PinnedBlockSchema,
    signer: address,
    typedData: z.object({
      primaryType: z.string(),
      digest: hex.meta({
        description:
          'The EIP-712 digest the signer would sign: keccak256(0x1901 || domainSeparator || hashStruct(message)).',
      }),
      domainSeparator: hex,
      domain: z.object({
        name: z.string().optional(),
        version: z.string().optional(),
        chainId: decimal.optional(),
        verifyingContract: address.optional(),
        salt: hex.optional(),
      }),
    }),
    kind: z.enum(TYPED_DATA_KINDS).meta({
      description: 'Recognised by the structure of the primary type, never by names alone.',
    }),
    standardName: z.string().nullable(),
    renamed: z
      .boolean()
      .meta({ description: "The structure is a known kind's, the type name is not." }),
    witness: z.object({ name: z.string(), type: z.string() }).nullable(),
    decoded: z
      .record(
        z.string(),
        z
          .custom<DecodedValue>((v) => v !== undefined)
          .meta({ type: ['string', 'boolean', 'array', 'object'] }),
      )
      .meta({
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
        secondsAfterBlock: signedDecimal,
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
  .meta({ id: 'TypedDataPreflightResult' })
export type TypedDataResult = z.output<typeof TypedDataResultSchema>
