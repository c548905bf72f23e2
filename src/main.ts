import { setUpOperations } from './adapters/metrics/operations-setup.js'
import { readConfig } from './config.js'
import { startLogging } from './logger.js'
import { redactSecrets } from './secrets.js'
import { connectChain } from './service/chain.js'
import { createLifecycle, stopOnSignals } from './service/lifecycle.js'
import { listen } from './service/listen.js'
import { openLedger, startPayments } from './service/payments.js'

/**
 * The service, start to finish. On the devnet the ledger opens and the routes' code loads
 * while anvil starts (another process): start-up takes about the longest of the three, not
 * their sum. Nothing is served before the payment side holds its settlement lease and
 * has started its reconciler, so a second instance on the same key is refused first.
 */
async function main(): Promise<void> {
  const config = readConfig()
  const logger = startLogging(config)
  const lifecycle = createLifecycle(logger)
  stopOnSignals(lifecycle, logger)
  // Mainnet opens its ledger after its payment settings are checked (no DATA_DIR on a refusal).
  const ledger = config.mode === 'devnet' ? openLedger(config, logger, lifecycle) : undefined
  const routes = import('./service/app.js')
  routes.catch(() => undefined) // awaited below; not an unhandled rejection meanwhile
  let unresolved = () => Promise.resolve(0)
  const operations = await setUpOperations(config, config.mode, logger, () => unresolved())
  lifecycle.onStop('operations', () => operations.close())
  const chain = await connectChain(config, logger, operations.observeRpc, lifecycle)
  const payments = await startPayments(config, chain, ledger, logger, lifecycle)
  unresolved = payments.payments.ledger.unresolvedCount
  const app = (await routes).buildApp(config, chain, payments, operations, logger)
  listen(app.fetch, config, chain, logger, lifecycle)
}

await main().catch((error: unknown) => {
  // Before the logger exists (or if main itself failed): still never print a configured secret.
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
  process.stderr.write(`pre-send-guard: ${redactSecrets(text)}\n`)
  process.exit(1)
})
