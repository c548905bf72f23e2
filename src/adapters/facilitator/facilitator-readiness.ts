import type { FacilitatorClient } from '@x402/core/server'
import { PAYMENT_NETWORK } from '../../domain/payment/offer.js'
import type { FacilitatorKind, FacilitatorStatus } from '../../domain/payment/payment-rail.js'
import { DEFAULT_REDACTOR, publicOrigin, type Redactor } from '../../secrets.js'

/** Options for {@link createFacilitatorReadiness}. */
export interface FacilitatorReadinessOptions {
  kind: FacilitatorKind
  /** The facilitator's URL; only its origin is ever reported (keys live in paths and userinfo). */
  url?: string
  client: Pick<FacilitatorClient, 'getSupported'>
  /** The CAIP-2 id payments are taken on; Base mainnet's when absent. */
  network?: string
  /** Re-check interval while the facilitator answers well (ms). */
  refreshMs?: number
  /** Re-check interval after a failed check (ms). */
  retryMs?: number
  /**
   * Scrubs the failure text published in the status (the configuration's secrets). Default:
   * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
   */
  redactor?: Redactor
}

/** A cached `/supported` check, refreshed in the background; reads never wait on the network. */
export interface FacilitatorReadiness {
  status(): FacilitatorStatus
  /** Checks now (deduplicated with a check in progress) and returns the new status. */
  refresh(): Promise<FacilitatorStatus>
  /** Starts background refreshing (first check at once). Timers are unref'd. */
  start(): void
  stop(): void
}

/**
 * Tracks whether the facilitator lists the exact scheme on the network for x402 v2. The 402
 * body reports this snapshot, so a challenge never blocks on the facilitator.
 */
export function createFacilitatorReadiness(
  options: FacilitatorReadinessOptions,
): FacilitatorReadiness {
  const refreshMs = options.refreshMs ?? 60_000
  const retryMs = options.retryMs ?? 10_000
  const redactor = options.redactor ?? DEFAULT_REDACTOR
  const network = options.network ?? PAYMENT_NETWORK
  // The status is published in every 402 and in discovery: the origin only, never the URL.
  const identity = {
    kind: options.kind,
    ...(options.url ? { url: publicOrigin(options.url) } : {}),
  }
  let current: FacilitatorStatus = { ...identity, supportsExactBase: false, checkedAt: null }
  let inFlight: Promise<FacilitatorStatus> | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = true

  const check = async (): Promise<FacilitatorStatus> => {
    try {
      const supported = await options.client.getSupported()
      const kinds = Array.isArray(supported?.kinds) ? supported.kinds : []
      const ok = kinds.some(
        (kind) =>
          kind.x402Version === 2 &&
          kind.scheme === 'exact' &&
          (kind.network === network || kind.network === 'eip155:*'),
      )
      current = {
        ...identity,
        supportsExactBase: ok,
        checkedAt: new Date().toISOString(),
        ...(ok ? {} : { error: `the facilitator does not list exact on ${network} (x402 v2)` }),
      }
    } catch (error) {
      current = {
        ...identity,
        supportsExactBase: false,
        checkedAt: new Date().toISOString(),
        // Redacted before the cut, so no prefix of a secret (fetch echoes the URL) survives.
        error: redactor
          .redact(
            `facilitator /supported failed: ${error instanceof Error ? error.message : String(error)}`,
          )
          .slice(0, 300),
      }
    }
    return current
  }

  const refresh = (): Promise<FacilitatorStatus> => {
    inFlight ??= check().finally(() => {
      inFlight = undefined
    })
    return inFlight
  }

  const schedule = (): void => {
    if (stopped) return
    timer = setTimeout(
      () => void refresh().then(schedule),
      current.supportsExactBase ? refreshMs : retryMs,
    )
    timer.unref()
  }

  return {
    status: () => current,
    refresh,
    start() {
      if (!stopped) return
      stopped = false
      void refresh().then(schedule)
    },
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
    },
  }
}
