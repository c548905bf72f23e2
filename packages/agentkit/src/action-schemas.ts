// AgentKit's actions take zod 3 schemas (its extensions turn them into Vercel AI SDK and
// LangChain tools with zod 3 converters); zod 4 ships the zod 3 API as `zod/v3`.
import { isAddressText, isBytesText, NETWORK_NAMES, NETWORKS } from '@pre-send-guard/client/types'
import { z } from 'zod/v3'

// The shapes a model fills in. They are deliberately looser than the guard's request schemas
// (`@pre-send-guard/client/schemas`): the guard validates every request itself and its 422
// names the field that is wrong, which the action hands back to the model.

const address = (description: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
    .refine(isAddressText)
    .describe(description)

const data = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex with whole bytes')
  .refine(isBytesText)
  .default('0x')
  .describe('Calldata as 0x-prefixed hex; "0x" (the default) for a plain ETH transfer.')

const value = z
  .string()
  .regex(/^(?:0x[0-9a-fA-F]+|[0-9]+)$/, 'must be a whole number of wei, decimal or 0x-hex')
  .optional()
  .describe(
    'ETH sent with the call, in wei (not ETH), as a decimal string ("10000000000000000" = 0.01 ETH) or 0x-hex. Default 0.',
  )

const from = address(
  "The sender to simulate. Leave it out to use this agent's own wallet, which is almost always right.",
).optional()

const call = z.object({
  to: address('The address the transaction is sent to (a contract, or the payee of ETH).'),
  data,
  value,
})

/** `preflight_transaction`. */
export const PreflightTransactionSchema = call.extend({ from }).strict()

/** `preflight_bundle`. */
export const PreflightBundleSchema = z
  .object({
    transactions: z
      .array(call.strict())
      .min(1)
      .max(8)
      .describe('1 to 8 transactions, simulated in this order (an approve, then the swap).'),
    from,
  })
  .strict()

/** `preflight_typed_data`. */
export const PreflightTypedDataSchema = z
  .object({
    typedData: z
      .union([
        z
          .object({
            domain: z.record(z.unknown()),
            types: z.record(z.array(z.object({ name: z.string(), type: z.string() }))),
            primaryType: z.string(),
            message: z.record(z.unknown()),
          })
          .strict(),
        z.string(),
      ])
      .describe(
        'EIP-712 typed data exactly as eth_signTypedData_v4 takes it: {domain, types, primaryType, message}, as an object or as its JSON text.',
      ),
    signer: address("Who would sign. Leave it out to use this agent's own wallet.").optional(),
  })
  .strict()

/** `preflight_user_operation`. */
export const PreflightUserOperationSchema = z
  .object({
    entryPoint: address(
      'The EntryPoint: v0.6 0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789, v0.7 0x0000000071727De22E5E9d8BAf0edAc6f37da032 or v0.8 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108.',
    ),
    userOperation: z
      .record(z.unknown())
      .describe(
        'The user operation in the JSON-RPC form eth_sendUserOperation takes (sender, nonce, callData, hex quantities; v0.6 initCode/paymasterAndData or v0.7+ factory/paymaster fields). Gas fields and the signature may be left out.',
      ),
  })
  .strict()

/** `preflight_authorization`. */
export const PreflightAuthorizationSchema = z
  .object({
    authorization: z
      .object({
        address: address('The delegate whose code the account would run; the zero address clears.'),
        chainId: z
          .string()
          .describe(
            `Chain id as 0x-hex (the wallet's network: ${NETWORK_NAMES.map((n) => `"${NETWORKS[n].chainIdHex}" ${NETWORKS[n].label}`).join(', ')}; "0x0" = every chain).`,
          ),
        nonce: z.string().describe("The authority's nonce the authorization is for, 0x-hex."),
        yParity: z.string().optional().describe('Signature y parity, if signed.'),
        r: z.string().optional().describe('Signature r, if signed.'),
        s: z.string().optional().describe('Signature s, if signed.'),
      })
      .strict()
      .describe('The EIP-7702 authorization tuple in JSON-RPC hex form.'),
    authority: address(
      "The account that signs the authorization. Leave it out to use this agent's own wallet.",
    ).optional(),
  })
  .strict()

/** `public_page_evidence`. */
export const PageEvidenceActionSchema = z
  .object({
    url: z.string().describe('One public http(s) URL.'),
    maxChars: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Most characters of page text to return (the guard caps it).'),
  })
  .strict()

/** `guard_status`. */
export const GuardStatusSchema = z.object({}).strict()
