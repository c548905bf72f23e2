import { join } from 'node:path'
import type { Logger } from 'pino'
import { openStorage, type Storage, type StorageSetup } from '../adapters/storage/open-storage.js'
import type { Config } from '../config.js'
import type { Lifecycle } from './lifecycle.js'

/**
 * Where the ledger lives: `DATABASE_URL`'s PostgreSQL; else PGlite in `DATA_DIR/ledger` on
 * mainnet, and a throwaway PGlite on the devnet (the devnet chain itself is gone after a
 * restart, so a kept ledger would describe payments on a chain that no longer exists).
 */
export function ledgerSetup(config: Config, logger: Logger): StorageSetup {
  if (config.DATABASE_URL) {
    return {
      kind: 'postgres',
      url: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      onError: (error, context) => logger.warn({ err: error }, context),
    }
  }
  return {
    kind: 'pglite',
    dataDir: config.environment === 'devnet' ? undefined : join(config.DATA_DIR, 'ledger'),
    schema: config.DATABASE_SCHEMA,
  }
}

/**
 * Start-up's ledger step, begun at once so that it runs beside the devnet and the loading of
 * the code: opens and migrates the ledger. Its failure is reported by {@link startPayments}.
 */
export function openLedger(config: Config, logger: Logger, lifecycle: Lifecycle): Promise<Storage> {
  const opening = openStorage(ledgerSetup(config, logger))
  // Stopping before the payment side started (a failed start-up) still closes the ledger:
  // the lock file goes, and a throwaway ledger's directory with it.
  lifecycle.onStop('ledger', () =>
    opening.then(
      (storage) => storage.close(),
      () => undefined,
    ),
  )
  return opening
}
