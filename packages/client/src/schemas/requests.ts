import { z } from 'zod'
import { REQUEST_LIMITS } from '../types/vocabulary.js'
import { SignedAuthorizationSchema } from './delegation.js'

// The request bodies of the guard's free and paid routes, declared once: the service validates
// its routes with these objects (their `.meta({ id })` names the OpenAPI component), the MCP
// tools of both MCP servers take them as their input schemas, and the client's request types
// are their `z.input`. The top-level schemas carry no `.meta({ id })`: a JSON Schema made from
// one would be a bare `$ref`, where MCP wants an object; the service names its OpenAPI
// components on its own copies (`.meta()` clones). Each field says what it is for a reader (or a model) that sees only the
// JSON Schema.

const addressField = (description: string) =>
  z
    .string()
    .regex(/^0x[a-fA-F0-9]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
    .meta({ description, example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })

const chainId = z
  .literal('0x2105', { error: 'only Base mainnet (0x2105) is supported' })
  .optional()
  .meta({ description: 'Base mainnet chain id in hex; the only accepted value is 0x2105.' })

/** Fields of one transaction, shared by the transaction and bundle routes. */
export const transactionFields = {
  chainId,
  from: addressField('Sender used for the simulation.'),
  to: addressField('Destination.'),
  data: z
    .string()
    .regex(/^0x(?:[a-fA-F0-9]{2})*$/, 'must be 0x-prefixed hex with an even number of digits')
    .meta({ description: 'Calldata; `0x` alone means empty calldata.', example: '0x' }),
  value: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be 0x-prefixed hex wei')
    .refine((v) => !/^0x[0-9a-fA-F]+$/.test(v) || BigInt(v) < 2n ** 256n, 'must fit in 256 bits')
    .optional()
    .meta({ description: 'Value in wei, hex.', example: '0x0' }),
}

/** Request body of `POST /payanagent/v1/base-transaction-preflight` (and the paid route). */
export const TransactionRequestSchema = z.strictObject(transactionFields)
export type TransactionRequestBody = z.input<typeof TransactionRequestSchema>

const overrides = REQUEST_LIMITS.overrides
const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex word')
const slots = z
  .record(word, word)
  .refine((m) => Object.keys(m).length <= overrides.slotsPerAddress, {
    message: `at most ${overrides.slotsPerAddress} slots per address`,
  })
const quantity = (bits: number) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-prefixed hex')
    .refine((v) => BigInt(v) < 2n ** BigInt(bits), `must fit in ${bits} bits`)

/** One address's state override, eth_simulateV1-shaped. */
export const StateOverrideSchema = z
  .strictObject({
    balance: quantity(256).optional().meta({ description: 'Wei, hex.' }),
    nonce: quantity(53).optional(),
    code: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex with whole bytes')
      .refine((v) => (v.length - 2) / 2 <= overrides.codeBytes, {
        message: `at most ${overrides.codeBytes} bytes of code`,
      })
      .optional(),
    state: slots.optional().meta({ description: 'Replaces all storage: slot -> value.' }),
    stateDiff: slots.optional().meta({ description: 'Patches storage: slot -> value.' }),
  })
  .refine((o) => o.state === undefined || o.stateDiff === undefined, {
    message: 'give state or stateDiff, not both',
  })
  .meta({ id: 'StateOverride' })

/** Request body of `POST /payanagent/v1/base-bundle-preflight`. */
export const BundleRequestSchema = z.strictObject({
  chainId,
  transactions: z
    .array(
      TransactionRequestSchema.omit({ chainId: true }).extend({
        authorizationList: z
          .array(SignedAuthorizationSchema)
          .min(1)
          .max(REQUEST_LIMITS.authorizationsPerTransaction)
          .optional()
          .meta({
            description: `EIP-7702 authorizations (signed, JSON-RPC form) the transaction carries as a type-4 transaction, at most ${REQUEST_LIMITS.authorizationsPerTransaction}: applied as the chain applies them (an invalid tuple is skipped, and said so), each delegate probed as the authorization preflight does.`,
          }),
      }),
    )
    .min(1)
    .max(REQUEST_LIMITS.bundleTransactions)
    .meta({
      description: `1 to ${REQUEST_LIMITS.bundleTransactions} transactions (transaction request bodies, without chainId), simulated in this order.`,
    }),
  stateOverrides: z
    .record(
      z.string().regex(/^0x[a-fA-F0-9]{40}$/, 'keys must be 0x-prefixed 20-byte hex addresses'),
      StateOverrideSchema,
    )
    .refine((m) => Object.keys(m).length <= overrides.addresses, {
      message: `at most ${overrides.addresses} addresses`,
    })
    .refine(
      (m) =>
        Object.values(m).reduce(
          (n, o) => n + Object.keys(o.state ?? {}).length + Object.keys(o.stateDiff ?? {}).length,
          0,
        ) <= overrides.slots,
      { message: `at most ${overrides.slots} storage slots in all` },
    )
    .optional()
    .meta({
      description:
        'eth_simulateV1-shaped state overrides by address. The answer is then hypothetical (`hypothetical: true`, finding `state-overridden`).',
    }),
})
export type BundleRequestBody = z.input<typeof BundleRequestSchema>

const typedDataLimits = REQUEST_LIMITS.typedData
// Any JSON here: the guard's validator answers a wrong shape with the path that is wrong.
const anyObject = (description: string) => z.unknown().meta({ type: 'object', description })

/**
 * The typed-data preflight's body: who signs, and the typed data exactly as
 * `eth_signTypedData_v4` takes it. The typed data's inside is checked by the guard's validator
 * (422 `invalid_typed_data` with the offending path), not here.
 */
export const TypedDataRequestSchema = z.strictObject({
  chainId,
  signer: addressField('The account that would sign.'),
  typedData: z
    .strictObject({
      domain: anyObject(
        'EIP-712 domain: name, version, chainId (number, decimal or hex string), verifyingContract, salt.',
      ),
      types: anyObject(
        `Struct types by name, each an array of {name, type}; EIP712Domain optional (derived from the domain when absent). At most ${typedDataLimits.types} types of ${typedDataLimits.fieldsPerType} fields.`,
      ),
      primaryType: z.string().max(256).meta({ example: 'PermitSingle' }),
      message: anyObject(
        `The message. Integers as JSON numbers (up to 2^53) or decimal/0x strings. At most ${typedDataLimits.depth} levels of nesting, ${typedDataLimits.arrayLength} entries per array, ${typedDataLimits.values} values.`,
      ),
    })
    .meta({ description: 'Typed data in the eth_signTypedData_v4 JSON form.' }),
})
export type TypedDataRequestBody = z.input<typeof TypedDataRequestSchema>

const evidence = REQUEST_LIMITS.evidence

/** Request body of `POST /payanagent/v1/public-page-evidence` : no other properties. */
export const EvidenceRequestSchema = z.strictObject({
  url: z.string().min(1).max(evidence.urlLength).meta({
    format: 'uri',
    description:
      "One public http(s) URL. Refused with 422 `unsafe_url`: other schemes, a user name or password, any port but the default (80/443), IP literals that are not public unicast in any spelling (loopback, private, link-local incl. 169.254.169.254, CGNAT, multicast, reserved, every IPv6 literal embedding an IPv4 address: IPv4-mapped/compatible/translated, NAT64, 6to4, Teredo, unique-local, ...), and local or single-label names (`localhost`, `*.local`, `*.internal`, `*.home.arpa`, ...). A host MetaMask's phishing list (`eth-phishing-detect`, pinned, offline) flags, or a look-alike of a genuine target it names, is refused with 422 `phishing_domain`. The URL is normalised by WHATWG rules and only the normalised form is fetched.",
    example: 'https://example.com/',
  }),
  max_chars: z
    .number()
    .int()
    .min(evidence.minMaxChars)
    .max(evidence.maxMaxChars)
    .default(evidence.maxMaxChars)
    .meta({
      description: `Largest \`markdown\` returned, counted in Unicode code points (an emoji or a CJK character is one; a surrogate pair is never split). Integer, ${evidence.minMaxChars} to ${evidence.maxMaxChars}.`,
      example: evidence.maxMaxChars,
    }),
})
export type EvidenceRequestBody = z.input<typeof EvidenceRequestSchema>
