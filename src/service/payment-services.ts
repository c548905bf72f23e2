import type { FacilitatorClient } from '@x402/core/server'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  createFacilitator,
  type Facilitator,
  type FacilitatorSetup,
} from '../adapters/facilitator/facilitator-client.js'
import {
  createFacilitatorReadiness,
  type FacilitatorReadiness,
} from '../adapters/facilitator/facilitator-readiness.js'
import { createViemSettlementChain } from '../adapters/facilitator/settlement-chain.js'
import { createX402PaymentRail } from '../adapters/facilitator/x402-payment-rail.js'
import { openStorage, type Storage, type StorageSetup } from '../adapters/storage/open-storage.js'
import { holdSettlerLease, type SettlerLease } from '../adapters/storage/settler-lease.js'
import type { NetworkProfile } from '../domain/network/network-profile.js'
import { createInFlightTracker } from '../domain/payment/in-flight.js'
import type { PaidPreflightDeps } from '../domain/payment/paid-preflight.js'
import { DEFAULT_PAYMENT_LEASE_MS } from '../domain/payment/payment-ledger.js'
import type { PaymentLogger } from '../domain/payment/payment-logger.js'
import { LedgerUnavailableError } from '../errors.js'
import { startReconciler } from '../process/reconciler.js'
import type { Redactor } from '../secrets.js'

/** Everything the paid route runs on, resolved from configuration by `main.ts`. */
export interface PaymentServicesOptions {
  facilitator: FacilitatorSetup
  /** The network payments are taken on; Base mainnet when absent. */
  network?: NetworkProfile
  payTo: Address
  receiptPrivateKey: Hex
  /** Where the ledger lives, or the ledger already opened (start-up opens it early). */
  storage: StorageSetup | Storage
  /** RPC the reconciler reads settlement facts from. */
  rpcUrl: string
  rpcTimeoutMs: number
  logger: PaymentLogger
  /** Scrubs the facilitator's and the RPC's text quoted in outcomes and statuses: the configuration's secrets. */
  redactor: Redactor
  /** Reconciliation pass interval (ms). */
  reconcileIntervalMs?: number
  /** Owner lease of a payment (ms, default 15 s): a dead owner's payments are taken over after it. */
  leaseMs?: number
  /** Every payment must carry an x402 payment-identifier id (`PAYMENT_IDENTIFIER_REQUIRED`). */
  paymentIdentifierRequired?: boolean
  /** How long a payer whose settlement reverted is refused (ms; 0: never). */
  revertCooldownMs?: number
  /**
   * Judge authorization expiry by the later of the chain head's time and the wall clock: for
   * the devnet, whose idle anvil makes no blocks (its next block is stamped with the wall
   * clock). Never on a live chain, where only chain time counts.
   */
  idleChainClock?: boolean
  /** How long `close` waits for paid calls in progress before closing the ledger (ms). */
  drainTimeoutMs?: number
  /**
   * This instance's stable identity (`INSTANCE_ID`, default host:port): the built-in
   * facilitator's settlement account is leased to it in a shared PostgreSQL ledger.
   */
  instanceId: string
}

/** The running payment side: what `createApp` needs, plus what to report and to close. */
export interface PaymentServices {
  payments: Omit<PaidPreflightDeps, 'runPreflight'>
  facilitator: Facilitator
  readiness: FacilitatorReadiness
  storage: Storage
  receiptSigner: Address
  /**
   * Stops the background work, waits (bounded) for paid calls in progress - a call between
   * settle and receipt must be able to write its outcome - and closes the ledger.
   */
  close(): Promise<void>
}

/** The longest the start waits for the facilitator's first readiness check (ms). */
export const FIRST_READINESS_WAIT_MS = 2_000

/** Resolves once `check` settles, or after {@link FIRST_READINESS_WAIT_MS}. */
async function firstReadiness(check: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FIRST_READINESS_WAIT_MS)
  })
  await Promise.race([
    check.then(
      () => undefined,
      () => undefined,
    ),
    bound,
  ])
  clearTimeout(timer)
}

/**
 * Opens the ledger, builds the facilitator and the x402 rail, starts the `/supported`
 * readiness check (its first result waited for, within FIRST_READINESS_WAIT_MS) and the
 * settlement reconciler.
 */
export async function startPaymentServices(
  options: PaymentServicesOptions,
): Promise<PaymentServices> {
  const storage =
    'ledger' in options.storage
      ? options.storage
      : await openStorage(
          options.storage.kind === 'postgres'
            ? {
                ...options.storage,
                onError: (error, context) => options.logger.warn({ err: error }, context),
              }
            : options.storage,
        )
  const facilitator = createFacilitator(options.facilitator, options.redactor)
  // Instances sharing one ledger never share a settlement account (their nonces would
  // collide): the account is leased to one instance at a time. PGlite serves one instance.
  let settlerLease: SettlerLease | undefined
  if (facilitator.settlerAddress && storage.kind === 'postgres') {
    try {
      settlerLease = await holdSettlerLease({
        sql: storage.sql,
        schema: storage.schema,
        settler: facilitator.settlerAddress,
        instance: options.instanceId,
        onRenewError: (error) =>
          options.logger.warn({ err: error }, 'cannot renew the settlement account lease'),
        onLost: () =>
          options.logger.warn(
            { settler: facilitator.settlerAddress },
            'the settlement account lease ran out while the ledger was unreachable and another instance took the account: not settling until it is free again',
          ),
        onRegained: () =>
          options.logger.info(
            { settler: facilitator.settlerAddress },
            'the settlement account lease is held again: settling',
          ),
      })
    } catch (error) {
      await storage.close()
      throw error
    }
  }
  const client = settlerLease
    ? settleOnlyWhileHeld(facilitator.client, settlerLease)
    : facilitator.client
  const readiness = createFacilitatorReadiness({
    kind: facilitator.kind,
    ...(facilitator.url ? { url: facilitator.url } : {}),
    client,
    ...(options.network ? { network: options.network.id } : {}),
    redactor: options.redactor,
  })
  readiness.start()
  // The first 402 reports a checked facilitator, not the snapshot taken before any check
  // (`ready: false`, checkedAt null): the first check is waited for, at most
  // FIRST_READINESS_WAIT_MS, so that a facilitator that does not answer does not hold the start
  // (its 402s say so until a later check succeeds).
  await firstReadiness(readiness.refresh())
  const rail = createX402PaymentRail({
    facilitator: client,
    payTo: options.payTo,
    facilitatorStatus: readiness.status,
    ...(options.network ? { network: options.network } : {}),
    redactor: options.redactor,
  })
  const receiptSigner = privateKeyToAccount(options.receiptPrivateKey)
  const inFlight = createInFlightTracker()
  const chain = createViemSettlementChain({
    rpcUrl: options.rpcUrl,
    timeoutMs: options.rpcTimeoutMs,
    ...(options.idleChainClock ? { idleChainClock: true } : {}),
    ...(facilitator.minedReceipts ? { minedReceipts: facilitator.minedReceipts } : {}),
    ...(facilitator.meter ? { onReceipt: facilitator.meter.mined } : {}),
  })
  const leaseMs = options.leaseMs ?? DEFAULT_PAYMENT_LEASE_MS
  // The reconciler takes over what no living owner holds (the lease decides, not a fixed
  // stale window), and runs a first pass at once: a restart recovers a crash's payments.
  const simulateSettlement = facilitator.simulateSettlement
  const stopReconciler = startReconciler(
    {
      ledger: storage.ledger,
      rail,
      chain,
      receiptSigner,
      logger: options.logger,
      leaseMs,
      ...(simulateSettlement ? { simulateSettlement } : {}),
    },
    options.reconcileIntervalMs ?? 5_000,
  )
  return {
    payments: {
      rail,
      ledger: storage.ledger,
      chain,
      receiptSigner,
      logger: options.logger,
      inFlight,
      leaseMs,
      ...(options.paymentIdentifierRequired ? { paymentIdentifierRequired: true } : {}),
      ...(options.revertCooldownMs !== undefined
        ? { revertCooldownMs: options.revertCooldownMs }
        : {}),
      ...(simulateSettlement ? { simulateSettlement } : {}),
    },
    facilitator: { ...facilitator, client },
    readiness,
    storage,
    receiptSigner: receiptSigner.address,
    async close() {
      readiness.stop()
      await stopReconciler()
      const running = inFlight.size
      // Longer than one settle (facilitator timeout + its one pending retry) on purpose.
      if (!(await inFlight.drain(options.drainTimeoutMs ?? 30_000))) {
        options.logger.warn(
          { running, stillRunning: inFlight.size },
          'paid calls still running at shutdown; the reconciler resolves them after restart',
        )
      }
      await settlerLease?.release()
      await storage.close()
    },
  }
}

/**
 * The built-in facilitator's client, refusing to settle while the settler lease is not
 * surely held (the ledger was unreachable for a third of the lease, or another instance took
 * the account over): nothing is sent, the payment is left pending (503
 * `settlement_pending`, retryable), and the next retry or the reconciler settles it once the
 * lease is held again, here or on another instance.
 */
function settleOnlyWhileHeld(inner: FacilitatorClient, lease: SettlerLease): FacilitatorClient {
  return {
    verify: (payload, requirements) => inner.verify(payload, requirements),
    getSupported: () => inner.getSupported(),
    settle: async (payload, requirements) => {
      if (!lease.held()) {
        throw new LedgerUnavailableError(
          'the settlement account lease could not be renewed in the ledger (or another instance holds the account): nothing was sent; retry with the same PAYMENT-SIGNATURE',
        )
      }
      return inner.settle(payload, requirements)
    },
  }
}
