import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { RpcObserver } from '../fetch/observed-fetch.js'
import { createCallMetrics, type ObserveCall } from './call-metrics.js'

/** Seconds: from a sub-millisecond route to a slow settlement on a congested chain. */
export const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
]

/** Options for {@link createServiceMetrics}. */
export interface ServiceMetricsOptions {
  /** Payments the ledger has not resolved yet, read at scrape time. */
  unresolvedPayments?: () => Promise<number>
  /** Process metrics (memory, CPU, event loop lag, GC); off in tests that build many apps. */
  processMetrics?: boolean
}

/**
 * The service's Prometheus metrics, on a registry of its own (never prom-client's global one,
 * so several apps in one process - tests - do not collide). Labels are bounded sets: route
 * patterns, never raw paths; RPC method names; stable outcome codes.
 */
export function createServiceMetrics(options: ServiceMetricsOptions = {}) {
  const registry = new Registry()
  const registers = [registry]
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry })
  const metrics = {
    registry,
    /**
     * `http_requests_total` and `http_request_duration_seconds`, both by route pattern, method
     * and status; `http([route, method, status], seconds)` records one answer.
     */
    http: httpCallMetrics(registers),
    /** `rpc_requests_total` and `rpc_request_duration_seconds`; `observe` records one call. */
    rpcCalls: rpcCallMetrics(registers),
    payments: new Counter({
      name: 'payments_total',
      help: 'Paid-route answers by outcome (paid, replayed, payment_required, or the error code) and reason.',
      labelNames: ['outcome', 'reason'] as const,
      registers,
    }),
    settlementDuration: new Histogram({
      name: 'payment_settlement_duration_seconds',
      help: 'Time the facilitator took to settle a payment (settle call to its answer).',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    readerOutcomes: new Counter({
      name: 'reader_requests_total',
      help: 'Public-page reader requests by outcome (ok, or the error code).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: 'rate_limited_total',
      help: 'Requests refused with 429, by rate-limit policy.',
      labelNames: ['policy'] as const,
      registers,
    }),
    settlementGas: new Counter({
      name: 'settlement_gas_used_total',
      help: 'Gas the settlement account spent on mined settlement transactions, by status (success, reverted).',
      labelNames: ['status'] as const,
      registers,
    }),
    settlementFees: new Counter({
      name: 'settlement_fees_wei_total',
      help: 'Wei the settlement account paid for mined settlement transactions (gas used x effective gas price), by status.',
      labelNames: ['status'] as const,
      registers,
    }),
    settlementsReverted: new Counter({
      name: 'settlements_reverted_total',
      help: 'Settlement transactions that reverted on chain (each cost gas and moved nothing; its payer is refused for a while).',
      registers,
    }),
    preflightsInFlight: new Gauge({
      name: 'preflights_in_flight',
      help: 'Preflights running now (each holds one slot of preflights_limit).',
      registers,
    }),
    preflightsLimit: new Gauge({
      name: 'preflights_limit',
      help: 'The bound on preflights in flight now: MAX_PREFLIGHTS_IN_FLIGHT, lowered while the event loop lags past PREFLIGHT_LIMIT_LOOP_DELAY_MS (never under MIN_PREFLIGHTS_IN_FLIGHT).',
      registers,
    }),
    preflightsWaiting: new Gauge({
      name: 'preflights_waiting',
      help: 'Paid calls holding a payment that wait for a preflight slot (never shed).',
      registers,
    }),
    preflightsShed: new Counter({
      name: 'preflights_shed_total',
      help: 'Requests refused with 503 overloaded, by route pattern and reason: slots (every preflight slot taken) or event_loop (the loop lagging past SHED_EVENT_LOOP_DELAY_MS).',
      labelNames: ['route', 'reason'] as const,
      registers,
    }),
    rateLimitStoreErrors: new Counter({
      name: 'rate_limit_store_errors_total',
      help: 'Rate-limit takes that failed (Redis unreachable); those requests were let through.',
      registers,
    }),
  }
  const unresolved = options.unresolvedPayments
  if (unresolved) {
    new Gauge({
      name: 'payments_unresolved',
      help: 'Ledger payments not yet settled or failed (in flight or settle_pending); -1 when the ledger cannot be read.',
      registers,
      async collect() {
        this.set(await unresolved().catch(() => -1))
      },
    })
  }
  return metrics
}

/** A mined settlement transaction of the settlement account, for the settlement metrics. */
export interface SettlementCost {
  status: 'success' | 'reverted'
  gasUsed: bigint
  effectiveGasPrice: bigint
}

/** Counts one mined settlement transaction into `metrics` (gas, wei, reverts). */
export function recordSettlementCost(metrics: ServiceMetrics, mined: SettlementCost): void {
  metrics.settlementGas.inc({ status: mined.status }, Number(mined.gasUsed))
  metrics.settlementFees.inc(
    { status: mined.status },
    Number(mined.gasUsed * mined.effectiveGasPrice),
  )
  if (mined.status === 'reverted') metrics.settlementsReverted.inc()
}

/** The service's metrics; see {@link createServiceMetrics}. */
export type ServiceMetrics = ReturnType<typeof createServiceMetrics>

/** The HTTP answers: counted and timed by route pattern, method and status. */
export function httpCallMetrics(registers: Registry[]): ObserveCall {
  return createCallMetrics(
    {
      requests: {
        name: 'http_requests_total',
        help: 'HTTP requests answered, by route pattern, method and status.',
        labelNames: ['route', 'method', 'status'],
      },
      duration: {
        name: 'http_request_duration_seconds',
        help: 'Time to answer an HTTP request, by route pattern, method and status.',
      },
      buckets: LATENCY_BUCKETS,
    },
    registers,
  )
}

/** The RPC client's calls: counted by method and outcome, timed by method. */
export function rpcCallMetrics(registers: Registry[]): { observe: RpcObserver } {
  const observe = createCallMetrics(
    {
      requests: {
        name: 'rpc_requests_total',
        help: 'JSON-RPC requests to the Base RPC, by method and outcome (ok, rpc_error, http_error, timeout, network_error).',
        labelNames: ['method', 'outcome'],
      },
      duration: {
        name: 'rpc_request_duration_seconds',
        help: 'JSON-RPC request latency to the Base RPC, reply body included, by method.',
        labelCount: 1,
      },
      buckets: LATENCY_BUCKETS,
    },
    registers,
  )
  return { observe: (method, outcome, seconds) => observe([method, outcome], seconds) }
}
