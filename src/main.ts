import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { getAddress } from 'viem'
import { type Devnet, startDevnet } from './adapters/devnet/devnet.js'
import { DEVNET_ACCOUNTS } from './adapters/devnet/prepare.js'
import {
  type PaymentServices,
  type PaymentServicesOptions,
  startPaymentServices,
} from './adapters/facilitator/payment-services.js'
import { setUpOperations } from './adapters/metrics/operations-setup.js'
import { createJinaReader } from './adapters/reader/jina-reader.js'
import { createViemChainReader, DEFAULT_HEAD_POLL_MS } from './adapters/rpc/viem-chain-reader.js'
import { SettlerInUseError } from './adapters/storage/settler-lease.js'
import { createApp } from './app.js'
import {
  type Config,
  ConfigError,
  loadConfig,
  loadDotEnvFile,
  mainnetPaymentProblems,
} from './config.js'
import { startHttpServer } from './http/server.js'
import { createLogger, routeConsoleToLogger } from './logger.js'
import { configureSecrets, publicOrigin, redactSecrets } from './secrets.js'

const BASE_CHAIN_ID = 8453

async function main(): Promise<void> {
  let config: Config
  try {
    loadDotEnvFile()
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(
        `pre-send-guard: ${error.message}\nSee .env.example for every variable.\n`,
      )
      process.exit(2)
    }
    throw error
  }
  // First, before anything can log or fail: from here on no configured secret leaves the process.
  configureSecrets(config)
  const logger = createLogger(config.LOG_LEVEL)
  routeConsoleToLogger(logger)
  const crash = (what: string) => (error: unknown) => {
    logger.fatal({ err: error }, what)
    process.exit(1)
  }
  // Node would print these to stderr itself, stack and all, past the logger's redaction.
  process.on('uncaughtException', crash('uncaught exception; stopping'))
  process.on('unhandledRejection', crash('unhandled promise rejection; stopping'))
  const reader = createJinaReader({
    baseUrl: config.READER_BASE_URL,
    apiKey: config.READER_API_KEY,
    timeoutMs: config.READER_TIMEOUT_MS,
  })
  let devnet: Devnet | undefined
  let shuttingDown = false

  let rpcUrl: string
  if (config.BASE_RPC_URL) {
    rpcUrl = config.BASE_RPC_URL
  } else {
    try {
      devnet = await startDevnet()
    } catch (error) {
      logger.fatal(
        { err: error },
        'cannot start the embedded devnet (anvil from @foundry-rs/anvil-linux-amd64, Linux x86-64 only); set BASE_RPC_URL to use a Base RPC instead',
      )
      process.exit(1)
    }
    rpcUrl = devnet.rpcUrl
    logger.info({ anvilPid: devnet.pid, rpcUrl }, 'embedded devnet started (anvil, chain id 8453)')
    devnet.onExit((info) => {
      if (shuttingDown || info.expected) return
      logger.fatal(info, 'the embedded devnet (anvil) exited unexpectedly; stopping the service')
      process.exit(1)
    })
  }

  let ledgerForMetrics: (() => Promise<number>) | undefined
  const operations = setUpOperations(config, devnet ? 'devnet' : 'mainnet', logger, () =>
    ledgerForMetrics ? ledgerForMetrics() : Promise.resolve(0),
  )
  const chain = createViemChainReader({
    rpcUrl,
    timeoutMs: config.RPC_TIMEOUT_MS,
    observe: operations.observeRpc,
    headPollMs: config.RPC_HEAD_POLL_MS ?? DEFAULT_HEAD_POLL_MS[devnet ? 'devnet' : 'mainnet'],
    maxSockets: config.RPC_MAX_CONNECTIONS,
  })
  const chainId = await chain.chainId().catch((error: unknown) => {
    logger.fatal(
      { err: error, rpcUrl: publicOrigin(rpcUrl) },
      'cannot reach the Base RPC at start-up',
    )
    return undefined
  })
  if (chainId !== BASE_CHAIN_ID) {
    if (chainId !== undefined) {
      logger.fatal(
        { chainId: `0x${chainId.toString(16)}`, expected: '0x2105' },
        'BASE_RPC_URL is not Base mainnet (eth_chainId must be 0x2105); refusing to start',
      )
    }
    await devnet?.stop()
    process.exit(1)
  }

  const environment = devnet ? 'devnet' : 'mainnet'
  const paymentProblems = environment === 'mainnet' ? mainnetPaymentProblems(config) : []
  const publicKeys = new Set(
    Object.values(DEVNET_ACCOUNTS).flatMap((a) => [
      a.privateKey.toLowerCase(),
      a.address.toLowerCase(),
    ]),
  )
  for (const name of ['PAY_TO_ADDRESS', 'SETTLEMENT_PRIVATE_KEY', 'RECEIPT_PRIVATE_KEY'] as const) {
    // Anvil's test keys are public: on mainnet anything they hold or sign is anyone's.
    if (environment === 'mainnet' && publicKeys.has(config[name]?.toLowerCase() ?? '')) {
      paymentProblems.push(`${name}: is a public anvil test account; never use it on mainnet`)
    }
  }
  if (paymentProblems.length > 0) {
    process.stderr.write(
      `pre-send-guard: ${new ConfigError(paymentProblems).message}\nSee .env.example for every variable.\n`,
    )
    process.exit(2)
  }
  let paymentServices: PaymentServices
  try {
    paymentServices = await startPaymentServices(paymentOptions(config, rpcUrl, devnet, logger))
  } catch (error) {
    await devnet?.stop()
    if (error instanceof SettlerInUseError) {
      // A configuration problem, reported like one (exit 2), not a crash.
      process.stderr.write(`pre-send-guard: ${redactSecrets(error.message)}\n`)
      process.exit(2)
    }
    logger.fatal({ err: error }, 'cannot start the payment rail (ledger storage or facilitator)')
    process.exit(1)
  }
  ledgerForMetrics = paymentServices.payments.ledger.unresolvedCount
  logger.info(
    {
      payTo: paymentServices.payments.rail.requirements.payTo,
      receiptSigner: paymentServices.receiptSigner,
      facilitator: {
        kind: paymentServices.facilitator.kind,
        ...(paymentServices.facilitator.url
          ? { url: publicOrigin(paymentServices.facilitator.url) }
          : {}),
        ...(paymentServices.facilitator.settlerAddress
          ? { settler: paymentServices.facilitator.settlerAddress }
          : {}),
      },
      ledger: {
        kind: paymentServices.storage.kind,
        persistent: config.DATABASE_URL !== undefined || !devnet,
      },
    },
    'paid route: x402 v2, $0.01 USDC on eip155:8453',
  )

  const app = createApp({
    logger,
    environment,
    maxBodyBytes: config.MAX_BODY_BYTES,
    preflight: {
      chain,
      chainId,
      environment,
      screen: {
        gasWarnThreshold: config.GAS_WARN_THRESHOLD,
        unlimitedAllowanceThreshold: config.UNLIMITED_ALLOWANCE_THRESHOLD,
        permit2ExpiryWarnSeconds: config.PERMIT2_EXPIRY_WARN_SECONDS,
      },
    },
    reader,
    payments: paymentServices.payments,
    metrics: operations.metrics,
    ...(operations.rateLimits ? { rateLimits: operations.rateLimits } : {}),
    ...(config.METRICS_TOKEN ? { metricsToken: config.METRICS_TOKEN } : {}),
    ...(devnet ? {} : { readyMaxBlockAgeSeconds: config.READY_MAX_BLOCK_AGE_SECONDS }),
    ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    ...(devnet ? { devnet: { rpcUrl: devnet.rpcUrl, accounts: devnetAccountList(devnet) } } : {}),
  })

  const server = startHttpServer({
    fetch: app.fetch,
    port: config.PORT,
    hostname: config.HOST,
    limits: {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    },
    onListening: (info) => {
      const url = `http://${info.address.includes(':') ? `[${info.address}]` : info.address}:${info.port}`
      if (devnet) {
        logger.warn(
          {
            environment: 'devnet',
            rpcUrl: devnet.rpcUrl,
            chainId: '0x2105',
            anvilPid: devnet.pid,
            accounts: devnetAccountList(devnet),
          },
          `DEVNET: this is a LOCAL anvil chain shaped like Base mainnet (chain id 8453), NOT Base mainnet. Devnet RPC ${devnet.rpcUrl}. No real money moves. Set BASE_RPC_URL for mainnet. Try the whole paid flow: npm run demo`,
        )
      } else {
        logger.info(
          { environment: 'mainnet', rpcUrl: publicOrigin(rpcUrl) },
          'connected to Base mainnet',
        )
      }
      logger.info({ url, environment }, `pre-send-guard listening on ${url}`)
    },
  })

  server.on('error', (error: NodeJS.ErrnoException) => {
    logger.fatal(
      { err: error, host: config.HOST, port: config.PORT },
      error.code === 'EADDRINUSE'
        ? `port ${config.PORT} on ${config.HOST} is already in use; set PORT to a free one`
        : 'cannot listen',
    )
    shuttingDown = true
    void paymentServices
      .close()
      .catch(() => undefined)
      .then(() => devnet?.stop())
      .then(() => process.exit(2))
  })

  const shutdown = async (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    logger.info({ signal }, 'shutting down')
    // Let in-flight requests finish, but never wait on idle keep-alive sockets or forever.
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      if ('closeIdleConnections' in server) server.closeIdleConnections()
      setTimeout(() => {
        if ('closeAllConnections' in server) server.closeAllConnections()
        resolve()
      }, 5000).unref()
    })
    // Paid calls outlive their sockets: one between settle and receipt must still write its
    // outcome, so the payment side waits for them (bounded) before closing the ledger.
    await paymentServices.close().catch((error: unknown) => {
      logger.warn({ err: error }, 'closing the ledger failed')
    })
    await operations.close()
    chain.close()
    await devnet?.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

/** The devnet's role accounts without their (public, devnet-only) keys. */
function devnetAccountList(devnet: Devnet): Record<string, { index: number; address: Address }> {
  return Object.fromEntries(
    Object.entries(devnet.accounts).map(([role, { index, address }]) => [role, { index, address }]),
  )
}

/**
 * The paid route's settings: configuration where given; on the devnet, the devnet's role
 * accounts and an in-memory ledger (the devnet chain itself is gone after a restart, so a
 * persisted ledger would describe payments on a chain that no longer exists).
 */
function paymentOptions(
  config: Config,
  rpcUrl: string,
  devnet: Devnet | undefined,
  logger: PaymentServicesOptions['logger'],
): PaymentServicesOptions {
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
          rpcUrl,
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
    storage: config.DATABASE_URL
      ? { kind: 'postgres', url: config.DATABASE_URL, schema: config.DATABASE_SCHEMA }
      : {
          kind: 'pglite',
          dataDir: devnet ? undefined : join(config.DATA_DIR, 'ledger'),
          schema: config.DATABASE_SCHEMA,
        },
    leaseMs: config.PAYMENT_LEASE_MS,
    paymentIdentifierRequired: config.PAYMENT_IDENTIFIER_REQUIRED === 'true',
    // An idle anvil makes no blocks: judge expiry by the wall clock too (devnet only).
    ...(devnet ? { idleChainClock: true } : {}),
    rpcUrl,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    // One settle at most: the facilitator's wait, its one retry of a pending answer, the RPC.
    drainTimeoutMs: 2 * config.FACILITATOR_TIMEOUT_MS + config.RPC_TIMEOUT_MS + 5_000,
    instanceId: config.INSTANCE_ID ?? `${hostname()}:${config.PORT}`,
    logger,
  }
}

await main().catch((error: unknown) => {
  // Before the logger exists (or if main itself failed): still never print a configured secret.
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
  process.stderr.write(`pre-send-guard: ${redactSecrets(text)}\n`)
  process.exit(1)
})
