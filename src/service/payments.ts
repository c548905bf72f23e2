import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { getAddress } from 'viem'
import { recordSettlementCost, type ServiceMetrics } from '../adapters/metrics/service-metrics.js'
import type { Storage } from '../adapters/storage/open-storage.js'
import { SettlerInUseError } from '../adapters/storage/settler-lease.js'
import type { Config } from '../config.js'
import { errorChain } from '../errors.js'
import { publicOrigin, type Redactor } from '../secrets.js'
import type { ChainConnection } from './chain.js'
import { openLedger } from './ledger.js'
import type { Lifecycle } from './lifecycle.js'
import {
  type PaymentServices,
  type PaymentServicesOptions,
  startPaymentServices,
} from './payment-services.js'
import type { StartupWait } from './starting.js'
import { logStartupFailure } from './startup-failure.js'

/**
 * Start-up's payments step (its settings were checked with the rest of the configuration,
 * before anything started): starts the payment side on the opened ledger: the settlement account's
 * lease in a shared ledger (another living instance holding it is exit 2, before anything is
 * served), the facilitator, the x402 rail and the reconciler's first pass.
 */
export async function startPayments(
  config: Config,
  chain: ChainConnection,
  /** The ledger being opened since start-up began; opened here when undefined. */
  ledger: Promise<Storage> | undefined,
  logger: Logger,
  /** The configuration's secrets' redactor (built once by `main.ts`). */
  redactor: Redactor,
  lifecycle: Lifecycle,
  /** Waits for a ledger database that does not answer yet. */
  wait: StartupWait,
  /** The service's metrics (settlement gas and reverts are counted into them). */
  metrics?: ServiceMetrics,
): Promise<PaymentServices> {
  let services: PaymentServices
  try {
    // Mainnet: a database that does not answer yet is waited for; a refusal (a password, a
    // missing database) is a configuration error.
    const storage = await (ledger ??
      wait.until(
        'the ledger database',
        () => openLedger(config, logger, lifecycle),
        isLedgerOutage,
      ))
    services = await wait.until(
      'the ledger database',
      () => startPaymentServices(paymentOptions(config, chain, storage, logger, redactor, metrics)),
      isLedgerOutage,
    )
  } catch (error) {
    if (error instanceof SettlerInUseError) {
      // A configuration problem, reported like one (exit 2), not a crash.
      process.stderr.write(`pre-send-guard: ${redactor.redact(error.message)}\n`)
      return lifecycle.exit(2)
    }
    logStartupFailure(
      logger,
      'cannot start the payment rail (ledger storage or facilitator)',
      error,
      'check DATABASE_URL (or DATA_DIR) and the facilitator settings (FACILITATOR, FACILITATOR_URL, CDP_API_KEY_ID/CDP_API_KEY_SECRET); LOG_LEVEL=debug prints the full error',
    )
    return lifecycle.exit(1)
  }
  lifecycle.onStop('payments', () => services.close())
  const { facilitator } = services
  logger.info(
    {
      payTo: services.payments.rail.requirements.payTo,
      receiptSigner: services.receiptSigner,
      facilitator: {
        kind: facilitator.kind,
        ...(facilitator.url ? { url: publicOrigin(facilitator.url) } : {}),
        ...(facilitator.settlerAddress ? { settler: facilitator.settlerAddress } : {}),
      },
      ledger: {
        kind: services.storage.kind,
        persistent: config.DATABASE_URL !== undefined || config.environment === 'mainnet',
      },
    },
    `paid route: x402 v2, $0.01 USDC on ${config.network.id}`,
  )
  return services
}

/** The payment side's options: the configuration's payment settings, wired to the chain. */
function paymentOptions(
  config: Config,
  chain: ChainConnection,
  storage: Storage,
  logger: PaymentServicesOptions['logger'],
  redactor: Redactor,
  metrics: ServiceMetrics | undefined,
): PaymentServicesOptions {
  const devnet = config.environment === 'devnet'
  const { payment } = config
  const timeoutMs = config.FACILITATOR_TIMEOUT_MS
  const facilitator: PaymentServicesOptions['facilitator'] =
    payment.facilitator.kind === 'builtin'
      ? {
          ...payment.facilitator,
          network: config.network,
          rpcUrl: chain.rpcUrl,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          confirmationTimeoutMs: timeoutMs,
          settlementGasCeiling: BigInt(config.SETTLEMENT_GAS_CEILING),
          ...(metrics
            ? { onSettlementMined: (mined) => recordSettlementCost(metrics, mined) }
            : {}),
          ...(devnet ? { pollingIntervalMs: 100 } : {}),
        }
      : { ...payment.facilitator, timeoutMs }
  return {
    facilitator,
    network: config.network,
    payTo: getAddress(payment.payTo.toLowerCase()),
    receiptPrivateKey: payment.receiptPrivateKey,
    storage,
    leaseMs: config.PAYMENT_LEASE_MS,
    revertCooldownMs: config.SETTLEMENT_REVERT_COOLDOWN_SECONDS * 1000,
    paymentIdentifierRequired: payment.identifierRequired,
    // An idle anvil makes no blocks: judge expiry by the wall clock too (devnet only).
    ...(devnet ? { idleChainClock: true } : {}),
    rpcUrl: chain.rpcUrl,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    // One settle at most: the facilitator's wait, its one retry of a pending answer, the RPC.
    drainTimeoutMs: 2 * config.FACILITATOR_TIMEOUT_MS + config.RPC_TIMEOUT_MS + 5_000,
    instanceId: config.INSTANCE_ID ?? `${hostname()}:${config.PORT}`,
    logger,
    redactor,
  }
}

/**
 * Connection trouble along the error's cause chain: a code (refused, reset, timed out, the
 * server starting or shutting down, SQLSTATE class 08 and 57P0x), or one of the `pg` driver's
 * code-less errors for a connection lost or never made (a database cut or a pooler whose
 * server is gone: "Connection terminated unexpectedly"; a connect or query timeout): the
 * database is down, not misconfigured.
 */
function isLedgerOutage(error: unknown): boolean {
  return errorChain(error).some((e) => {
    const { code, message } = e as { code?: unknown; message?: unknown }
    return (
      (typeof code === 'string' && OUTAGE_CODE.test(code)) ||
      (typeof message === 'string' && CONNECTION_LOST.test(message))
    )
  })
}

const OUTAGE_CODE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|EAI_AGAIN|08[0-9A-Z]{3}|57P0[123])$/

const CONNECTION_LOST =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired$|Query read timeout$)/
