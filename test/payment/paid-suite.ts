import { createPublicClient, http, type PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { type Devnet, startDevnet } from '../../src/adapters/devnet/devnet.js'
import type { Facilitator } from '../../src/adapters/facilitator/facilitator-client.js'
import { createViemSettlementChain } from '../../src/adapters/facilitator/settlement-chain.js'
import { openStorage, type Storage } from '../../src/adapters/storage/open-storage.js'
import type { PaidPreflightDeps } from '../../src/domain/payment/paid-preflight.js'
import type { PaymentLedger } from '../../src/domain/payment/payment-ledger.js'
import type { PaymentRail } from '../../src/domain/payment/payment-rail.js'
import {
  type ReconcileReport,
  reconcileSettlements,
} from '../../src/domain/payment/reconcile-settlements.js'
import type { SettlementChain } from '../../src/domain/payment/settlement-chain.js'
import {
  BUYER,
  builtinFacilitator,
  buyer,
  PAY_TO,
  type PaidApp,
  paidApp,
  RECEIPT_SIGNER,
  unpaidOffer,
  usdcBalances,
} from './paid-stack.js'

/** One test file's paid stack: a devnet, an in-memory ledger and the real paid app on them. */
export interface PaidSuite {
  devnet: Devnet
  storage: Storage
  /** Reads the devnet directly. */
  chain: PublicClient
  /** The paid app on the suite's ledger. */
  stack: PaidApp
  /** payTo's USDC balance when the suite started. */
  payToAtStart: bigint
  /** Another paid app on the suite's ledger, its preflight reading the devnet directly. */
  appWith(options: {
    facilitator: Facilitator
    ledger?: PaymentLedger
    payments?: Partial<
      Pick<PaidPreflightDeps, 'waitTimeoutMs' | 'inFlight' | 'leaseMs' | 'confirmTimeoutMs'>
    >
  }): Promise<PaidApp>
  /** A PAYMENT-SIGNATURE for `app`'s offer, signed by `account` (default: the devnet buyer). */
  paymentHeader(app: PaidApp, account?: PrivateKeyAccount): Promise<string>
  /** One reconciliation pass over the suite's ledger, looking at every unresolved payment. */
  reconcile(
    rail: PaymentRail,
    options?: { chain?: SettlementChain; staleAfterMs?: number },
  ): Promise<ReconcileReport>
  /** Closes the ledger, then stops the devnet. */
  close(): Promise<void>
}

/**
 * Starts a devnet and an in-memory ledger, and the paid app on them with the built-in
 * facilitator (or `facilitator`), its preflight reading the chain at `preflightRpcUrl`
 * (default: the devnet). What those callbacks start is the caller's to close.
 */
export async function startPaidSuite(
  setup: {
    preflightRpcUrl?: (devnetRpcUrl: string) => Promise<string>
    facilitator?: (devnetRpcUrl: string) => Promise<Facilitator>
    /**
     * The quiet before a facilitator at a URL is asked to settle again (ResolveDeps), for the
     * suite's app and its reconciler passes; default the service's.
     */
    remoteSettleQuietMs?: number
  } = {},
): Promise<PaidSuite> {
  const devnet = await startDevnet()
  let storage: Storage | undefined
  const close = async () => {
    await storage?.close()
    await devnet.stop()
  }
  try {
    storage = await openStorage({ kind: 'pglite', dataDir: undefined })
    const ledger = storage.ledger
    const quiet =
      setup.remoteSettleQuietMs === undefined
        ? undefined
        : { remoteSettleQuietMs: setup.remoteSettleQuietMs }
    const chain = createPublicClient({ transport: http(devnet.rpcUrl) })
    const stack = await paidApp({
      preflightRpcUrl: (await setup.preflightRpcUrl?.(devnet.rpcUrl)) ?? devnet.rpcUrl,
      settlementRpcUrl: devnet.rpcUrl,
      facilitator: (await setup.facilitator?.(devnet.rpcUrl)) ?? builtinFacilitator(devnet.rpcUrl),
      ledger,
      ...(quiet ? { payments: quiet } : {}),
    })
    const payToAtStart = (await usdcBalances(chain, PAY_TO))[0] ?? 0n
    return {
      devnet,
      storage,
      chain,
      stack,
      payToAtStart,
      appWith: (options) =>
        paidApp({
          preflightRpcUrl: devnet.rpcUrl,
          facilitator: options.facilitator,
          ledger: options.ledger ?? ledger,
          ...(options.payments ? { payments: options.payments } : {}),
        }),
      paymentHeader: async (app, account = BUYER) =>
        buyer(app.app, devnet.rpcUrl, account).paymentHeader(await unpaidOffer(app.app)),
      reconcile: (rail, options = {}) =>
        reconcileSettlements({
          ledger,
          rail,
          chain:
            options.chain ?? createViemSettlementChain({ rpcUrl: devnet.rpcUrl, timeoutMs: 2_000 }),
          receiptSigner: RECEIPT_SIGNER,
          staleAfterMs: options.staleAfterMs ?? 0,
          // Every pass looks at every unresolved payment (the service backs off from 5 s).
          backoff: { initialMs: 0, maxMs: 0 },
          ...quiet,
        }),
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
