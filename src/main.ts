import { readConfig } from './config.js'
import { startLogging } from './logger.js'
import { boundHeapGrowth } from './process/heap-growth.js'
import { createRedactor, DEFAULT_REDACTOR, type Redactor } from './secrets.js'
import type { ChainNode } from './service/chain.js'
import { startEmbeddedAnvil } from './service/devnet-node.js'
import { openLedger } from './service/ledger.js'
import { createLifecycle, stopOnSignals } from './service/lifecycle.js'
import { startupClock } from './service/startup-clock.js'
import { oneLineReason, wantsStacks } from './service/startup-failure.js'

/**
 * The service, start to finish. Three things start at once and run beside each other: the
 * devnet's anvil (another process), the ledger, and the loading of the rest of the code (this
 * module imports nothing heavy). Nothing is served before the payment side holds its
 * settlement lease and has started its reconciler, so a second instance on the same key is
 * refused first.
 */
/** Whether a failure below prints its stack: only at LOG_LEVEL=debug (known once config is read). */
let printStacks = false
/**
 * What scrubs a failure below: the configuration's redactor once config is read; before that,
 * `DEFAULT_REDACTOR` (no configured secret known; any URL's userinfo still removed).
 */
let failureRedactor: Redactor = DEFAULT_REDACTOR

async function main(): Promise<void> {
  const clock = startupClock()
  const config = readConfig()
  printStacks = wantsStacks(config.LOG_LEVEL)
  // One redactor for the configuration's secrets, passed to whatever lets text out: the logger
  // scrubs every line with it, the error renderer every body, adapters the upstream text they
  // quote.
  const redactor = createRedactor(config.secrets)
  failureRedactor = redactor
  const logger = startLogging(config.LOG_LEVEL, redactor)
  boundHeapGrowth(config.HEAP_GROWING_PERCENT)
  const lifecycle = createLifecycle(logger)
  stopOnSignals(lifecycle, logger)
  const node: ChainNode =
    config.environment === 'devnet'
      ? {
          environment: 'devnet',
          devnet: config.devnet,
          anvil: clock.time(
            'anvil',
            startEmbeddedAnvil(
              lifecycle,
              config.devnet,
              (message) => logger.info(message),
              config.network,
            ),
          ),
        }
      : { environment: 'mainnet', rpcUrl: config.rpcUrl }
  // Mainnet opens its ledger once its RPC answers (a database that is down is waited for).
  const ledger =
    config.environment === 'devnet'
      ? clock.time('ledger', openLedger(config, logger, lifecycle))
      : undefined
  const [
    { setUpOperations },
    { connectChain },
    { startPayments },
    { buildApp },
    { listen },
    { startupWait },
  ] = await clock.time(
    'code',
    Promise.all([
      import('./service/operations-setup.js'),
      import('./service/chain.js'),
      import('./service/payments.js'),
      import('./service/build-app.js'),
      import('./service/listen.js'),
      import('./service/starting.js'),
    ]),
  )
  let unresolved = () => Promise.resolve(0)
  const operations = await setUpOperations(config, logger, () => unresolved())
  lifecycle.onStop('operations', () => operations.close())
  // A mainnet dependency that does not answer yet is waited for, with the instance saying so.
  const wait = startupWait(config, logger, lifecycle)
  const chain = await clock.time(
    'chain',
    connectChain(config, node, logger, redactor, operations.observeRpc, lifecycle, wait),
  )
  const payments = await clock.time(
    'payments',
    startPayments(config, chain, ledger, logger, redactor, lifecycle, wait, operations.metrics),
  )
  unresolved = payments.payments.ledger.unresolvedCount
  const app = buildApp(config, chain, payments, operations, logger, redactor)
  await wait.done()
  listen(app, config, chain, logger, lifecycle, clock)
}

await main().catch((error: unknown) => {
  // Before the logger exists (or if main itself failed): still never print a configured secret.
  // One line and a hint; the stack only when asked for.
  const stack = printStacks && error instanceof Error && error.stack ? `\n${error.stack}` : ''
  process.stderr.write(
    `pre-send-guard: cannot start: ${failureRedactor.redact(oneLineReason(error) + stack)}\n` +
      (printStacks ? '' : 'pre-send-guard: LOG_LEVEL=debug prints the full error\n'),
  )
  process.exit(1)
})
