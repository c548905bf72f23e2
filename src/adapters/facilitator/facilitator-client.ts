import { createFacilitatorConfig } from '@coinbase/x402'
import { type FacilitatorClient, HTTPFacilitatorClient } from '@x402/core/server'
import type { Address, Hex } from 'viem'
import type { FacilitatorKind } from '../../domain/payment/payment-rail.js'
import { splitUrlCredentials } from '../http/url-credentials.js'
import { createBuiltinFacilitator } from './builtin-facilitator.js'
import type { MinedReceipts } from './mined-receipts.js'

/** Which facilitator to use, from configuration. */
export type FacilitatorSetup =
  | {
      kind: 'builtin'
      settlementPrivateKey: Hex
      rpcUrl: string
      rpcTimeoutMs: number
      confirmationTimeoutMs: number
      pollingIntervalMs?: number
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
  client: FacilitatorClient
}

/**
 * Builds the configured facilitator: any x402 facilitator URL (`@x402/core`'s
 * HTTPFacilitatorClient), Coinbase CDP's (the same client with `@coinbase/x402`'s URL and
 * JWT auth headers), or the built-in one.
 */
export function createFacilitator(setup: FacilitatorSetup): Facilitator {
  switch (setup.kind) {
    case 'builtin': {
      const builtin = createBuiltinFacilitator(setup)
      return {
        kind: 'builtin',
        settlerAddress: builtin.settlerAddress,
        minedReceipts: builtin.minedReceipts,
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
      const config = createFacilitatorConfig(setup.apiKeyId, setup.apiKeySecret)
      const url = config.url ?? 'https://api.cdp.coinbase.com/platform/v2/x402'
      return {
        kind: 'cdp',
        url,
        client: new HTTPFacilitatorClient({ ...config, url, timeoutMs: setup.timeoutMs }),
      }
    }
  }
}
