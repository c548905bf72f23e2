import { AsyncLocalStorage } from 'node:async_hooks'
import type { Hex } from 'viem'
import type { SettlementAnnouncer } from '../../domain/payment/settlement-announcement.js'

/**
 * The announcer of the settle call running now, carried from the rail to the built-in
 * facilitator's settler through `@x402/core`'s resource server and `@x402/evm`'s scheme (which
 * pass no such thing). `failure` keeps why an announcement failed: the library turns any error
 * before a broadcast into a refusal whose reason it guesses from the words.
 */
interface Announcement {
  announce: SettlementAnnouncer
  failure?: unknown
}

const current = new AsyncLocalStorage<Announcement>()

/** Runs `work` (a settle) with `announce` told of every settlement it is about to send. */
export function withSettlementAnnouncer<T>(
  announce: SettlementAnnouncer | undefined,
  work: () => Promise<T>,
): Promise<T> {
  return announce ? current.run({ announce }, work) : work()
}

/**
 * The running settle's announcer, keeping its failure for {@link announcementFailure}; undefined
 * when the caller announces nothing.
 */
export function currentAnnouncer(): SettlementAnnouncer | undefined {
  const announcement = current.getStore()
  if (!announcement) return undefined
  return async (transaction: Hex) => {
    try {
      await announcement.announce(transaction)
    } catch (error) {
      announcement.failure ??= error
      throw error
    }
  }
}

/** Why an announcement of the running settle failed (nothing was sent then), if one did. */
export function announcementFailure(): unknown {
  return current.getStore()?.failure
}
