import type { Logger } from 'pino'
import { createDevnetFaucet } from '../adapters/devnet/faucet.js'
import { createPaymentRequiredHeaders } from '../adapters/facilitator/payment-required-headers.js'
import { lazyMetaMaskPhishingList } from '../adapters/phishing/metamask-phishing-list.js'
import { createJinaReader } from '../adapters/reader/jina-reader.js'
import type { Config } from '../config.js'
import { serveNetwork } from '../domain/protocols/network.js'
import type { ScreenConfig } from '../domain/screen/context.js'
import { DEFAULT_SCREEN_CONFIG } from '../domain/screen/screen-transaction.js'
import { createApp, type GuardApp } from '../http/create-app.js'
import { paidTransactionPreflightExtensions } from '../routes/paid-transaction-preflight.js'
import type { Redactor } from '../secrets.js'
import { type ChainConnection, devnetAccountList } from './chain.js'
import type { OperationsSetup } from './operations-setup.js'
import type { PaymentServices } from './payment-services.js'

/**
 * Start-up's app step: every route wired to the running chain, payment side and operations.
 * This module is what pulls in the routes' code (hono, zod, x402): `main.ts` imports it
 * dynamically, so that the code loads while the devnet and the ledger start.
 */
export function buildApp(
  config: Config,
  chain: ChainConnection,
  payments: PaymentServices,
  operations: OperationsSetup,
  logger: Logger,
  /** The configuration's secrets' redactor (built once by `main.ts`). */
  redactor: Redactor,
): GuardApp {
  const { devnet, environment } = chain
  // One process serves one network: the protocol knowledge's lookups read it from here on.
  serveNetwork(config.network.id)
  return createApp({
    logger,
    redactor,
    environment,
    network: config.network,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxPreflightsInFlight: config.MAX_PREFLIGHTS_IN_FLIGHT,
    shedEventLoopDelayMs: config.SHED_EVENT_LOOP_DELAY_MS,
    preflightLimitLoopDelayMs: config.PREFLIGHT_LIMIT_LOOP_DELAY_MS,
    minPreflightsInFlight: config.MIN_PREFLIGHTS_IN_FLIGHT,
    preflight: {
      chain: chain.reader,
      chainId: chain.chainId,
      environment,
      screen: screenSettings(config),
    },
    reader: createJinaReader({
      baseUrl: config.READER_BASE_URL,
      apiKey: config.READER_API_KEY,
      timeoutMs: config.READER_TIMEOUT_MS,
      redactor,
    }),
    phishingList: lazyMetaMaskPhishingList(),
    payments: payments.payments,
    // The paid route's PAYMENT-REQUIRED headers, kept by the adapter: one cache per app.
    paymentRequiredHeaders: createPaymentRequiredHeaders(payments.payments.rail, () =>
      paidTransactionPreflightExtensions(payments.payments, config.network),
    ),
    metrics: operations.metrics,
    ...(operations.rateLimits ? { rateLimits: operations.rateLimits } : {}),
    ...(config.METRICS_TOKEN ? { metricsToken: config.METRICS_TOKEN } : {}),
    ...(devnet ? {} : { readyMaxBlockAgeSeconds: config.READY_MAX_BLOCK_AGE_SECONDS }),
    ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    ...(config.MCP_ALLOWED_ORIGINS ? { mcpAllowedOrigins: config.MCP_ALLOWED_ORIGINS } : {}),
    ...(devnet ? { devnet: { rpcUrl: devnet.rpcUrl, accounts: devnetAccountList(devnet) } } : {}),
    ...(devnet ? { devnetBuyerKey: devnet.accounts.buyer.privateKey } : {}),
    ...(devnet
      ? { devnetFaucet: createDevnetFaucet(devnet.rpcUrl, config.network.usdc.address) }
      : {}),
  })
}

/** The screen's thresholds: the configured ones over the rule catalogue's defaults (declared once, there). */
export function screenSettings(config: Pick<Config, 'screen'>): ScreenConfig {
  return { ...DEFAULT_SCREEN_CONFIG, ...config.screen }
}
