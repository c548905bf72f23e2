import type { Logger } from 'pino'
import type { RpcObserver } from '../adapters/fetch/observed-fetch.js'
import { createServiceMetrics, type ServiceMetrics } from '../adapters/metrics/service-metrics.js'
import { createMemoryBucketStore } from '../adapters/rate-limit/memory-bucket-store.js'
import type { Config } from '../config.js'
import type { RateLimitSettings } from '../http/create-app.js'

/** Metrics, the RPC observer feeding them, and the free routes' rate limits, from config. */
export interface OperationsSetup {
  metrics: ServiceMetrics
  observeRpc: RpcObserver
  /** Undefined when `RATE_LIMIT_PER_MINUTE` and `RATE_LIMIT_EVIDENCE_PER_MINUTE` are both 0. */
  rateLimits: RateLimitSettings | undefined
  close(): Promise<void>
}

/**
 * Builds the operator-facing pieces `main.ts` hands to the app and the RPC client. The
 * unresolved-payments gauge reads the ledger through `unresolvedPayments`, which may start
 * answering only once the ledger is open.
 */
export async function setUpOperations(
  config: Config,
  logger: Logger,
  unresolvedPayments: () => Promise<number>,
): Promise<OperationsSetup> {
  const metrics = createServiceMetrics({ unresolvedPayments })
  const observeRpc: RpcObserver = metrics.rpcCalls.observe
  const limited = config.RATE_LIMIT_PER_MINUTE > 0 || config.RATE_LIMIT_EVIDENCE_PER_MINUTE > 0
  let lastStoreWarning = 0
  const store = !limited
    ? undefined
    : config.REDIS_URL
      ? // Loaded only with REDIS_URL: ioredis costs about 8 MB that one instance never needs.
        (await import('../adapters/rate-limit/redis-bucket-store.js')).createRedisBucketStore({
          url: config.REDIS_URL,
          onError: (error) => {
            // ioredis reports every reconnect attempt; one line per 30 s is enough.
            if (Date.now() - lastStoreWarning < 30_000) return
            lastStoreWarning = Date.now()
            logger.warn({ err: error }, 'rate-limit Redis unreachable; limits are not enforced')
          },
        })
      : createMemoryBucketStore()
  return {
    metrics,
    observeRpc,
    rateLimits: store && {
      store,
      ...(config.RATE_LIMIT_PER_MINUTE > 0
        ? {
            free: {
              name: 'free',
              perMinute: config.RATE_LIMIT_PER_MINUTE,
              capacity: config.RATE_LIMIT_BURST,
            },
          }
        : {}),
      ...(config.RATE_LIMIT_EVIDENCE_PER_MINUTE > 0
        ? {
            evidence: {
              name: 'evidence',
              perMinute: config.RATE_LIMIT_EVIDENCE_PER_MINUTE,
              capacity: config.RATE_LIMIT_EVIDENCE_BURST,
            },
          }
        : {}),
      ...(config.RATE_LIMIT_CLIENT_HEADER ? { clientHeader: config.RATE_LIMIT_CLIENT_HEADER } : {}),
      exemptLoopback: config.environment === 'devnet',
    },
    close: async () => {
      await store?.close()
    },
  }
}
