import { type FacilitatorClient, HTTPFacilitatorClient } from '@x402/core/server'
import type { Address, Hex } from 'viem'
import type { NetworkProfile } from '../../domain/network/network-profile.js'
import type { FacilitatorKind } from '../../domain/payment/payment-rail.js'
import { DEFAULT_REDACTOR, type Redactor } from '../../secrets.js'
import { splitUrlCredentials } from '../fetch/url-credentials.js'
import { type BuiltinFacilitator, createBuiltinFacilitator } from './builtin-facilitator.js'
import type { MinedReceipts } from './mined-receipts.js'
import type { MinedSettlement, SettlementMeter } from './settlement-meter.js'

/** Which facilitator to use, from configuration. */
export type FacilitatorSetup =
  | {
      kind: 'builtin'
      settlementPrivateKey: Hex
      /** The network it settles on; Base mainnet when absent. */
      network?: NetworkProfile
      rpcUrl: string
      rpcTimeoutMs: number
      confirmationTimeoutMs: number
      pollingIntervalMs?: number
      /** Most gas a settlement may use (`SETTLEMENT_GAS_CEILING`). */
      settlementGasCeiling?: bigint
      /** Told of every settlement transaction seen mined (metrics: gas spent, reverts). */
      onSettlementMined?: (mined: MinedSettlement) => void
    }
  | { kind: 'url'; url: string; timeoutMs: number }
  | { kind: 'cdp'; apiKeyId: string; apiKeySecret: string; timeoutMs: number }

/** A facilitator behind x402's `FacilitatorClient` port (verify / settle / getSupported). */
export interface Facilitator {
  kind: FacilitatorKind
  /**
   * Base URL of a remote facilitator, as configured (it may carry keys: publish
   * `publicOrigin(url)` only); absent for the built-in one.
   */
  url?: string
  /** Address submitting settlements, for the built-in facilitator. */
  settlerAddress?: Address
  /** Settlement receipts the built-in facilitator read (see {@link MinedReceipts}). */
  minedReceipts?: MinedReceipts
  /** The built-in facilitator's settlement, run as it would be sent now (never sends). */
  simulateSettlement?: BuiltinFacilitator['simulateSettlement']
  /** The built-in facilitator's settlement cost meter (receipts read later report to it too). */
  meter?: SettlementMeter
  client: FacilitatorClient
}

/** Coinbase CDP's x402 facilitator (what `@coinbase/x402`'s `createFacilitatorConfig` names). */
export const CDP_FACILITATOR_URL = 'https://api.cdp.coinbase.com/platform/v2/x402'

/** `load` run once, its promise shared; a failed load is retried on the next call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }
}

/**
 * Builds the configured facilitator: any x402 facilitator URL (`@x402/core`'s
 * HTTPFacilitatorClient), Coinbase CDP's (the same client with `@coinbase/x402`'s URL and
 * JWT auth headers), or the built-in one, whose RPC errors `redactor` scrubs (the
 * configuration's secrets; default `DEFAULT_REDACTOR`, which still removes URL userinfo).
 */
export function createFacilitator(
  setup: FacilitatorSetup,
  redactor: Redactor = DEFAULT_REDACTOR,
): Facilitator {
  switch (setup.kind) {
    case 'builtin': {
      const builtin = createBuiltinFacilitator({ ...setup, redactor })
      return {
        kind: 'builtin',
        settlerAddress: builtin.settlerAddress,
        minedReceipts: builtin.minedReceipts,
        simulateSettlement: builtin.simulateSettlement,
        meter: builtin.meter,
        client: builtin.client,
      }
    }
    case 'url': {
      const url = setup.url.replace(/\/+$/, '')
      // The x402 client fetches `${url}/verify`: userinfo must travel as a header instead.
      const { url: endpoint, authorization } = splitUrlCredentials(url)
      const headers = authorization ? { Authorization: authorization } : undefined
      return {
        kind: 'url',
        url,
        client: new HTTPFacilitatorClient({
          url: endpoint,
          timeoutMs: setup.timeoutMs,
          ...(headers
            ? {
                createAuthHeaders: async () => ({
                  verify: headers,
                  settle: headers,
                  supported: headers,
                }),
              }
            : {}),
        }),
      }
    }
    case 'cdp': {
      // `@coinbase/x402` (with the CDP SDK's JWT signing: axios, jose, ws) loads on the first
      // call, not at start-up: a guard on any other facilitator never needs it.
      const { apiKeyId, apiKeySecret } = setup
      const cdp = once(() => import('@coinbase/x402'))
      return {
        kind: 'cdp',
        url: CDP_FACILITATOR_URL,
        client: new HTTPFacilitatorClient({
          url: CDP_FACILITATOR_URL,
          timeoutMs: setup.timeoutMs,
          createAuthHeaders: async () => {
            const { createAuthHeaders } = (await cdp()).createFacilitatorConfig(
              apiKeyId,
              apiKeySecret,
            )
            if (!createAuthHeaders) throw new Error('@coinbase/x402 made no CDP auth headers')
            return createAuthHeaders()
          },
        }),
      }
    }
  }
}
