import type { z } from '@hono/zod-openapi'
import { BundleRequestSchema as SharedBundleRequestSchema } from '@pre-send-guard/client/schemas'
import { REQUEST_LIMITS } from '@pre-send-guard/client/types'
import { type Address, getAddress, type Hex } from 'viem'
import type { StateOverride, StateOverrides } from '../../domain/preflight/chain-reader.js'

/** Bounds on `stateOverrides`: a node simulates whatever it is given, so we do not. */
export const OVERRIDE_LIMITS = REQUEST_LIMITS.overrides

/** Request body of `POST /payanagent/v1/base-bundle-preflight` (declared in the client package). */
export const BundleRequestSchema = SharedBundleRequestSchema.meta({ id: 'BundlePreflightRequest' })

export type BundleRequest = z.output<typeof BundleRequestSchema>

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
