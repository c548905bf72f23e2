import { z } from 'zod'
import { VERDICTS } from '../types/vocabulary.js'
import { chainFields, FindingSchema } from './preflight.js'
import { address, decimal, hex } from './primitives.js'

const ProbeHitSchema = z
  .object({
    caller: address.meta({
      description: 'The stranger, or the stand-in for hard-coded addresses.',
    }),
    selector: hex,
    how: z.enum(['executor', 'guessed-shape']).meta({
      description:
        '`executor`: a common wallet entry point called as wallets encode it; `guessed-shape`: a selector of the delegate called with guessed arguments.',
    }),
    ethOut: decimal.meta({ description: 'Wei that left the account.' }),
    tokenOut: decimal.meta({ description: 'Canary token units that left the account.' }),
    allowance: decimal.meta({ description: 'Canary allowance granted to the caller.' }),
  })
  .meta({ id: 'DelegateProbeHit' })

/** The EIP-7702 authorization preflight answer. */
export const AuthorizationResultSchema = z
  .object({
    verdict: z.enum(VERDICTS),
    findings: z.array(FindingSchema),
    ...chainFields,
    authorization: z.object({
      authority: address,
      delegate: address,
      chainId: decimal,
      nonce: decimal,
      signature: z.enum(['valid', 'invalid', 'absent']).meta({
        description:
          '`valid`: recovers to `authority`; `invalid`: recovers to another address or not at all; `absent`: unsigned.',
      }),
      recovered: address.nullable().meta({ description: 'Who the signature recovers to.' }),
      appliesWhen: z.enum(['sent-by-another-account', 'sent-by-authority', 'not-now']).meta({
        description:
          "Which type-4 transaction the nonce fits at the pinned block: another account's (nonce = the authority's nonce), the authority's own (nonce + 1, its transaction uses the current one first), or neither.",
      }),
    }),
    authority: z.object({
      nonce: decimal,
      delegatedTo: address.nullable().meta({ description: 'Its current delegate, if any.' }),
      isContract: z.boolean().meta({ description: 'Has code that is not a delegation.' }),
    }),
    delegate: z.object({
      codeSize: z.number().int().nonnegative(),
      codeHash: hex.nullable(),
      recognised: z
        .object({ id: z.string(), name: z.string() })
        .nullable()
        .meta({ description: 'A known wallet delegate, by runtime code hash.' }),
    }),
    probe: z
      .object({
        ran: z.boolean(),
        reason: z.string().optional().meta({ description: 'Why it did not run.' }),
        ethSent: decimal.optional(),
        ethKept: decimal.optional(),
        selectorsTried: z.number().int().nonnegative().optional(),
        hardCoded: z.array(address).optional().meta({
          description: 'Addresses written into the delegate (known infrastructure excepted).',
        }),
        hits: z.array(ProbeHitSchema).optional(),
      })
      .nullable()
      .meta({
        description:
          'The behaviour probe: the account, delegated to a copy of the delegate with ETH and a canary token, is sent ETH and called by strangers. Null when the authorization clears.',
      }),
  })
  .meta({ id: 'AuthorizationPreflightResult' })
export type AuthorizationResult = z.output<typeof AuthorizationResultSchema>
