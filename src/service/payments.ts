import { hostname } from 'node:os'
import type { Logger } from 'pino'
import { getAddress } from 'viem'
import { DEVNET_ACCOUNTS } from '../adapters/devnet/accounts.js'
import {
  type PaymentServices,
  type PaymentServicesOptions,
  startPaymentServices,
} from '../adapters/facilitator/payment-services.js'
import type { Storage } from '../adapters/storage/open-storage.js'
import { SettlerInUseError } from '../adapters/storage/settler-lease.js'
import { type Config, mainnetPaymentProblems, reportConfigProblems } from '../config.js'
import { errorCodes } from '../errors.js'
import { publicOrigin, redactSecrets } from '../secrets.js'
import type { ChainConnection } from './chain.js'
import { openLedger } from './ledger.js'
import type { Lifecycle } from './lifecycle.js'
import type { StartupWait } from './starting.js'
import { logStartupFailure } from './startup-failure.js'

/**
 * Start-up's payments step: checks mainnet's payment settings (exit 2 naming each missing or
 * unsafe one), then starts the payment side on the opened ledger: the settlement account's
 * lease in a shared ledger (another living instance holding it is exit 2, before anything is
 * served), the facilitator, the x402 rail and the reconciler's first pass.
 */
export async function startPayments(
  config: Config,
  chain: ChainConnection,
  /** The ledger being opened since start-up began; opened here when undefined. */
  ledger: Promise<Storage> | undefined,
  logger: Logger,
  lifecycle: Lifecycle,
  /** Waits for a ledger database that does not answer yet. */
  wait: StartupWait,
): Promise<PaymentServices> {
  const problems = chain.environment === 'mainnet' ? paymentProblems(config) : []
  if (problems.length > 0) {
    reportConfigProblems(problems)
    return lifecycle.exit(2)
  }
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
      () => startPaymentServices(paymentOptions(config, chain, storage, logger)),
      isLedgerOutage,
    )
  } catch (error) {
    if (error instanceof SettlerInUseError) {
      // A configuration problem, reported like one (exit 2), not a crash.
      process.stderr.write(`pre-send-guard: ${redactSecrets(error.message)}\n`)
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
        persistent: config.DATABASE_URL !== undefined || chain.environment === 'mainnet',
      },
    },
    'paid route: x402 v2, $0.01 USDC on eip155:8453',
  )
  return services
}

/** Mainnet's missing payment settings, and any set to a public anvil test account. */
function paymentProblems(config: Config): string[] {
  const problems = mainnetPaymentProblems(config)
  const publicKeys = new Set(
    Object.values(DEVNET_ACCOUNTS).flatMap((a) => [
      a.privateKey.toLowerCase(),
      a.address.toLowerCase(),
    ]),
  )
  for (const name of ['PAY_TO_ADDRESS', 'SETTLEMENT_PRIVATE_KEY', 'RECEIPT_PRIVATE_KEY'] as const) {
    // Anvil's test keys are public: on mainnet anything they hold or sign is anyone's.
    if (publicKeys.has(config[name]?.toLowerCase() ?? '')) {
      problems.push(`${name}: is a public anvil test account; never use it on mainnet`)
    }
  }
  return problems
}

/**
 * The paid route's settings: configuration where given; on the devnet, the devnet's role
 * accounts.
 */
function paymentOptions(
  config: Config,
  chain: ChainConnection,
  storage: Storage,
  logger: PaymentServicesOptions['logger'],
): PaymentServicesOptions {
  const devnet = chain.environment === 'devnet'
  const fallback = (value: `0x${string}` | undefined, devnetValue: `0x${string}`) => {
    if (value) return value
    if (!devnet) throw new Error('unreachable: mainnet payment settings were checked')
    return devnetValue
  }
  const kind = config.FACILITATOR ?? 'builtin'
  const facilitator: PaymentServicesOptions['facilitator'] =
    kind === 'builtin'
      ? {
          kind,
          settlementPrivateKey: fallback(
            config.SETTLEMENT_PRIVATE_KEY as `0x${string}` | undefined,
            DEVNET_ACCOUNTS.facilitator.privateKey,
          ),
          rpcUrl: chain.rpcUrl,
          rpcTimeoutMs: config.RPC_TIMEOUT_MS,
          confirmationTimeoutMs: config.FACILITATOR_TIMEOUT_MS,
          ...(devnet ? { pollingIntervalMs: 100 } : {}),
        }
      : kind === 'url'
        ? { kind, url: config.FACILITATOR_URL ?? '', timeoutMs: config.FACILITATOR_TIMEOUT_MS }
        : {
            kind,
            apiKeyId: config.CDP_API_KEY_ID ?? '',
            apiKeySecret: config.CDP_API_KEY_SECRET ?? '',
            timeoutMs: config.FACILITATOR_TIMEOUT_MS,
          }
  return {
    facilitator,
    payTo: getAddress(
      fallback(
        config.PAY_TO_ADDRESS as `0x${string}` | undefined,
        DEVNET_ACCOUNTS.payTo.address,
      ).toLowerCase(),
    ),
    receiptPrivateKey: fallback(
      config.RECEIPT_PRIVATE_KEY as `0x${string}` | undefined,
      DEVNET_ACCOUNTS.receiptSigner.privateKey,
    ),
    storage,
    leaseMs: config.PAYMENT_LEASE_MS,
    paymentIdentifierRequired: config.PAYMENT_IDENTIFIER_REQUIRED === 'true',
    // An idle anvil makes no blocks: judge expiry by the wall clock too (devnet only).
    ...(devnet ? { idleChainClock: true } : {}),
    rpcUrl: chain.rpcUrl,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    // One settle at most: the facilitator's wait, its one retry of a pending answer, the RPC.
    drainTimeoutMs: 2 * config.FACILITATOR_TIMEOUT_MS + config.RPC_TIMEOUT_MS + 5_000,
    instanceId: config.INSTANCE_ID ?? `${hostname()}:${config.PORT}`,
    logger,
  }
}

/**
 * Connection trouble (refused, reset, timed out, the server starting or shutting down, SQLSTATE
 * class 08 and 57P0x): the database is down, not misconfigured.
 */
function isLedgerOutage(error: unknown): boolean {
  return errorCodes(error).some(
    (code) =>
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|EAI_AGAIN)$/.test(code) ||
      /^08[0-9A-Z]{3}$/.test(code) ||
      /^57P0[123]$/.test(code),
  )
}
