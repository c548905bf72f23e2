import { z } from 'zod'
import { VERDICTS } from '../types/vocabulary.js'
import { chainFields, FindingSchema, transactionReport } from './preflight.js'
import { address, bytes, bytes32, decimal, word, yParity } from './primitives.js'

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
  chainId: z
    .literal('0x2105', { error: 'only Base mainnet (0x2105) is supported' })
    .optional()
    .meta({ description: 'Base mainnet chain id in hex; the only accepted value is 0x2105.' }),
  entryPoint: address.meta({
    description:
      'A canonical EntryPoint: v0.6 0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789, v0.7 0x0000000071727De22E5E9d8BAf0edAc6f37da032 or v0.8 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108.',
  }),
  userOperation: UserOperationRpcSchema,
})
export type UserOperationRequest = z.output<typeof UserOperationRequestSchema>

/** The user-operation preflight answer. */
export const UserOperationResultSchema = z
  .object({
    verdict: z.enum(VERDICTS),
    findings: z.array(FindingSchema),
    ...chainFields,
    userOperation: z.object({
      hash: bytes32.meta({ description: 'The operation hash its EntryPoint computes.' }),
      entryPoint: address,
      entryPointVersion: z.enum(['0.6', '0.7', '0.8']),
      sender: address,
      nonce: decimal,
      deploysAccount: z.boolean().meta({ description: 'A factory creates the account.' }),
      eip7702Delegate: address.nullable(),
      paymaster: address.nullable(),
    }),
    validation: z.object({
      simulated: z.boolean().meta({ description: 'False for EntryPoint v0.6 (execution only).' }),
      signature: z.enum(['valid', 'invalid', 'not-checked', 'not-simulated']),
      paymaster: z.enum(['none', 'valid', 'invalid', 'not-simulated']),
      failure: z.string().nullable().meta({
        description: "The EntryPoint's refusal (e.g. `AA23 reverted`), when validation failed.",
      }),
      validAfter: decimal.nullable(),
      validUntil: decimal.nullable().meta({ description: '0: no expiry.' }),
    }),
    prefund: z.object({
      checked: z.boolean().meta({ description: 'Every gas limit and fee was given.' }),
      required: decimal.meta({ description: 'The most the EntryPoint takes up front, wei.' }),
      paid: decimal.nullable().meta({ description: 'What the simulated operation paid, wei.' }),
      payer: z.enum(['account', 'paymaster']),
    }),
    execution: transactionReport.call.meta({
      description:
        "The account's call as the operation runs it (a validation failure shows as a failed call).",
    }),
    gasUsed: decimal.nullable().meta({ description: 'Gas the simulation used, all phases.' }),
    decoded: transactionReport.decoded,
    effects: transactionReport.effects,
  })
  .meta({ id: 'UserOperationPreflightResult' })
export type UserOperationResult = z.output<typeof UserOperationResultSchema>
