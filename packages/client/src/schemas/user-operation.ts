import { z } from 'zod'
import { VERDICTS } from '../types/vocabulary.js'
import { chainFields, FindingSchema, transactionReport } from './preflight.js'
import { address, bytes32, decimal } from './primitives.js'

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
