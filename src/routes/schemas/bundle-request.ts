import { z } from '@hono/zod-openapi'
import { SignedAuthorizationSchema } from '@pre-send-guard/client/schemas'
import { type Address, getAddress, type Hex } from 'viem'
import { MAX_AUTHORIZATIONS } from '../../domain/delegation/bundle-authorizations.js'
import type { StateOverride, StateOverrides } from '../../domain/preflight/chain-reader.js'
import { MAX_BUNDLE_TRANSACTIONS } from '../../domain/preflight/run-bundle-preflight.js'
import { fields, TransactionRequestSchema } from './transaction-request.js'

/** Bounds on `stateOverrides`: a node simulates whatever it is given, so we do not. */
export const OVERRIDE_LIMITS = {
  /** Addresses overridden per bundle. */
  addresses: 16,
  /** Storage slots per address (`state` or `stateDiff`). */
  slotsPerAddress: 64,
  /** Storage slots over all addresses. */
  slots: 256,
  /** Runtime code bytes per address (EIP-170's contract size limit). */
  codeBytes: 24_576,
} as const

const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex word')
const slots = z
  .record(word, word)
  .refine((m) => Object.keys(m).length <= OVERRIDE_LIMITS.slotsPerAddress, {
    message: `at most ${OVERRIDE_LIMITS.slotsPerAddress} slots per address`,
  })
const quantity = (bits: number) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-prefixed hex')
    .refine((v) => BigInt(v) < 2n ** BigInt(bits), `must fit in ${bits} bits`)

const OverrideSchema = z
  .strictObject({
    balance: quantity(256).optional().openapi({ description: 'Wei, hex.' }),
    nonce: quantity(53).optional(),
    code: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex with whole bytes')
      .refine((v) => (v.length - 2) / 2 <= OVERRIDE_LIMITS.codeBytes, {
        message: `at most ${OVERRIDE_LIMITS.codeBytes} bytes of code`,
      })
      .optional(),
    state: slots.optional().openapi({ description: 'Replaces all storage: slot -> value.' }),
    stateDiff: slots.optional().openapi({ description: 'Patches storage: slot -> value.' }),
  })
  .refine((o) => o.state === undefined || o.stateDiff === undefined, {
    message: 'give state or stateDiff, not both',
  })
  .openapi('StateOverride')

/** Request body of `POST /payanagent/v1/base-bundle-preflight`. */
export const BundleRequestSchema = z
  .strictObject({
    chainId: fields.chainId,
    transactions: z
      .array(
        TransactionRequestSchema.omit({ chainId: true }).extend({
          authorizationList: z
            .array(SignedAuthorizationSchema)
            .min(1)
            .max(MAX_AUTHORIZATIONS)
            .optional()
            .openapi({
              description: `EIP-7702 authorizations (signed, JSON-RPC form) the transaction carries as a type-4 transaction, at most ${MAX_AUTHORIZATIONS}: applied as the chain applies them (an invalid tuple is skipped, and said so), each delegate probed as the authorization preflight does.`,
            }),
        }),
      )
      .min(1)
      .max(MAX_BUNDLE_TRANSACTIONS)
      .openapi({
        description: `1 to ${MAX_BUNDLE_TRANSACTIONS} transactions (transaction request bodies, without chainId), simulated in this order.`,
      }),
    stateOverrides: z
      .record(
        z.string().regex(/^0x[a-fA-F0-9]{40}$/, 'keys must be 0x-prefixed 20-byte hex addresses'),
        OverrideSchema,
      )
      .refine((m) => Object.keys(m).length <= OVERRIDE_LIMITS.addresses, {
        message: `at most ${OVERRIDE_LIMITS.addresses} addresses`,
      })
      .refine(
        (m) =>
          Object.values(m).reduce(
            (n, o) => n + Object.keys(o.state ?? {}).length + Object.keys(o.stateDiff ?? {}).length,
            0,
          ) <= OVERRIDE_LIMITS.slots,
        { message: `at most ${OVERRIDE_LIMITS.slots} storage slots in all` },
      )
      .optional()
      .openapi({
        description:
          'eth_simulateV1-shaped state overrides by address. The answer is then hypothetical (`hypothetical: true`, finding `state-overridden`).',
      }),
  })
  .openapi('BundlePreflightRequest')

export type BundleRequest = z.infer<typeof BundleRequestSchema>

/**
 * Overrides keyed by checksummed address, quantities as numbers. One address given twice in two
 * spellings is refused (`duplicate`) rather than merged: which one would win is not obvious.
 */
export function toStateOverrides(
  raw: BundleRequest['stateOverrides'],
): StateOverrides | undefined | { duplicate: string } {
  if (raw === undefined) return undefined
  const out: Record<Address, StateOverride> = {}
  for (const [key, o] of Object.entries(raw)) {
    const address = getAddress(key.toLowerCase())
    if (out[address] !== undefined) return { duplicate: key }
    const entry: StateOverride = {}
    if (o.balance !== undefined) entry.balance = BigInt(o.balance)
    if (o.nonce !== undefined) entry.nonce = Number(BigInt(o.nonce))
    if (o.code !== undefined) entry.code = o.code.toLowerCase() as Hex
    if (o.state !== undefined) entry.state = lower(o.state)
    if (o.stateDiff !== undefined) entry.stateDiff = lower(o.stateDiff)
    out[address] = entry
  }
  return out
}

function lower(slots: Record<string, string>): Record<Hex, Hex> {
  const out: Record<Hex, Hex> = {}
  for (const [k, v] of Object.entries(slots)) out[k.toLowerCase() as Hex] = v.toLowerCase() as Hex
  return out
}
