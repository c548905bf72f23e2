import { z } from 'zod'

/**
 * The authorization tool takes the authorization route's own request schema, declared once in
 * `/schemas`: what the tool accepts is what the route accepts.
 */
export { AuthorizationRequestSchema } from '../schemas/delegation.js'
/** The user-operation tool takes the user-operation route's own request schema, likewise. */
export { UserOperationRequestSchema } from '../schemas/user-operation.js'

// Tool inputs of the stdio MCP server, as strict as the guard's HTTP routes: unknown fields are
// refused before anything is sent (the guard would refuse them with 422 anyway). Each field says
// what it is for a model that reads the JSON Schema and nothing else.

const address = (description: string) =>
  z
    .string()
    .regex(/^0x[a-fA-F0-9]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
    .describe(description)

const transactionFields = {
  from: address('The account that would send the transaction (the simulation runs as it).'),
  to: address('The destination: a contract or an account.'),
  data: z
    .string()
    .regex(/^0x(?:[a-fA-F0-9]{2})*$/, 'must be 0x-prefixed hex with an even number of digits')
    .describe('Calldata as 0x-prefixed hex; "0x" for a plain transfer.'),
  value: z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-prefixed hex wei (at most 256 bits)')
    .optional()
    .describe('Value sent, in wei, as 0x-prefixed hex (e.g. "0x0"). Omit for none.'),
}

/** One transaction to preflight on Base. */
export const TransactionInputSchema = z.strictObject({
  ...transactionFields,
  chainId: z
    .literal('0x2105')
    .optional()
    .describe('Base mainnet chain id in hex; "0x2105" is the only accepted value.'),
})
export type TransactionInput = z.infer<typeof TransactionInputSchema>

/** 1 to 8 transactions simulated in order in one block. */
export const BundleInputSchema = z.strictObject({
  transactions: z
    .array(z.strictObject(transactionFields))
    .min(1)
    .max(8)
    .describe('The transactions in the order they would be sent (e.g. approve, then swap).'),
})

/** EIP-712 typed data about to be signed, in the eth_signTypedData_v4 JSON form. */
export const TypedDataInputSchema = z.strictObject({
  signer: address('The account that would sign.'),
  typedData: z
    .strictObject({
      types: z
        .record(z.string(), z.array(z.strictObject({ name: z.string(), type: z.string() })).max(64))
        .describe('EIP-712 types, EIP712Domain included or not.'),
      primaryType: z.string().min(1).describe('The struct being signed, e.g. "PermitSingle".'),
      domain: z.record(z.string(), z.unknown()).describe('The EIP-712 domain.'),
      message: z.record(z.string(), z.unknown()).describe('The message being signed.'),
    })
    .describe('The typed data exactly as the wallet would receive it.'),
})

/** The paid tool: one transaction, and whether a repeat may be paid again. */
export const PaidInputSchema = z.strictObject({
  ...TransactionInputSchema.shape,
  fresh: z
    .boolean()
    .optional()
    .describe(
      'Default false: the same transaction asked again in this session is answered from the guard with the payment already made (no second charge). true pays again for a new check at the latest block.',
    ),
})
