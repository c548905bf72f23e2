import { z } from 'zod'
import { HEX_NUMBER_PATTERN, WORD_PATTERN } from '../types/hex.js'
import { DEFAULT_NETWORK, type NetworkFacts } from '../types/networks.js'
import { REQUEST_LIMITS } from '../types/vocabulary.js'
import {
  address,
  addressOf,
  boundedHexOf,
  bytes,
  bytes32Of,
  bytesOf,
  quantity,
  word,
  yParity,
} from './primitives.js'

// Every request body of the guard's free and paid routes, declared once: the service validates
// its routes with these objects (`OPENAPI_REQUEST_BODIES` names their OpenAPI components), the
// MCP tools of both MCP servers take them as their input schemas, and the client's request
// types are their `z.input`. The top-level schemas carry no `.meta({ id })`: a JSON Schema made
// from one would be a bare `$ref`, where MCP wants an object; the OpenAPI names are given on
// `.meta()` clones, which share the schema's definition. Each field says what it is for a reader
// (or a model) that sees only the JSON Schema; the patterns are primitives.ts's.

const addressField = (description: string) =>
  addressOf('must be a 0x-prefixed 20-byte hex address').meta({
    description,
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  })

/** The request's `chainId` on `network`: optional, and then only that network's. */
function chainIdOn(network: NetworkFacts) {
  const { label, chainIdHex } = network
  return z
    .literal(chainIdHex, { error: `only ${label} (${chainIdHex}) is supported` })
    .optional()
    .meta({ description: `${label} chain id in hex; the only accepted value is ${chainIdHex}.` })
}

const chainId = chainIdOn(DEFAULT_NETWORK)

/** Fields of one transaction, shared by the transaction and bundle routes. */
export const transactionFields = {
  chainId,
  from: addressField('Sender used for the simulation.'),
  to: addressField('Destination.'),
  data: bytesOf('must be 0x-prefixed hex with an even number of digits').meta({
    description: 'Calldata; `0x` alone means empty calldata.',
    example: '0x',
  }),
  value: boundedHexOf(HEX_NUMBER_PATTERN, 'must be 0x-prefixed hex wei', 256)
    .optional()
    .meta({ description: 'Value in wei, hex.', example: '0x0' }),
}

/** Request body of `POST /payanagent/v1/base-transaction-preflight` (and the paid route). */
export const TransactionRequestSchema = z.strictObject(transactionFields)
export type TransactionRequestBody = z.input<typeof TransactionRequestSchema>

/**
 * An EIP-7702 authorization in JSON-RPC form (as viem's `signAuthorization` result is sent in
 * an `authorizationList`); `yParity`, `r` and `s` come together or not at all.
 */
export const AuthorizationTupleSchema = z
  .strictObject({
    address: address.meta({
      description: 'The delegate whose code the account will run; the zero address clears.',
    }),
    chainId: quantity('Chain id, hex; `0x0` means every chain.', 256),
    nonce: quantity("The authority's nonce the authorization is valid at, hex.", 64),
    yParity: yParity.optional().meta({ description: 'Signature y parity.' }),
    r: word('Signature r, hex (32 bytes, or a quantity without leading zeros).').optional(),
    s: word('Signature s, hex (32 bytes, or a quantity without leading zeros).').optional(),
  })
  .refine(
    (a) =>
      [a.yParity, a.r, a.s].every((v) => v === undefined) ||
      [a.yParity, a.r, a.s].every((v) => v !== undefined),
    { message: 'yParity, r and s must be given together (or all left out)', path: ['yParity'] },
  )
export type AuthorizationTuple = z.output<typeof AuthorizationTupleSchema>

/** A signed EIP-7702 authorization in JSON-RPC form, as a type-4 transaction's list carries it. */
export const SignedAuthorizationSchema = z.strictObject({
  address: address.meta({ description: 'The delegate; the zero address clears.' }),
  chainId: quantity('Chain id, hex; `0x0` means every chain.', 256),
  nonce: quantity("The authority's nonce, hex.", 64),
  yParity: yParity,
  r: word('Signature r, hex.'),
  s: word('Signature s, hex.'),
})
export type SignedAuthorization = z.output<typeof SignedAuthorizationSchema>

/** Request body of `POST /payanagent/v1/base-authorization-preflight`: no other properties. */
export const AuthorizationRequestSchema = z.strictObject({
  chainId,
  authority: address.meta({
    description: 'The account that signs (or signed) the authorization.',
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  }),
  authorization: AuthorizationTupleSchema,
})
export type AuthorizationRequest = z.output<typeof AuthorizationRequestSchema>

const overrides = REQUEST_LIMITS.overrides
const slot = bytes32Of('must be a 0x-prefixed 32-byte hex word')
const slots = z
  .record(slot, slot)
  .refine((m) => Object.keys(m).length <= overrides.slotsPerAddress, {
    message: `at most ${overrides.slotsPerAddress} slots per address`,
  })
// An override quantity: up to 64 hex digits, leading zeros allowed, sized in bits.
const quantityOf = (bits: number) => boundedHexOf(WORD_PATTERN, 'must be 0x-prefixed hex', bits)

/** One address's state override, eth_simulateV1-shaped. */
export const StateOverrideSchema = z
  .strictObject({
    balance: quantityOf(256).optional().meta({ description: 'Wei, hex.' }),
    nonce: quantityOf(53).optional(),
    code: bytesOf('must be 0x-prefixed hex with whole bytes')
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
    .record(addressOf('keys must be 0x-prefixed 20-byte hex addresses'), StateOverrideSchema)
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

/** The signed EIP-7702 authorization a 7702 account's operation carries (`eip7702Auth`). */
export const Eip7702AuthSchema = z.strictObject({
  address: address.meta({ description: 'The delegate.' }),
  chainId: word('Chain id, hex (0x0: every chain).'),
  nonce: word("The sender's nonce it is valid at, hex."),
  yParity: yParity,
  r: word('Signature r.'),
  s: word('Signature s.'),
})

/**
 * A user operation in the JSON-RPC form `eth_sendUserOperation` takes (as viem sends it): the
 * EntryPoint v0.7/v0.8 fields, or v0.6's `initCode` and `paymasterAndData`. Which set applies
 * follows from `entryPoint`; mixing them is refused.
 */
export const UserOperationRpcSchema = z.strictObject({
  sender: address.meta({ description: 'The smart account.' }),
  nonce: word('Nonce, hex (key and sequence).'),
  callData: bytes('What the account is asked to do (`execute`, `executeBatch`, ...).'),
  factory: z
    .union([address, z.literal('0x7702')])
    .optional()
    .meta({ description: 'v0.7/v0.8: factory of a not-yet-deployed account, or `0x7702`.' }),
  factoryData: bytes('v0.7/v0.8: data for the factory.').optional(),
  initCode: bytes(
    'v0.6: factory address followed by its data; `0x` for a deployed account.',
  ).optional(),
  callGasLimit: word('Gas, hex.').optional(),
  verificationGasLimit: word('Gas, hex.').optional(),
  preVerificationGas: word('Gas, hex.').optional(),
  maxFeePerGas: word('Wei per gas, hex.').optional(),
  maxPriorityFeePerGas: word('Wei per gas, hex.').optional(),
  paymaster: address.optional().meta({ description: 'v0.7/v0.8: the paymaster.' }),
  paymasterVerificationGasLimit: word('Gas, hex.').optional(),
  paymasterPostOpGasLimit: word('Gas, hex.').optional(),
  paymasterData: bytes('v0.7/v0.8: data for the paymaster.').optional(),
  paymasterAndData: bytes('v0.6: paymaster address followed by its data.').optional(),
  signature: bytes('The signature; omitted or `0x`: a stub is simulated.').optional(),
  eip7702Auth: Eip7702AuthSchema.optional(),
})
export type UserOperationRpc = z.output<typeof UserOperationRpcSchema>

/** Request body of `POST /payanagent/v1/base-user-operation-preflight`. */
export const UserOperationRequestSchema = z.strictObject({
  chainId,
  entryPoint: address.meta({
    description:
      'A canonical EntryPoint: v0.6 0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789, v0.7 0x0000000071727De22E5E9d8BAf0edAc6f37da032 or v0.8 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108.',
  }),
  userOperation: UserOperationRpcSchema,
})
export type UserOperationRequest = z.output<typeof UserOperationRequestSchema>

/**
 * The request bodies as the service's routes declare them. The four named in the OpenAPI
 * document are `.meta({ id })` clones of the schemas above: a clone shares its schema's
 * definition (`_zod.def`), so it checks exactly the same; only the document's component name is
 * added. The authorization and user-operation bodies are inline in the document.
 */
export const OPENAPI_REQUEST_BODIES = {
  transaction: TransactionRequestSchema.meta({ id: 'TransactionPreflightRequest' }),
  bundle: BundleRequestSchema.meta({ id: 'BundlePreflightRequest' }),
  typedData: TypedDataRequestSchema.meta({ id: 'TypedDataRequest' }),
  evidence: EvidenceRequestSchema.meta({ id: 'PublicPageEvidenceRequest' }),
  authorization: AuthorizationRequestSchema,
  userOperation: UserOperationRequestSchema,
}

/** The transaction body on `network`: {@link TransactionRequestSchema} itself on Base mainnet. */
export function transactionRequestOn(network: NetworkFacts): typeof TransactionRequestSchema {
  if (network.chainIdHex === DEFAULT_NETWORK.chainIdHex) return TransactionRequestSchema
  // Typed as mainnet's: only the literal chain id differs, and nothing reads its type.
  return TransactionRequestSchema.extend({
    chainId: chainIdOn(network),
  }) as unknown as typeof TransactionRequestSchema
}

/**
 * The request bodies as a service on `network` declares them: {@link OPENAPI_REQUEST_BODIES}
 * itself on Base mainnet, the default; elsewhere the same bodies whose `chainId` accepts that
 * network's chain id only (a mainnet chain id is then refused, as a Sepolia one is on mainnet).
 */
export function requestBodiesOn(network: NetworkFacts): typeof OPENAPI_REQUEST_BODIES {
  if (network.chainIdHex === DEFAULT_NETWORK.chainIdHex) return OPENAPI_REQUEST_BODIES
  const bodies = requestSchemasOn(network)
  return {
    transaction: bodies.transaction.meta({ id: 'TransactionPreflightRequest' }),
    bundle: bodies.bundle.meta({ id: 'BundlePreflightRequest' }),
    typedData: bodies.typedData.meta({ id: 'TypedDataRequest' }),
    evidence: OPENAPI_REQUEST_BODIES.evidence,
    authorization: bodies.authorization,
    userOperation: bodies.userOperation,
  }
}

/** The request schemas themselves, without OpenAPI component names. */
const REQUEST_SCHEMAS = {
  transaction: TransactionRequestSchema,
  bundle: BundleRequestSchema,
  typedData: TypedDataRequestSchema,
  evidence: EvidenceRequestSchema,
  authorization: AuthorizationRequestSchema,
  userOperation: UserOperationRequestSchema,
}

/**
 * The request schemas on `network` (the schemas above themselves on Base mainnet; elsewhere
 * their copies whose `chainId` takes that network's only), without OpenAPI component names:
 * what an MCP tool takes as input for a guard on that network.
 */
export function requestSchemasOn(network: NetworkFacts): typeof REQUEST_SCHEMAS {
  if (network.chainIdHex === DEFAULT_NETWORK.chainIdHex) return REQUEST_SCHEMAS
  const chainId = chainIdOn(network)
  // Typed as mainnet's: only the literal chain id differs, and nothing reads its type.
  return {
    transaction: transactionRequestOn(network),
    bundle: BundleRequestSchema.extend({ chainId }),
    typedData: TypedDataRequestSchema.extend({ chainId }),
    evidence: EvidenceRequestSchema,
    authorization: AuthorizationRequestSchema.extend({ chainId }),
    userOperation: UserOperationRequestSchema.extend({ chainId }),
  } as unknown as typeof REQUEST_SCHEMAS
}
